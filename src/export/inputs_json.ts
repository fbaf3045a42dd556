/**
 * `inputs.json`: the exact request bodies of each session, replayable with
 * `--custom-dataset-type inputs_json`.
 */

import { writeArtifact } from "./artifact.ts";

/** The bodies sent for one session, in turn order. */
export interface SessionPayloads {
  sessionId: string;
  /** Each request body exactly as sent (JSON text). */
  payloads: string[];
}

/** A payload spliced as is when it is JSON text; otherwise kept as a JSON string so the file parses. */
function payloadText(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
}

/**
 * The text of `inputs.json`: `{"data":[{"session_id":…,"payloads":[…]}]}` indented by 2 spaces
 * like AIPerf's. Each payload's text is spliced in byte for byte (not re-serialized), so a
 * replay sends exactly what was sent.
 */
export function inputsJson(sessions: SessionPayloads[]): string {
  const parts: string[] = ['{\n  "data": ['];
  sessions.forEach((s, i) => {
    parts.push(i === 0 ? "\n" : ",\n");
    parts.push(`    {\n      "session_id": ${JSON.stringify(s.sessionId)},\n      "payloads": [`);
    if (s.payloads.length === 0) parts.push("]");
    else {
      s.payloads.forEach((p, j) =>
        parts.push(j === 0 ? "\n        " : ",\n        ", payloadText(p))
      );
      parts.push("\n      ]");
    }
    parts.push("\n    }");
  });
  parts.push(sessions.length === 0 ? "]\n}\n" : "\n  ]\n}\n");
  return parts.join("");
}

/** Writes `inputs.json` to `path`, creating its directory. */
export async function writeInputsJson(path: string, sessions: SessionPayloads[]): Promise<void> {
  await writeArtifact(path, inputsJson(sessions));
}
