/**
 * Bodies built from prompts (single_turn, multi_turn, random_pool, traces, synthetic, ShareGPT):
 * each turn becomes a request body through the endpoint's `formatPayload`, at load time.
 *
 * Conversations of more than one turn use AIPerf's `deltas_without_responses` context mode: the
 * dataset holds only each turn's new user message, and turn N is sent with every earlier user
 * message and the *live* answers the server gave to them. Those bodies can only be built while
 * the run goes, so such a conversation also carries {@link LiveTurns}, which the load engine
 * hands to {@link liveBody} with the answers read so far. Its `turns[i].body` holds what was
 * built without history (turn 0 exactly as sent; later turns, the delta), which is what
 * `inputs.json` records.
 */

import { formatTurn } from "../endpoints/mod.ts";
import type { Endpoint, FormatOptions, TurnInput } from "../endpoints/types.ts";
import { datasetError } from "./errors.ts";
import { hash32, mulberry32 } from "../util/rng.ts";
import type { Conversation, LiveTurns, Turn } from "./types.ts";

/** How the run turns a prompt into a body: the endpoint and the run-wide format settings. */
export interface BodyFormat {
  endpoint: Endpoint;
  options: FormatOptions;
}

/** One turn to build: the prompt, the record's `extra` fields, and its timing. */
export interface PromptTurn {
  input: TurnInput;
  /** Shallow-merged into the body after `--extra-inputs` (the record's fields win). */
  extra?: Record<string, unknown>;
  delayMs?: number;
  timestampMs?: number;
  /** `file:line`, for error messages. */
  origin?: string;
}

/** The body of one turn without history, or a `DatasetError` naming where the turn came from. */
export function buildBody(
  format: BodyFormat,
  turn: { input: TurnInput; extra?: Record<string, unknown>; origin?: string },
  source: string,
): string {
  const options = turn.extra
    ? { ...format.options, extraInputs: { ...format.options.extraInputs, ...turn.extra } }
    : format.options;
  try {
    return formatTurn(format.endpoint, turn.input, options);
  } catch (err) {
    throw datasetError(
      source,
      `${turn.origin ? `${turn.origin}: ` : ""}cannot build a request body: ${
        (err as Error).message
      }`,
    );
  }
}

/**
 * A conversation whose bodies are built from prompts. With more than one turn, it carries
 * {@link LiveTurns} for `deltas_without_responses`.
 */
export function buildConversation(
  format: BodyFormat,
  sessionId: string,
  turns: PromptTurn[],
  source: string,
): Conversation {
  const built: Turn[] = turns.map((t) => {
    const turn: Turn = { body: buildBody(format, t, source) };
    if (t.delayMs !== undefined) turn.delayMs = t.delayMs;
    if (t.timestampMs !== undefined) turn.timestampMs = t.timestampMs;
    if (t.origin !== undefined) turn.origin = t.origin;
    return turn;
  });
  const conversation: Conversation = { sessionId, turns: built };
  if (turns.length > 1) {
    conversation.live = {
      endpointType: format.endpoint.type,
      options: format.options,
      turns: turns.map((t) => (t.extra ? { input: t.input, extra: t.extra } : { input: t.input })),
    };
  }
  return conversation;
}

/**
 * The body of turn `index` of a live conversation: every earlier turn's user text and the
 * server's answer to it (`answers[j]`, "" when it gave none) as history, then the turn itself.
 */
export function liveBody(
  endpoint: Endpoint,
  live: LiveTurns,
  index: number,
  answers: readonly string[],
): string {
  const history: { role: string; content: string }[] = [];
  for (let j = 0; j < index; j++) {
    const earlier = live.turns[j].input;
    for (const m of earlier.history ?? []) history.push(m);
    history.push({ role: earlier.role ?? "user", content: earlier.texts.join("\n") });
    history.push({ role: "assistant", content: answers[j] ?? "" });
  }
  const turn = live.turns[index];
  const input: TurnInput = {
    ...turn.input,
    history: [...history, ...(turn.input.history ?? [])],
  };
  const options = turn.extra
    ? { ...live.options, extraInputs: { ...live.options.extraInputs, ...turn.extra } }
    : live.options;
  return formatTurn(endpoint, input, options);
}

/** The run-wide inputs of a loader that builds bodies or draws at random. */
export interface LoadContext {
  /** How prompts become bodies; absent when the run cannot build one (the caller's choice). */
  format?: BodyFormat;
  /** Seeds prompts, pools and lengths: same seed, same bodies. */
  seed: number;
  /** `--num-conversations`, when given. */
  numConversations?: number;
  /**
   * `--osl`, when given: turns of single_turn and multi_turn files that set no `output_length`
   * ask for a draw of it (as AIPerf fills a custom dataset turn's max tokens); ShareGPT then
   * keeps completions shorter than its minimum, as AIPerf.
   */
  outputTokensMean?: number;
  /** `--osl-stddev`: the spread of those draws (0: exactly the mean). */
  outputTokensStddev?: number;
  /** `--uuid-and-strip`: a session's repeated images (by `image_uuids` id) go out as ids alone. */
  uuidAndStrip?: boolean;
}

/**
 * What sets the max tokens of every turn that has none to a draw from Normal(`--osl`,
 * `--osl-stddev`) (rounded, at least 1), seeded by the run's seed: AIPerf applies
 * `--output-tokens-mean` to file datasets whose entries give no output length. One per load:
 * its draws go on from one session to the next. Without `--osl` nothing changes.
 */
export function outputLengthFiller(ctx: LoadContext): (turns: Iterable<PromptTurn>) => void {
  const mean = ctx.outputTokensMean;
  if (mean === undefined) return () => {};
  const stddev = ctx.outputTokensStddev ?? 0;
  // Its own stream of the seed, so the draws do not shift any other seeded choice.
  const rand = mulberry32(hash32(ctx.seed, 0, 0x05f1));
  return (turns) => {
    for (const t of turns) {
      if (t.input.maxTokens !== undefined) continue;
      let n = mean;
      if (stddev > 0) {
        const z = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
        n = mean + z * stddev;
      }
      t.input.maxTokens = Math.max(1, Math.round(n));
    }
  };
}

/** The context's body format, or a `DatasetError`: `type` builds its bodies and needs one. */
export function requireFormat(source: string, ctx: LoadContext, type: string): BodyFormat {
  const format = ctx.format;
  if (!format || format.endpoint.formatPayload === undefined) {
    throw datasetError(
      source,
      `${type} datasets hold prompts, and the ${
        format?.endpoint.type ?? "selected"
      } endpoint cannot build a request body from a prompt; pick another --endpoint-type ` +
        `(chat, completions, responses, …) or replay request bodies with raw_payload`,
    );
  }
  return format;
}
