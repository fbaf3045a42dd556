/**
 * `--extra-inputs` values → one object of fields. Most are merged into the bodies reprise
 * builds; a few name settings instead (`response_field` for the raw and template endpoints,
 * `payload_template` for the template endpoint).
 */

import { ConfigError } from "./parse.ts";
import { keyValues } from "./key_values.ts";

/** Keys of `--extra-inputs` that configure reprise rather than fill a body. */
export const SETTING_KEYS: readonly string[] = ["response_field", "payload_template"];

/** `--extra-inputs`, split into body fields and settings. */
export interface ExtraInputs {
  /** Merged into every body reprise builds, last. */
  body: Record<string, unknown>;
  /** JMESPath expression selecting the answer text of the raw endpoint. */
  responseField?: string;
  /** The template endpoint's body template: a named template, a file or the template itself. */
  payloadTemplate?: string;
}

/** A `key:value` value: JSON when it parses (`true`, `5`, `{"a":1}`), else the text itself. */
function valueOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Parses each value: a JSON object (`{"ignore_eos":true}`) or `key:value` split at the first
 * colon. Later values win. Throws a ConfigError naming the bad value.
 */
export function parseExtraInputs(values: readonly string[]): ExtraInputs {
  const all: Record<string, unknown> = {};
  for (const { key, value, fromJson } of keyValues("--extra-inputs", values, "fields")) {
    // A JMESPath expression can look like JSON (`[0]`); it is kept as written.
    all[key] = fromJson || SETTING_KEYS.includes(key) ? value : valueOf(value as string);
  }
  const out: ExtraInputs = { body: {} };
  for (const [k, v] of Object.entries(all)) {
    if (k === "response_field") {
      if (typeof v !== "string" || v === "") {
        throw new ConfigError(`--extra-inputs response_field must be a JMESPath expression`);
      }
      out.responseField = v;
    } else if (k === "payload_template") {
      if (typeof v !== "string" || v.trim() === "") {
        throw new ConfigError(
          `--extra-inputs payload_template must name a template, a file or hold the template`,
        );
      }
      out.payloadTemplate = v;
    } else out.body[k] = v;
  }
  return out;
}
