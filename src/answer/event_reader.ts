/**
 * Turns a stream's SSE events into its result: each event through its endpoint's reading, and,
 * on the fast paths, runs of the commonest events read where they lie (`readRun`, and
 * `readRunBytes` with the WebAssembly scan) and events an earlier answer sent (known events).
 */

import type {
  Endpoint,
  EndpointFastPath,
  Parsed,
  SseEvent,
  StreamState,
} from "../endpoints/types.ts";
import { type ChunkTemplate, digitsEnd, ownCopy } from "../endpoints/chunk_template.ts";
import type { SseSink } from "./sse.ts";
import {
  releaseSlot,
  scanned,
  scanRun,
  takeSlot,
  writeJoint,
  writeJointBytes,
} from "./sse_scan.ts";
import { utf8Decoder, utf8Length } from "../util/utf8.ts";
import { blankLineEnd } from "../util/bytes.ts";
import { fast } from "../util/fast_paths.ts";
import { errorText } from "../transport/wire.ts";
import { DATA_LEAD, type KnownEvents, knownEventsFor } from "./known_events.ts";
import { BAD_ANSWER, excerpt, sseErrorMessage } from "./failure.ts";
import { addResponse, apply, type ReadState, stampResponse } from "./apply.ts";
import type { OpenResult } from "./result.ts";
import { TextCollector } from "./text_collector.ts";

/** What an event without text, reasoning or anything else means. */
const NOTHING: Parsed = Object.freeze({});

/** `endpoint`'s fast path, unless `--plain-paths text-template` turned it off. */
function fastPathOf(endpoint: Endpoint): EndpointFastPath | undefined {
  return fast("text-template") ? endpoint.fast : undefined;
}

/**
 * The known events of the streams of an endpoint with fast path `f`, when it names volatile
 * keys and `--plain-paths known-events` did not turn them off.
 */
function knownEventsOf(f: EndpointFastPath | undefined): KnownEvents | null {
  return f?.volatileKeys === undefined || !fast("known-events")
    ? null
    : knownEventsFor(f.volatileKeys);
}

/** What opens an event of template `t`, up to its data: its `event:` line, if any, and `data: `. */
function eventLead(t: ChunkTemplate): string {
  return t.event === "" ? "data: " : `event: ${t.event}\ndata: `;
}

/** Decodes the collector's bytes, which are all ASCII: as UTF-8, the same characters, faster. */
const ascii = utf8Decoder;

/**
 * Turns SSE events into the result (it is the parser's {@link SseSink}): set `at` to the read's
 * time before pushing its bytes; `stop` turns true when an event ended the answer (an error
 * event, an unreadable event).
 */
export class EventReader implements SseSink {
  /** Arrival time stamped on the events being delivered. */
  at = 0;
  /** The answer ended with an error: read no further. */
  stop = false;
  #streamState: StreamState = {};
  /** Output text pieces: one flat string at the end costs less than a string grown per event. */
  #texts = new TextCollector();
  /** The template that `#head`, `#joint` and `#last` were made for. */
  #runTemplate: ChunkTemplate | undefined = undefined;
  /**
   * An event's lead (`data: `, after its `event:` line when typed) and the prefix; what ends an
   * event's data (the suffix, or what follows a counter after the text), the blank line and the
   * next event's head; what ends an event's data and the blank line.
   */
  #head = "";
  #joint = "";
  #last = "";
  /** The template whose joint is in `#slot` for `readRunBytes`, and the joint's parts' sizes. */
  #scanTemplate: ChunkTemplate | undefined = undefined;
  /**
   * The events this stream's endpoint has been seen to repeat (null when it names no volatile
   * keys), and the event the last `readRunBytes` stopped at, to be kept once read as text
   * (`#unknown[#unknownAt, #unknownEnd)`; `#unknownAt` -1 for none).
   */
  #known: KnownEvents | null;
  #unknown: Uint8Array | null = null;
  #unknownAt = -1;
  #unknownEnd = 0;
  /** The chunk `readRunBytes` is given was copied for the scan. */
  #chunkCopied = false;
  #slot = -1;
  /** Bytes of the joint and of its last part; -1 when the joint cannot be scanned. */
  #jointLength = -1;
  #lastLength = 0;
  #r: OpenResult;
  #state: ReadState;
  #endpoint: Endpoint;
  /** The endpoint's fast path; undefined when it has none or it is turned off. */
  #fast: EndpointFastPath | undefined;

