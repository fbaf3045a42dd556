/**
 * ShareGPT from a local file (`--custom-dataset-type sharegpt`), read the way AIPerf reads the
 * public dataset it downloads: a JSON array of `{id, conversations: [{from, value}, …]}`. Each
 * entry gives one single-turn conversation: its first `human` prompt and the `gpt` completion
 * right after it (entries without `from` roles: the first two messages). Entries are kept only
 * when the lengths in tokens of the built-in tokenizer pass AIPerf's filter
 * ({@link SHAREGPT_LIMITS}); the completion's length becomes the request's max tokens.
 * The file is streamed element by element, so the full ShareGPT V3 file (≈ 650 MiB) loads.
 */

import { isWithinO200kLimit } from "../tokenizer/o200k_count.ts";
import { buildConversation, type LoadContext, requireFormat } from "./build.ts";
import { datasetError, describeJson } from "./errors.ts";
import { forEachArrayElement } from "./json_array.ts";
import { fileStem } from "./paths.ts";
import type { Conversation, Dataset } from "./types.ts";

/** The `--custom-dataset-type` value. */
export const SHAREGPT = "sharegpt";

/** AIPerf's ShareGPT length filter, in tokens (the bounds are inclusive). */
export const SHAREGPT_LIMITS = Object.freeze({
  /** Shortest prompt, and shortest completion unless an output length is configured. */
  minTokens: 4,
  /** Longest prompt. */
  maxPromptTokens: 1024,
  /** Longest prompt + completion. */
  maxTotalTokens: 2048,
});

/**
 * Token count of `text` when it is at most `limit`, else null (stops counting early). Prompts may
 * contain special-token text such as "<|endoftext|>": it counts as plain text.
 */
function tokensUpTo(text: string, limit: number): number | null {
  if (limit < 0) return null;
  const n = isWithinO200kLimit(text, limit);
  return n === false ? null : n;
}

/**
 * The prompt and completion an entry's `conversations` yield, or null when it has none: the
 * first `human` message followed by a `gpt` one (both non-empty), or, when no message carries
 * those roles, the first two messages. Throws an `Error` naming the message when the chosen
 * value is not a string.
 */
export function sharegptPair(messages: readonly unknown[]): [string, string] | null {
  const dicts = messages.filter((m): m is Record<string, unknown> =>
    m !== null && typeof m === "object" && !Array.isArray(m)
  );
  if (dicts.length < 2) return null;
  const value = (m: Record<string, unknown>) => {
    const v = m.value;
    if (v === undefined || v === null || v === "") return "";
    if (typeof v !== "string") {
      throw new Error(
        `conversations[${messages.indexOf(m)}].value is ${describeJson(v)}, expected a string`,
      );
    }
    return v;
  };
  const roled = dicts.filter((m) => m.from === "human" || m.from === "gpt");
  if (roled.length === 0) {
    const prompt = value(dicts[0]);
    const completion = value(dicts[1]);
    return prompt && completion ? [prompt, completion] : null;
  }
  for (let i = 0; i + 1 < roled.length; i++) {
    if (roled[i].from !== "human" || roled[i + 1].from !== "gpt") continue;
    const prompt = value(roled[i]);
    const completion = value(roled[i + 1]);
    if (prompt && completion) return [prompt, completion];
    i++; // a human→gpt pair with an empty side is passed over as a whole
  }
  return null;
}

/**
 * Whether a (prompt, completion) pair of these token lengths passes AIPerf's filter.
 * `checkCompletionMin` is false when the run sets an output length (`--osl`), as in AIPerf.
 */
export function sharegptKeeps(
  promptTokens: number,
  completionTokens: number,
  checkCompletionMin = true,
): boolean {
  const { minTokens, maxPromptTokens, maxTotalTokens } = SHAREGPT_LIMITS;
  return promptTokens >= minTokens && promptTokens <= maxPromptTokens &&
    (!checkCompletionMin || completionTokens >= minTokens) &&
    promptTokens + completionTokens <= maxTotalTokens;
}

/** Loads a ShareGPT JSON file; session ids are the entries' `id`s when unique. */
export async function loadShareGpt(path: string, ctx: LoadContext): Promise<Dataset> {
  const format = requireFormat(path, ctx, SHAREGPT);
  const checkCompletionMin = ctx.outputTokensMean === undefined;
  const stem = fileStem(path);
  const ids = new Set<string>();
  const conversations: Conversation[] = [];
  const total = await forEachArrayElement(path, (entry, index, line) => {
    const at = `element [${index}] (line ${line})`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw datasetError(
        path,
        `${at} is ${describeJson(entry)}, expected an object with a "conversations" list`,
      );
    }
    const rec = entry as Record<string, unknown>;
    const messages = rec.conversations ?? [];
    if (!Array.isArray(messages)) {
      throw datasetError(
        path,
        `${at}: "conversations" is ${describeJson(messages)}, expected a list of messages`,
      );
    }
    let pair: [string, string] | null;
    try {
      pair = sharegptPair(messages);
    } catch (err) {
      throw datasetError(path, `${at}: ${(err as Error).message}`);
    }
    if (!pair) return;
    const { maxPromptTokens, maxTotalTokens } = SHAREGPT_LIMITS;
    const promptTokens = tokensUpTo(pair[0], maxPromptTokens);
    if (promptTokens === null) return;
    const completionTokens = tokensUpTo(pair[1], maxTotalTokens - promptTokens);
    if (completionTokens === null) return;
    if (!sharegptKeeps(promptTokens, completionTokens, checkCompletionMin)) return;
    let id = typeof rec.id === "string" && rec.id !== "" ? rec.id : `${stem}-${index}`;
    if (ids.has(id)) id = `${id}-${index}`;
    ids.add(id);
    conversations.push(buildConversation(format, id, [{
      input: { texts: [pair[0]], maxTokens: completionTokens },
      origin: `${path}: [${index}]`,
    }], path));
  });
  if (total === 0) {
    throw datasetError(path, "the array is empty: expected ShareGPT entries");
  }
  if (conversations.length === 0) {
    const { minTokens, maxPromptTokens, maxTotalTokens } = SHAREGPT_LIMITS;
    throw datasetError(
      path,
      `none of its ${total} entries has a human prompt and gpt completion within ShareGPT's ` +
        `length filter (prompt ${minTokens}–${maxPromptTokens} tokens, completion at least ` +
        `${minTokens}, together at most ${maxTotalTokens})`,
    );
  }
  return { type: SHAREGPT, source: path, conversations };
}
