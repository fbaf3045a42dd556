/**
 * Repeatable flags that take `key:value` or a JSON object (`-H`, `--extra-inputs`), read one way.
 */

import { ConfigError } from "./parse.ts";

/** One entry: from a JSON object (`value` as parsed) or from `key:value` (`value` the text). */
export interface KeyValue {
  key: string;
  value: unknown;
  fromJson: boolean;
}

/**
 * Splits each value into entries: a JSON object gives one entry per field; `key:value` is split
 * at the first colon, both sides trimmed. `what` names the keys in messages ("header names").
 * Throws a ConfigError naming the flag and the bad value.
 */
export function keyValues(flag: string, values: readonly string[], what: string): KeyValue[] {
  const out: KeyValue[] = [];
  for (const v of values) {
    const t = v.trim();
    if (t.startsWith("{")) {
      let obj: unknown;
      try {
        obj = JSON.parse(t);
      } catch (e) {
        throw new ConfigError(
          `${flag} "${t.slice(0, 60)}" is not valid JSON: ${(e as Error).message}`,
        );
      }
      if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
        throw new ConfigError(`${flag} JSON must be an object of ${what} to values`);
      }
      for (const [key, value] of Object.entries(obj)) out.push({ key, value, fromJson: true });
      continue;
    }
    const i = t.indexOf(":");
    if (i <= 0) {
      throw new ConfigError(
        `${flag} must be \`key:value\` or a JSON object, got "${t.slice(0, 60)}"`,
      );
    }
    out.push({ key: t.slice(0, i).trim(), value: t.slice(i + 1).trim(), fromJson: false });
  }
  return out;
}
