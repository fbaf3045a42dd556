/**
 * The dataset of a `profile` run, from its options: the `--input-file` (replayed or built with
 * the endpoint's formatter), or synthetic prompts when there is none. Formats that build bodies
 * use the run's model, `--extra-inputs`, streaming and max-tokens settings.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { readEnv } from "../util/env.ts";
import type { Endpoint } from "../endpoints/types.ts";
import type { BodyFormat } from "./build.ts";
import { loadDataset } from "./mod.ts";
import { type EnvReader, resolvePublicDataset } from "./public.ts";
import { generateSynthetic } from "./synthetic.ts";
import type { Dataset } from "./types.ts";

/**
 * Loads or generates the dataset for `config`. `seed` is the run's `--random-seed` (or the one
 * chosen for it); `extraBody` is the body part of `--extra-inputs`; `streaming` is whether the
 * run streams, as the run plan decides it (`runStreaming` in plan/run_plan.ts), so that built
 * bodies and the plan agree. `env` reads the cache folders `--public-dataset` looks in.
 */
export async function datasetForRun(
  config: ProfileConfig,
  endpoint: Endpoint,
  seed: number,
  extraBody: Record<string, unknown>,
  streaming: boolean,
  env: EnvReader = readEnv,
): Promise<Dataset> {
  const format: BodyFormat = {
    endpoint,
    options: {
      // Built bodies need a model; "model" is what the replay path reports without one, too.
      model: config.model ?? "model",
      streaming,
      extraInputs: extraBody,
      useLegacyMaxTokens: config.useLegacyMaxTokens,
      useServerTokenCount: config.useServerTokenCount,
    },
  };
  const ctx = {
    format,
    seed,
    numConversations: config.numConversations,
    outputTokensMean: config.osl,
    outputTokensStddev: config.oslStddev,
    uuidAndStrip: config.uuidAndStrip,
  };
  if (config.uuidAndStrip && endpoint.type !== "chat") {
    throw new ConfigError(
      `--uuid-and-strip sends image ids in chat image parts; it cannot apply to --endpoint-type ${endpoint.type}`,
    );
  }
  if (config.publicDataset !== undefined) {
    // A local copy only: the given --input-file or the cache; never a download.
    const file = await resolvePublicDataset(config.publicDataset, {
      inputFile: config.inputFile,
      customType: config.customDatasetType,
      env,
    });
    return await loadDataset(file.path, { type: file.type, ...ctx });
  }
  if (config.inputFile) {
    return await loadDataset(config.inputFile, { type: config.customDatasetType, ...ctx });
  }
  return await generateSynthetic(config, ctx);
}
