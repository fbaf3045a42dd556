/**
 * The metric options of `profile` (`--tokenizer` and its revision and chat template, `--goodput`,
 * `--slice-duration`), resolved before the run.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { type GoodputSlo, parseGoodput } from "../metrics/goodput.ts";
import { TokenizerError } from "../tokenizer/load.ts";
import { resolveTokenizer } from "../tokenizer/resolve.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

/** What the run's results need from the metric options. */
export interface MetricsSetup {
  tokenizer: Tokenizer;
  goodput?: GoodputSlo[];
  sliceDurationS?: number;
  /** Warnings to print before the run (a tokenizer that fell back to o200k), one line each. */
  warnings: string[];
}

/**
 * Loads the tokenizer and parses the SLOs before any request is sent; a bad value is a
 * {@link ConfigError} naming the flag.
 */
export async function metricsSetup(
  config: Pick<
    ProfileConfig,
    "tokenizer" | "tokenizerRevision" | "applyChatTemplate" | "model" | "goodput" | "sliceDuration"
  >,
  io: {
    /** Gets the tokenizer download's progress line. */
    progress?: (line: string) => void;
    /** The environment (`HF_HOME`, `HF_ENDPOINT`, `HF_TOKEN`, `HF_HUB_OFFLINE`). */
    env?: (name: string) => string | undefined;
  } = {},
): Promise<MetricsSetup> {
  let goodput: GoodputSlo[] | undefined;
  if (config.goodput !== undefined) {
    try {
      goodput = parseGoodput(config.goodput);
    } catch (e) {
      throw new ConfigError(`--goodput: ${(e as Error).message}`);
    }
  }
  let tokenizer: Tokenizer;
  let warnings: string[];
  try {
    ({ tokenizer, warnings } = await resolveTokenizer({
      tokenizer: config.tokenizer,
      model: config.model,
      revision: config.tokenizerRevision,
      applyChatTemplate: config.applyChatTemplate,
      progress: io.progress,
      getEnv: io.env,
    }));
  } catch (e) {
    if (e instanceof TokenizerError) throw new ConfigError(e.message);
    throw e;
  }
  return { tokenizer, goodput, sliceDurationS: config.sliceDuration, warnings };
}
