/**
 * The input of one run from its parsed options: the endpoint, the dataset and the target, and
 * the wait for the model to be served. `profile`, sweeps and searches all build their runs here.
 */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { redactedCommandLine } from "../config/redact.ts";
import { datasetForRun } from "../dataset/from_config.ts";
import { INPUTS_JSON } from "../dataset/inputs_json.ts";
import { RAW_PAYLOAD } from "../dataset/raw_payload.ts";
import type { Dataset } from "../dataset/types.ts";
import { type Endpoint, getEndpoint } from "../endpoints/mod.ts";
import { parseExtraInputs } from "../config/extra_inputs.ts";
import { runStreaming } from "../plan/run_plan.ts";
import { signalExitCode } from "./exit_codes.ts";
import { type Io, stopSignal } from "./io.ts";
import { outputIo } from "./output.ts";
import { endpointOptions } from "../plan/endpoint_options.ts";
import { checkRunPermissions } from "./permissions.ts";
import type { RunInput } from "./run.ts";
import { buildTarget } from "./target.ts";
import { NotReadyError, waitForModel } from "./wait_for_model.ts";

const MODEL_REQUIRED =
  '--model is required (the model to benchmark, e.g. --model Qwen/Qwen3-0.6B; replayed payloads that all carry a "model" may leave it out)';

/**
 * Whether a run without `--model` can take its model from its dataset: replayed payloads
 * (`raw_payload`, `inputs_json`) are sent as written, so when every one names a `model`, that is
 * what the server is asked for and what the run is named after. Any other dataset needs
 * `--model`, as in AIPerf.
 */
function namesOwnModel(dataset: Dataset): boolean {
  if (dataset.type !== RAW_PAYLOAD && dataset.type !== INPUTS_JSON) return false;
  let any = false;
  for (const c of dataset.conversations) {
    for (const t of c.turns) {
      try {
        const m = (JSON.parse(t.body) as { model?: unknown }).model;
        if (typeof m !== "string" || m === "") return false;
        any = true;
      } catch {
        return false;
      }
    }
  }
  return any;
}

/**
 * The input of one run from its parsed options: the model check, the seed (drawn when not
 * given), the endpoint, the dataset and the target; a number is the exit code of a signal taken
 * meanwhile. Throws a `ConfigError` for an option the run cannot follow.
 */
export async function runInputFor(
  parsedConfig: ProfileConfig,
  given: ReadonlySet<string>,
  args: string[],
  io: Io,
): Promise<RunInput | number> {
  let config = parsedConfig;
  // As in AIPerf, the model must be named; only replayed payloads can name it themselves.
  if (!config.model && !config.inputFile) throw new ConfigError(MODEL_REQUIRED);
  // One seed for the dataset and the run, recorded; without --input-file prompts are synthetic.
  if (config.randomSeed === undefined) {
    config = { ...config, randomSeed: Math.floor(Math.random() * 2 ** 31) };
  }
  // From here on, --quiet lets only errors through (the dataset's notes and warnings included).
  io = outputIo(io, config);
  const extras = parseExtraInputs(config.extraInputs);
  let endpoint: Endpoint;
  try {
    endpoint = getEndpoint(config.endpointType, endpointOptions(config, io.env));
  } catch (e) {
    // An unknown type or a bad JMESPath expression is the user's to fix.
    throw new ConfigError((e as Error).message);
  }
  const dataset = await datasetForRun(
    config,
    endpoint,
    config.randomSeed!,
    extras.body,
    runStreaming(config, endpoint),
    io.env,
  );
  if (!config.model && !namesOwnModel(dataset)) throw new ConfigError(MODEL_REQUIRED);
  if (io.signal?.aborted) return signalExitCode(stopSignal(io));
  const target = buildTarget(config, endpoint, io.env);
  return {
    config,
    dataset,
    endpoint,
    target,
    cliCommand: redactedCommandLine(["profile", ...args]),
    io,
    given,
  };
}

/**
 * Checks the permissions the run needs and waits for the model to be served
 * (`--wait-for-model-timeout`); null when the run may start, else the exit code.
 */
export async function awaitModel(input: RunInput): Promise<number | null> {
  const { config, target, io } = input;
  for (const url of target.urls) checkRunPermissions(url);
  try {
    await waitForModel({
      baseUrl: target.baseUrl,
      endpointType: config.endpointType,
      headers: target.headers,
      timeoutS: config.waitForModelTimeout,
      intervalS: config.waitForModelInterval,
      signal: io.signal,
      log: io.stderr,
    });
  } catch (e) {
    if (!(e instanceof NotReadyError)) throw e;
    if (io.signal?.aborted) return signalExitCode(stopSignal(io));
    io.stderr(`error: ${e.message}\n`);
    return e.exitCode;
  }
  return null;
}
