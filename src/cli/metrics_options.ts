/** The metric options of `profile` (`--tokenizer`, `--goodput`, `--slice-duration`), resolved. */

import type { ProfileConfig } from "../config/options.ts";
import { ConfigError } from "../config/parse.ts";
import { type GoodputSlo, parseGoodput } from "../metrics/goodput.ts";
import { loadTokenizer, TokenizerError } from "../tokenizer/load.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";

/** What the run's results need from the metric options. */
export interface MetricsSetup {
  tokenizer: Tokenizer;
  goodput?: GoodputSlo[];
  sliceDurationS?: number;
}

/**
 * Loads the tokenizer and parses the SLOs before any request is sent; a bad value is a
 * {@link ConfigError} naming the flag.
 */
export async function metricsSetup(
  config: Pick<ProfileConfig, "tokenizer" | "goodput" | "sliceDuration">,
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
  try {
    tokenizer = await loadTokenizer(config.tokenizer);
  } catch (e) {
    if (e instanceof TokenizerError) throw new ConfigError(e.message);
    throw e;
  }
  return { tokenizer, goodput, sliceDurationS: config.sliceDuration };
}
