/**
 * Synthetic prompt text: slices of the shipped corpus with an exact token count under the
 * built-in tokenizer (o200k), plus AIPerf's hash-id blocks (the same id gives the same text, so
 * traces that share ids share prefixes) and seeded normal draws for lengths.
 */

import { decodeO200k, encodeO200k } from "../tokenizer/o200k.ts";
import { countO200k } from "../tokenizer/o200k_count.ts";
import { SONNETS } from "./corpus_sonnets.ts";
import { hash32, mulberry32 } from "../util/rng.ts";

/** The corpus as tokens, tokenized once per process and text. */
const tokenized = new Map<string, number[]>();

function corpusTokens(text: string): number[] {
  let tokens = tokenized.get(text);
  if (!tokens) {
    tokens = encodeO200k(text.replace(/\s+/g, " ").trim());
    tokenized.set(text, tokens);
  }
  return tokens;
}

/** Seeded prompt generator over a corpus. */
export class PromptSource {
  #tokens: number[];
  #rand: () => number;
  #seed: number;
  #blocks = new Map<string, string>();

  /** @param seed Same seed, same prompts. @param corpus The text to slice (default: the sonnets). */
  constructor(seed: number, corpus: string = SONNETS) {
    this.#seed = seed >>> 0;
    this.#rand = mulberry32(seed);
    this.#tokens = corpusTokens(corpus);
  }

  /** A float in [0, 1) from this source's sequence. */
  random(): number {
    return this.#rand();
  }

  /** A draw from Normal(mean, stddev), rounded, at least `min`; exactly `mean` when stddev is 0. */
  normalInt(mean: number, stddev: number, min = 1): number {
    if (!(stddev > 0)) return Math.max(min, Math.round(mean));
    const u = 1 - this.#rand();
    const v = this.#rand();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.max(min, Math.round(mean + z * stddev));
  }

  /** A prompt of exactly `tokens` tokens (when the corpus allows), from a random place. */
  prompt(tokens: number): string {
    return this.#slice(Math.floor(this.#rand() * this.#tokens.length), tokens);
  }

  /** The text of hash block `id`: the same for the same id and length within a run. */
  block(id: number, tokens: number): string {
    const key = `${id}:${tokens}`;
    let text = this.#blocks.get(key);
    if (text === undefined) {
      text = this.#slice(hash32(this.#seed, id, 0x6b) % this.#tokens.length, tokens);
      this.#blocks.set(key, text);
    }
    return text;
  }

  /**
   * Decodes `want` corpus tokens from `start` (wrapping), then corrects the slice length until
   * the text counts `want` tokens: decoding and re-encoding can merge or split at the edges.
   */
  #slice(start: number, want: number): string {
    if (want <= 0) return "";
    const n = this.#tokens.length;
    let take = want;
    let text = "";
    for (let i = 0; i < 16; i++) {
      const ids: number[] = new Array(take);
      for (let k = 0; k < take; k++) ids[k] = this.#tokens[(start + k) % n];
      text = decodeO200k(ids).trim();
      const got = countO200k(text);
      if (got === want) break;
      take = Math.max(1, take + (want - got));
    }
    return text;
  }
}
