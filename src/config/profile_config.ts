/** Reading a `profile` command line into its validated config: what the CLI and tests call. */

import { profileOptions } from "./options.ts";
import { type EnvReader, type Parsed, parseOptions } from "./parse.ts";

/**
 * Parses a `profile` command line (`["profile", "--flag", "value", …]`, or without the leading
 * `profile`); throws a `ConfigError` for an unknown flag or a bad value.
 */
export function parseConfig(
  argv: string[],
  env: EnvReader = () => undefined,
): Parsed<typeof profileOptions> {
  const args = argv[0] === "profile" ? argv.slice(1) : argv;
  return parseOptions(profileOptions, args, env);
}