  constructor(r: OpenResult, state: ReadState, endpoint: Endpoint) {
    this.#r = r;
    this.#state = state;
    this.#endpoint = endpoint;
    this.#fast = fastPathOf(endpoint);
    this.#known = knownEventsOf(this.#fast);
  }

  /**
   * Readies the reader for another answer, after `finish` ended the last one: a request that
   * reuses its reader makes no new one, nor its text collector, for every answer.
   */
  reset(r: OpenResult, state: ReadState, endpoint: Endpoint): void {
    this.at = 0;
    this.stop = false;
    this.#streamState = {};
    this.#runTemplate = undefined;
    this.#head = "";
    this.#joint = "";
    this.#last = "";
    this.#r = r;
    this.#state = state;
    this.#endpoint = endpoint;
    this.#fast = fastPathOf(endpoint);
    this.#known = knownEventsOf(this.#fast);
    this.#unknown = null;
    this.#unknownAt = -1;
  }

  /** Handles any event. */
  onEvent(event: SseEvent): void {
    if (this.stop) return;
    const r = this.#r;
    if (event.event === "error") {
      r.error = { code: BAD_ANSWER, type: "SSEError", message: sseErrorMessage(event) };
      this.stop = true;
      return;
    }
    let p: Parsed | null;
    try {
      p = this.#endpoint.parseEvent(event, this.#streamState);
    } catch (e) {
      r.error = {
        code: BAD_ANSWER,
        type: "InvalidResponse",
        message: `unreadable stream event (${errorText(e)}): ${excerpt(event.data)}`,
      };
      this.stop = true;
      return;
    }
    if (p !== null && !apply(r, p, this.at, this.#state, this.#texts)) this.stop = true;
  }

  /**
   * Reads a run of the commonest events where they lie in the read's text: `data:` lines (after
   * an `event:` line when the template's chunks are typed) that match the stream's text template
   * (`EndpointFastPath.textTemplate`), each with plain JSON text. No string is made of an event or of its
   * text, and from one event's text to the next, what lies between (the template's suffix, the
   * blank line, the next event's lead and prefix, less a counter's digits) is compared as one
   * string. Stops at the first event it cannot read this way (or a partial one), which the parser
   * reads as usual.
   */
  readRun(s: string, at: number): number {
    if (this.stop) return at;
    const t = this.#fast?.textTemplate(this.#streamState);
    if (t === undefined) return at;
    if (this.#runTemplate !== t) this.#prepareRun(t);
    const head = this.#head;
    let start = at + head.length;
    if (s.slice(at, start) !== head) return at;
    const counter = t.counter;
    // A counter before the text: its digits, then the rest of the prefix.
    const before = counter !== undefined && counter.inPrefix ? counter.rest : null;
    // A counter after the text: the suffix up to it, then its digits.
    const after = counter !== undefined && !counter.inPrefix ? t.suffix : null;
    const joint = this.#joint;
    const last = this.#last;
    let done = at;
    for (;;) {
      if (before !== null) {
        const d = digitsEnd(s, start);
        if (d === -1 || s.slice(d, d + before.length) !== before) return done;
        start = d + before.length;
      }
      // Plain text holds no quote: the first one closes it.
      const end = s.indexOf('"', start);
      if (end === -1) return done;
      let next = end;
      if (after !== null) {
        if (s.slice(end, end + after.length) !== after) return done;
        next = digitsEnd(s, end + after.length);
        if (next === -1) return done;
      }
      const more = s.slice(next, next + joint.length) === joint;
      if (!more && s.slice(next, next + last.length) !== last) return done;
      // No text: no response, as when `parseText` reads "".
      if (end > start) {
        if (!this.#texts.addPlain(s, start, end)) return done;
        stampResponse(this.#r, this.at, false);
      }
      t.reads++;
      done = next + last.length;
      if (!more) return done;
      start = next + joint.length;
    }
  }

  /**
   * `readRun` on a read's bytes (`SseSink.readRunBytes`): the same events, read the same way, by
   * the WebAssembly scan of `sse_scan.ts`, as long as their text is ASCII (an event whose text is
   * not is left to the parser, which decodes it). Templates with a counter are left to `readRun`.
   */
  readRunBytes(b: Uint8Array, from: number, at: number, to: number, fresh: boolean): number {
    if (this.stop) return -1;
    if (fresh) this.#chunkCopied = false;
    const known = this.#known;
    this.#unknownAt = -1;
    let pos = at;
    for (;;) {
      const done = this.#scan(b, from, pos, to);
      if (done >= to) return done;
      if (done > pos) pos = done;
      // An event the scan does not read may be one the stream's server sent before (KnownEvents).
      if (known === null) return pos > at ? pos : done;
      const p = known.matchAt(b, pos, to);
      const end = p !== null ? known.matchedEnd : blankLineEnd(b, pos, to);
      if (p === null) {
        if (end !== -1 && this.#adoptKnown(known, b, pos, end)) {
          pos = end;
          if (pos >= to) return pos;
          continue;
        }
        if (end !== -1) {
          // Read as text next (by `onTyped`), then kept.
          this.#unknown = b;
          this.#unknownAt = pos;
          this.#unknownEnd = end;
        }
        return pos > at ? pos : done;
      }
      if (!apply(this.#r, p, this.at, this.#state, this.#texts)) {
        this.stop = true;
        return end;
      }
      pos = end;
      if (pos >= to) return pos;
    }
  }

  /**
   * Reads the event `b[at, end)` as the stream's first text chunk when it is an instance of a
   * template an earlier answer set (`KnownEvents.matchTemplate`): the template is made this
   * stream's (`EndpointFastPath.adoptTemplate`) and its text read, as reading the event as text would
   * have done, without decoding it or checking its JSON's shape again. False when it is not one.
   */
  #adoptKnown(known: KnownEvents, b: Uint8Array, at: number, end: number): boolean {
    const f = this.#fast;
    if (f?.adoptTemplate === undefined) return false;
    if (f.textTemplate(this.#streamState) !== undefined) return false;
    const k = known.matchTemplate(b, at, end);
    if (k === null) return false;
    const from = at + k.bytes.length;
    const textEnd = known.textEnd;
    // A chunk without text sets no template when read as text (see chat's structuralChunk).
    if (textEnd === from) return false;
    const t: ChunkTemplate = {
      prefix: ascii.decode(b.subarray(at + DATA_LEAD, from)),
      suffix: k.suffix,
      reads: 1,
      event: "",
    };
    f.adoptTemplate(this.#streamState, t);
    // The scan's joint from the bytes at hand, rather than encoded from the template's strings.
    if (this.#slot < 0) this.#slot = takeSlot();
    this.#scanTemplate = t;
    this.#jointLength = writeJointBytes(this.#slot, k.suffixBytes, b, at, from);
    this.#lastLength = k.suffixBytes.length + 2;
    this.#texts.addAscii(b, from, textEnd - from);
    stampResponse(this.#r, this.at, false);
    return true;
  }

  /**
   * The scan of the template's run at `at` (see `readRunBytes`): where it stopped, or -1 when it
   * cannot read this stream's events now (no template yet, a counter, a joint too long).
   */
  #scan(b: Uint8Array, from: number, at: number, to: number): number {
    const t = this.#fast?.textTemplate(this.#streamState);
    if (t === undefined || t.counter !== undefined) return -1;
    if (this.#scanTemplate !== t) this.#prepareScan(t);
    if (this.#jointLength < 0) return -1;
    const fresh = !this.#chunkCopied;
    this.#chunkCopied = true;
    const done = scanRun(b, from, to, fresh, at, this.#slot, this.#jointLength, this.#lastLength);
    if (done <= at) return done;
    const found = scanned();
    t.reads += found.events;
    if (found.length > 0) this.#texts.addAscii(found.bytes, found.from, found.length);
    for (let i = 0; i < found.texts; i++) stampResponse(this.#r, this.at, false);
    return done;
  }

  /** Puts template `t`'s joint in this answer's slot of the scan's memory. */
  #prepareScan(t: ChunkTemplate): void {
    const lead = eventLead(t);
    const last = t.suffix + "\n\n";
    this.#scanTemplate = t;
    if (this.#slot < 0) this.#slot = takeSlot();
    this.#jointLength = writeJoint(this.#slot, last + lead + t.prefix);
    this.#lastLength = utf8Length(last);
  }

  /** Makes the strings `readRun` compares for template `t`. */
  #prepareRun(t: ChunkTemplate): void {
    const lead = eventLead(t);
    // What ends an event's data: the suffix, or with a counter after the text, what follows it.
    const end = t.counter !== undefined && !t.counter.inPrefix ? t.counter.rest : t.suffix;
    this.#runTemplate = t;
    this.#head = ownCopy(lead + t.prefix);
    this.#joint = ownCopy(end + "\n\n" + lead + t.prefix);
    this.#last = ownCopy(end + "\n\n");
  }

  /**
   * Handles an event that is one `data:` line, after one `event:` line or none. An endpoint's
   * `parseText` reads its common text chunk here without building event or result objects;
   * anything else takes the general path.
   */
  onTyped(event: string, data: string): void {
    if (this.stop) return;
    const f = this.#fast;
    if (f !== undefined && event !== "error") {
      const template = this.#known === null ? undefined : f.textTemplate(this.#streamState);
      let read: string | Parsed | null;
      try {
        read = f.parseText(data, this.#streamState, event);
      } catch {
        // The general path reads it again and reports why it cannot.
        read = null;
      }
      if (typeof read === "string") {
        if (read === "") this.#keep(event, data, template, NOTHING);
        else this.#learnTemplate(event, data, template);
        addResponse(this.#r, this.at, read, undefined, this.#texts);
        return;
      }
      if (read !== null) {
        if (read.text === undefined && read.reasoning === undefined && read.error === undefined) {
          this.#keep(event, data, template, read);
        }
        if (!apply(this.#r, read, this.at, this.#state, this.#texts)) this.stop = true;
        return;
      }
    }
    this.#unknownAt = -1;
    this.onEvent({ event, data });
  }

  /**
   * Keeps the template that reading the event the scan last stopped at (see `readRunBytes`) as
   * `data` set, when it set one (the stream had `before`), for later answers' first text chunks.
   */
  #learnTemplate(event: string, data: string, before: ChunkTemplate | undefined): void {
    const at = this.#stoppedAt(event, data);
    if (at === -1 || this.#fast?.adoptTemplate === undefined) return;
    const t = this.#fast?.textTemplate(this.#streamState);
    if (t === undefined || t === before) return;
    this.#known!.learnTemplate(this.#unknown!, at, this.#unknownEnd, t);
  }

  /**
   * Where the event the scan last stopped at starts, when the event just read as text (`event`,
   * `data`) is that one, an untyped `data:` line, and known events are kept; else -1. Either way
   * that event is then forgotten.
   */
  #stoppedAt(event: string, data: string): number {
    const at = this.#unknownAt;
    this.#unknownAt = -1;
    return at === -1 || event !== "" || this.#known === null ||
        this.#unknownEnd - at !== data.length + DATA_LEAD + 2
      ? -1
      : at;
  }

  /**
   * Keeps the event the scan last stopped at (see `readRunBytes`), now read as `data` and meaning
   * `parsed`, among the known events: when it is that event (one `data:` line of the same length),
   * and its reading did not set the stream's template (which a later answer must learn again).
   */
  #keep(event: string, data: string, template: ChunkTemplate | undefined, parsed: Parsed): void {
    const at = this.#stoppedAt(event, data);
    if (at === -1 || this.#fast?.textTemplate(this.#streamState) !== template) return;
    this.#known!.learn(this.#unknown!, at, this.#unknownEnd, parsed);
  }

  /**
   * Stamps the events of the read that just arrived with `at`, when it arrived. True unless
   * reading has stopped: the caller then parses the read a turn later, so that the reads of other
   * streams that arrived at the same moment (the mock's or a server's timers firing together) are
   * all stamped before any of them is parsed; their first tokens and inter-token times would
   * otherwise grow with their place in the burst.
   */
  stamp(at: number): boolean {
    this.at = at;
    return !this.stop;
  }

  /** Moves the text read so far into the result; call once reading has ended, however it ended. */
  finish(): void {
    if (this.#slot >= 0) {
      releaseSlot(this.#slot);
      this.#slot = -1;
      this.#scanTemplate = undefined;
      this.#jointLength = -1;
    }
    const text = this.#texts.take();
    if (text !== "") {
      this.#r.outputText += text;
    }
  }
}
