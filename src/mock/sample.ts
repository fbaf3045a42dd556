/**
 * A sample answer of the mock to one request, as the bytes a client reads off the wire: what the
 * Workers' warm-up (`load/warm.ts`) reads from memory before the run, so that the first measured
 * answers are read by compiled code, not by code read for the first time.
 */

import { mockApp } from "./app.ts";
import { newMockContext } from "./context.ts";
import { resolveMockOptions } from "./options.ts";
import type { Tokenizer } from "./tokens.ts";

/**
 * An answer as a client reads it, a read at a time: the head, then one chunk per event and the
 * body's end (a streamed answer), or the whole body: as many reads as events, and two.
 */
export interface SampleAnswer {
  reads: Uint8Array[];
}

/** Events kept of a long streamed answer: its first ones and its last `TAIL` (finish, usage). */
export const MAX_SAMPLE_EVENTS = 512;
const TAIL = 4;

/**
 * Counts tokens by length: the sample's usage numbers are never read, and the o200k tokenizer
 * would cost the main thread its load.
 */
const roughTokenizer: Tokenizer = {
  count: (text) => Math.ceil(text.length / 4),
  id: (k) => k,
};

const encoder = new TextEncoder();

/**
 * The mock's answer to `body` POSTed at `path`, with no delays; null when the mock does not
 * answer it with a success (a path it does not serve, a body it refuses). A streamed answer of
 * more than {@link MAX_SAMPLE_EVENTS} events keeps its first and last ones.
 */
export async function sampleAnswer(path: string, body: Uint8Array): Promise<SampleAnswer | null> {
  const closing = new AbortController();
  const ctx = newMockContext(
    resolveMockOptions({ ttftMs: 0, itlMs: 0, seed: 1 }),
    roughTokenizer,
    closing.signal,
    null,
  );
  try {
    const res = await mockApp(ctx).fetch(
      new Request(`http://sample${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body.slice(),
      }),
      { arrival: performance.now() },
    );
    const text = await res.text();
    if (res.status !== 200) return null;
    const type = res.headers.get("content-type") ?? "application/json";
    if (!type.startsWith("text/event-stream")) {
      const bytes = encoder.encode(text);
      return {
        reads: [
          encoder.encode(
            `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncontent-length: ${bytes.length}\r\n\r\n`,
          ),
          bytes,
        ],
      };
    }
    let events = text.split("\n\n").slice(0, -1).map((e) => e + "\n\n");
    if (events.length > MAX_SAMPLE_EVENTS) {
      events = [
        ...events.slice(0, MAX_SAMPLE_EVENTS - TAIL),
        ...events.slice(events.length - TAIL),
      ];
    }
    const reads = [
      encoder.encode(
        `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ntransfer-encoding: chunked\r\n\r\n`,
      ),
    ];
    for (const e of events) {
      const bytes = encoder.encode(e);
      reads.push(encoder.encode(`${bytes.length.toString(16)}\r\n${e}\r\n`));
    }
    reads.push(encoder.encode("0\r\n\r\n"));
    return { reads };
  } catch {
    return null;
  } finally {
    closing.abort();
  }
}
