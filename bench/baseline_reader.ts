/**
 * The machine's own ceiling: the least a client can do to stream answers from the mock server.
 * Raw sockets, keep-alive, one connection per concurrent request, a timestamp per read, events
 * counted by their blank-line ends in the raw bytes; no JSON, no metrics, no records.
 *
 * The answer's end is found by the chunked terminator, so this reader only suits the mock
 * server's chunked SSE answers (each event inside one chunk). Not a client to use elsewhere.
 *
 * Each request carries its own `X-Request-ID`, as reprise's do. With `--timings FILE` the reader notes
 * when the first read holding a token (a non-empty `"content":"…"`) arrived, and writes one line
 * per request to FILE: `{"request_id","request_start_ns","first_token_ns"}` (epoch ns). Joined
 * with the mock's `--timing-log`, that is the least TTFT error a client on this machine can have.
 *
 * Usage: deno run -A bench/baseline_reader.ts --url http://127.0.0.1:8000/v1/chat/completions
 *          --body-file payload.json --concurrency 64 --requests 2000 [--timings FILE]
 * Prints one JSON line: {"requests","events","seconds","errors"}.
 */

import { parseArgs } from "node:util";
// The clock reprise and the mock's timing log use: their readings compare with this one's.
import { epochNs } from "../src/record/clock.ts";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    "body-file": { type: "string" },
    concurrency: { type: "string", default: "1" },
    requests: { type: "string", default: "100" },
    timings: { type: "string" },
  },
});
if (!values.url || !values["body-file"]) {
  console.error(
    "usage: baseline_reader.ts --url URL --body-file FILE [--concurrency N] [--requests N]",
  );
  Deno.exit(2);
}
const url = new URL(values.url);
const body = await Deno.readTextFile(values["body-file"]);
const concurrency = Number(values.concurrency);
const total = Number(values.requests);
/**
 * The request, with the headers reprise sends (a user agent, a request id and a correlation id),
 * so that the server does the same work per request for both clients: its cost per request sets
 * how many answers a client reads per wake-up. Each request's id is written over the placeholder.
 */
const ID_PLACEHOLDER = "00000000-0000-0000-0000-000000000000";
const requestText =
  `POST ${url.pathname} HTTP/1.1\r\ncontent-type: application/json\r\nuser-agent: baseline\r\n` +
  `x-request-id: ${ID_PLACEHOLDER}\r\nx-correlation-id: baseline-1\r\nhost: ${url.host}\r\n` +
  `content-length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`;
const ID_AT = requestText.indexOf(ID_PLACEHOLDER);
const timings: string[] | null = values.timings ? [] : null;
const CONTENT = new TextEncoder().encode('"content":"');

/** True when `buf[from, to)` holds `"content":"` followed by something other than `"`. */
function hasToken(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = buf.indexOf(CONTENT[0], from); i !== -1 && i + CONTENT.length < to;) {
    let k = 1;
    while (k < CONTENT.length && buf[i + k] === CONTENT[k]) k++;
    if (k === CONTENT.length && buf[i + k] !== 34) return true;
    i = buf.indexOf(CONTENT[0], i + 1);
  }
  return false;
}

let issued = 0;
let done = 0;
let events = 0;
let errors = 0;
// Kept so the per-read timestamp is not optimised away.
let lastRead = 0;

/** A chunked body ends with `0\r\n\r\n`: check the bytes just read (and those before them). */
function ends(buf: Uint8Array, end: number): boolean {
  return end >= 5 && buf[end - 1] === 10 && buf[end - 2] === 13 && buf[end - 3] === 10 &&
    buf[end - 4] === 13 && buf[end - 5] === 48 && (end < 6 || buf[end - 6] === 10);
}

async function slot(): Promise<void> {
  let conn: Deno.TcpConn | null = null;
  const buf = new Uint8Array(64 * 1024);
  // Each slot's own copy: its id is rewritten while other slots' writes may be under way.
  const request = new TextEncoder().encode(requestText);
  while (issued < total) {
    issued++;
    try {
      if (conn === null) {
        conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) || 80 });
        conn.setNoDelay(true);
      }
      const id = crypto.randomUUID();
      for (let i = 0; i < id.length; i++) request[ID_AT + i] = id.charCodeAt(i);
      let firstPerf = -1;
      const startPerf = timings ? performance.now() : 0;
      await conn.write(request);
      let prev = 0;
      for (;;) {
        // Keep the last 5 bytes at the front so a terminator split across reads is still seen.
        const keep = Math.min(prev, 5);
        if (keep > 0) buf.copyWithin(0, prev - keep, prev);
        const n = await conn.read(buf.subarray(keep));
        if (n === null) throw new Error("closed");
        lastRead = performance.now();
        const end = keep + n;
        if (timings && firstPerf < 0 && hasToken(buf, 0, end)) firstPerf = lastRead;
        for (let i = buf.indexOf(10, keep); i !== -1 && i < end; i = buf.indexOf(10, i + 1)) {
          if (i > 0 && buf[i - 1] === 10) events++;
        }
        if (ends(buf, end)) break;
        prev = end;
      }
      done++;
      if (timings && firstPerf >= 0) {
        timings.push(
          `{"request_id":"${id}","request_start_ns":${epochNs(startPerf)},` +
            `"first_token_ns":${epochNs(firstPerf)}}`,
        );
      }
    } catch {
      errors++;
      try {
        conn?.close();
      } catch { /* closed */ }
      conn = null;
    }
  }
  conn?.close();
}

const t0 = performance.now();
await Promise.all(Array.from({ length: concurrency }, () => slot()));
const seconds = (performance.now() - t0) / 1000;
if (timings) await Deno.writeTextFile(values.timings!, timings.join("\n") + "\n");
console.log(JSON.stringify({ requests: done, events, seconds, errors, lastRead: lastRead > 0 }));
