/**
 * Synthetic prompts (no `--input-file`): sessions of prompts cut from the corpus, their lengths
 * in tokens of the built-in tokenizer drawn from Normal(`--isl`, `--isl-stddev`) (exact when the
 * stddev is 0) or from a `--seq-dist` mix; a shared system prompt, a pool of prefixes for first
 * turns, turns per session and delays between them. Everything comes from `--random-seed`.
 */

import { ConfigError } from "../config/parse.ts";
import { buildConversation, type LoadContext, type PromptTurn, requireFormat } from "./build.ts";
import { SONNETS } from "./corpus_sonnets.ts";
import { datasetError } from "./errors.ts";
import { readText } from "./lines.ts";
import { PromptSource } from "./prompts.ts";
import { storeBodies } from "./stored.ts";
import { BodyStore } from "../util/body_store.ts";
import type { Conversation, Dataset } from "./types.ts";
import { type MediaOptions, wantsMedia } from "./media/wants.ts";

/** The dataset type recorded for generated data. */
export const SYNTHETIC = "synthetic";

/**
 * The settings of the generator (the `--isl` … `--prompt-corpus` options, and the `--image-*`,
 * `--audio-*` and `--video-*` ones that add media to every turn).
 */
export interface SyntheticOptions extends Partial<MediaOptions> {
  isl: number;
  islStddev: number;
  osl?: number;
  oslStddev: number;
  seqDist?: string;
  numConversations?: number;
  numDatasetEntries: number;
  sessionTurnsMean: number;
  sessionTurnsStddev: number;
  sessionTurnDelayMean: number;
  sessionTurnDelayStddev: number;
  sharedSystemPromptLength: number;
  numPrefixPrompts: number;
  prefixPromptLength: number;
  promptCorpus: string;
}

/** One entry of a `--seq-dist` mix. */
export interface SeqDistEntry {
  isl: number;
  islStddev: number;
  osl: number;
  oslStddev: number;
  /** Share of requests, as a fraction of the total weight. */
  weight: number;
}

/**
 * Parses `--seq-dist`: `ISL,OSL:percent` entries separated by `;`, each length optionally
 * `mean|stddev` (`"128,64:25;512|16,128:75"`). Throws an `Error` saying what was expected.
 */
export function parseSeqDist(text: string): SeqDistEntry[] {
  const entries = text.split(";").map((s) => s.trim()).filter(Boolean).map((part) => {
    const m =
      /^\(?\s*(\d+)(?:\|(\d+(?:\.\d+)?))?\s*,\s*(\d+)(?:\|(\d+(?:\.\d+)?))?\s*\)?\s*:\s*(\d+(?:\.\d+)?)$/
        .exec(part);
    if (!m) {
      throw new Error(
        `--seq-dist entry "${part}" is not ISL[|stddev],OSL[|stddev]:percent (e.g. 128,64:25)`,
      );
    }
    return {
      isl: Number(m[1]),
      islStddev: Number(m[2] ?? 0),
      osl: Number(m[3]),
      oslStddev: Number(m[4] ?? 0),
      weight: Number(m[5]),
    };
  });
  const total = entries.reduce((s, e) => s + e.weight, 0);
  if (entries.length === 0 || !(total > 0)) throw new Error("--seq-dist has no entry with weight");
  return entries.map((e) => ({ ...e, weight: e.weight / total }));
}

