/**
 * `inputs.json`: the exact request bodies of each session, replayable with
 * `--custom-dataset-type inputs_json`.
 */

import { type Body, bodyText } from "../util/body_store.ts";
import { writeArtifact, writeArtifactParts } from "./artifact.ts";

/** The bodies sent for one session, in turn order. */
export interface SessionPayloads {
  sessionId: string;
  /**
   * Each request body exactly as sent (JSON text); a stored one is decoded when its turn to be
   * written comes, and let go after.
   */
  payloads: readonly Body[];
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
  return [...inputsJsonParts(sessions)].join("");
}

/** The text of `inputs.json` in pieces, in order: what {@link inputsJson} joins. */
function* inputsJsonParts(sessions: SessionPayloads[]): Generator<string> {
  yield '{\n  "data": [';
  for (let i = 0; i < sessions.length; i++) {
    const s = sessions[i];
    yield i === 0 ? "\n" : ",\n";
    yield `    {\n      "session_id": ${JSON.stringify(s.sessionId)},\n      "payloads": [`;
    if (s.payloads.length === 0) yield "]";
    else {
      for (let j = 0; j < s.payloads.length; j++) {
        yield j === 0 ? "\n        " : ",\n        ";
        yield payloadText(bodyText(s.payloads[j]));
      }
      yield "\n      ]";
    }
    yield "\n    }";
  }
  yield sessions.length === 0 ? "]\n}\n" : "\n  ]\n}\n";
}

/**
 * Writes `inputs.json` to `path`, creating its directory; in pieces, so that bodies heavy with
 * media may add up to more than one string can hold. Stored bodies are decoded one at a time as
 * the file is written: their text is never all held at once.
 */
export async function writeInputsJson(path: string, sessions: SessionPayloads[]): Promise<void> {
  if (sessions.some((s) => s.payloads.some((p) => typeof p !== "string"))) {
    return await writeArtifactParts(path, inputsJsonParts(sessions));
  }
  const parts = [...inputsJsonParts(sessions)];
  let length = 0;
  for (const p of parts) length += p.length;
  // One write, as any artifact, unless the text is too long for one string.
  if (length < ONE_STRING) await writeArtifact(path, parts.join(""));
  else await writeArtifactParts(path, parts);
}

/** Text longer than this is written in pieces (V8's longest string is about 512 Mi characters). */
const ONE_STRING = 256 * 2 ** 20;