/** Generates the synthetic dataset. */
export async function generateSynthetic(
  opts: SyntheticOptions,
  ctx: LoadContext,
): Promise<Dataset> {
  const source = "synthetic";
  const format = requireFormat(source, ctx, SYNTHETIC);
  const corpus = opts.promptCorpus === "sonnet" ? SONNETS : await readCorpus(opts.promptCorpus);
  let dist: SeqDistEntry[] | null = null;
  try {
    dist = opts.seqDist ? parseSeqDist(opts.seqDist) : null;
  } catch (err) {
    throw datasetError(source, (err as Error).message);
  }
  const gen = new PromptSource(ctx.seed, corpus);
  const system = opts.sharedSystemPromptLength > 0
    ? gen.prompt(opts.sharedSystemPromptLength)
    : undefined;
  const prefixes = opts.numPrefixPrompts > 0 && opts.prefixPromptLength > 0
    ? Array.from({ length: opts.numPrefixPrompts }, () => gen.prompt(opts.prefixPromptLength))
    : [];
  const media = await mediaSource(opts, ctx.seed, source);
  // Bodies with media go to shared memory as they are built: each is held once, as sent.
  const store = media ? new BodyStore() : null;
  const sessions = opts.numConversations ?? opts.numDatasetEntries;
  const conversations: Conversation[] = [];
  for (let s = 0; s < sessions; s++) {
    const count = gen.normalInt(opts.sessionTurnsMean, opts.sessionTurnsStddev, 1);
    const turns: PromptTurn[] = [];
    for (let t = 0; t < count; t++) {
      const { isl, osl } = lengths(gen, opts, dist);
      let text = gen.prompt(isl);
      if (t === 0 && prefixes.length > 0) {
        text = `${prefixes[Math.floor(gen.random() * prefixes.length)]} ${text}`;
      }
      const turn: PromptTurn = { input: { texts: [text] } };
      if (media) Object.assign(turn.input, await nextMedia(media, source));
      if (osl !== undefined) turn.input.maxTokens = osl;
      if (system !== undefined) turn.input.system = system;
      if (t > 0 && opts.sessionTurnDelayMean > 0) {
        turn.delayMs = gen.normalInt(opts.sessionTurnDelayMean, opts.sessionTurnDelayStddev, 0);
      }
      turns.push(turn);
    }
    const id = `session_${String(s).padStart(6, "0")}`;
    const conversation = buildConversation(format, id, turns, source);
    conversations.push(store ? storeBodies(conversation, store) : conversation);
  }
  return { type: SYNTHETIC, source, conversations };
}

/**
 * The run's media source, or null when no media option is given (the media code is then not
 * even loaded). A missing ffmpeg or an MP3 sample rate is the options' fault (`ConfigError`); an
 * image directory without pictures, the dataset's (`DatasetError`).
 */
async function mediaSource(opts: SyntheticOptions, seed: number, source: string) {
  if (!wantsMedia(opts as MediaOptions)) return null;
  const { MediaSource, mediaProblem } = await import("./media/mod.ts");
  const problem = mediaProblem(opts as MediaOptions);
  if (problem) throw new ConfigError(problem);
  try {
    return MediaSource.create(opts as MediaOptions, seed);
  } catch (err) {
    throw datasetError(source, (err as Error).message);
  }
}

/** The next turn's media; a picture that cannot be read is the dataset's fault. */
async function nextMedia(media: { next(): Promise<object> }, source: string) {
  try {
    return await media.next();
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw datasetError(source, (err as Error).message);
  }
}

function lengths(
  gen: PromptSource,
  opts: SyntheticOptions,
  dist: SeqDistEntry[] | null,
): { isl: number; osl?: number } {
  if (dist) {
    let r = gen.random();
    let e = dist[dist.length - 1];
    for (const d of dist) {
      if (r < d.weight) {
        e = d;
        break;
      }
      r -= d.weight;
    }
    return { isl: gen.normalInt(e.isl, e.islStddev), osl: gen.normalInt(e.osl, e.oslStddev) };
  }
  return {
    isl: gen.normalInt(opts.isl, opts.islStddev),
    osl: opts.osl === undefined ? undefined : gen.normalInt(opts.osl, opts.oslStddev),
  };
}

async function readCorpus(path: string): Promise<string> {
  const text = await readText(path);
  if (!text.trim()) throw datasetError(path, "the prompt corpus is empty");
  return text;
}
