import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { type StreamScript, timedStream } from "../../src/mock/stream.ts";
import { type SentTimes, timingLine, TimingLog } from "../../src/mock/timing_log.ts";
import { epochNs } from "../../src/record/clock.ts";
import { post, readSse } from "./helpers.ts";

/** One line of a timing log, `*_ns` fields read exactly. */
interface Line {
  request_id: string | null;
  received_ns: bigint;
  first_token_ns: bigint | null;
  last_token_ns: bigint | null;
  tokens: number;
}

/** Epoch ns integers exceed a double's exact range: read them from their source digits. */
function parseLine(text: string): Line {
  return JSON.parse(
    text,
    (key, value, ctx?: { source?: string }) =>
      key.endsWith("_ns") && typeof value === "number" ? BigInt(ctx!.source!) : value,
  );
}

async function readLog(path: string): Promise<Line[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((l) => l !== "").map(parseLine);
}

/** Polls `path` until it holds `n` lines, for at most `ms`. */
async function waitForLines(path: string, n: number, ms = 3000): Promise<Line[]> {
  const deadline = performance.now() + ms;
  for (;;) {
    const lines = await readLog(path);
    if (lines.length >= n || performance.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ms = (ns: bigint) => Number(ns) / 1e6;
const chat = (maxTokens: number, stream = true) => ({
  model: "m",
  messages: [{ role: "user", content: "Hello there" }],
  max_tokens: maxTokens,
  stream,
});

const script = (count: number): StreamScript => ({
  head: "H|",
  count,
  event: (k) => `${k}|`,
  tail: "T",
});

/** Reads `body` to its end, stamping each chunk as it is read. */
async function drain(body: ReadableStream<Uint8Array>): Promise<number[]> {
  const at: number[] = [];
  for await (const _ of body) at.push(performance.now());
  return at;
}

Deno.test("timedStream stamps the chunks carrying tokens, once, as the body ends", async () => {
  const now = performance.now();
  const seen: SentTimes[] = [];
  const onEnd = (s: SentTimes) => seen.push(s);
  // The head leaves alone: the first token is stamped with its own chunk.
  const times = new Float64Array([now + 20, now + 40, now + 40]);
  const at = await drain(timedStream(script(3), times, false, undefined, onEnd));
  // Three chunks (the head, the first token, the last two with the tail), fewer when a busy
  // machine fires a timer so late that tokens due apart leave together.
  assert.ok(at.length >= 1 && at.length <= 3, `${at.length} chunks`);
  assert.equal(seen.length, 1);
  const [s] = seen;
  assert.equal(s.tokens, 3);
  assert.ok(
    s.first! >= now + 20 && s.first! <= at[Math.min(1, at.length - 1)],
    `first ${s.first! - now}`,
  );
  assert.ok(s.last! >= now + 40 && s.last! <= at[at.length - 1], `last ${s.last! - now}`);

  seen.length = 0;
  await drain(timedStream(script(6), new Float64Array(6).fill(now), true, undefined, onEnd));
  assert.equal(seen[0].tokens, 3, "a truncated answer counts what it sent");
  assert.equal(seen[0].first, seen[0].last);

  seen.length = 0;
  await drain(timedStream(script(0), new Float64Array(0), false, undefined, onEnd));
  assert.deepEqual(seen, [{ first: null, last: null, tokens: 0 }]);

  seen.length = 0;
  const far = performance.now() + 60_000;
  const reader = timedStream(script(2), new Float64Array([now, far]), false, undefined, onEnd)
    .getReader();
  await reader.read();
  await reader.cancel();
  assert.equal(seen.length, 1);
  assert.equal(seen[0].tokens, 1, "a cancelled answer counts what it sent");
});

Deno.test("timedStream makes a chunk when it is read, so a slow writer's chunks are stamped late", async () => {
  const now = performance.now();
  const seen: SentTimes[] = [];
  const times = new Float64Array([now, now + 10]);
  const reader = timedStream(script(2), times, false, undefined, (s) => seen.push(s)).getReader();
  await reader.read();
  const firstRead = performance.now();
  // A writer busy for 100 ms with the first chunk: the token due meanwhile waits for its next read.
  await new Promise((r) => setTimeout(r, 100));
  const asked = performance.now();
  while (!(await reader.read()).done) { /* drain */ }
  assert.equal(seen.length, 1);
  assert.equal(seen[0].tokens, 2);
  // Order, not a time window: the first token was stamped by the first read, not the later one.
  assert.ok(seen[0].first! >= now && seen[0].first! <= firstRead, `first ${seen[0].first! - now}`);
  assert.ok(
    seen[0].last! >= asked,
    `last stamped ${asked - seen[0].last!} ms before it was asked for`,
  );
});

for (const http of ["deno", "direct"] as const) {
  Deno.test(`the timing log (${http} server) records a streamed chat answer's request id and send times`, async () => {
    const dir = await Deno.makeTempDir();
    const path = join(dir, "timing.jsonl");
    const ttftMs = 30;
    const itlMs = 4;
    const server = await startMockServer({ http, ttftMs, itlMs, seed: 1, timingLog: path });
    try {
      const id = crypto.randomUUID();
      const sentNs = epochNs(performance.now());
      const res = await post(`${server.url}/v1/chat/completions`, chat(7), {
        headers: { "content-type": "application/json", "x-request-id": id },
      });
      const events = await readSse(res);
      const doneNs = epochNs(performance.now());
      // The role chunk carries the first token; the last token event precedes the finish chunk.
      const firstSeenNs = epochNs(events[0].at);

      // Flushed within about 100 ms without closing the server.
      const [line, ...rest] = await waitForLines(path, 1);
      assert.equal(rest.length, 0);
      assert.ok(line, "no line was written");
      assert.deepEqual(Object.keys(line), [
        "request_id",
        "received_ns",
        "first_token_ns",
        "last_token_ns",
        "tokens",
      ]);
      assert.equal(line.request_id, id);
      assert.equal(line.tokens, 7);
      assert.equal(typeof line.received_ns, "bigint");
      const first = line.first_token_ns!;
      const last = line.last_token_ns!;
      // Timers are never early; 0.01 ms covers rounding to whole ns and µs.
      const tol = 0.01;
      assert.ok(
        ms(first - line.received_ns) >= ttftMs - tol,
        `ttft ${ms(first - line.received_ns)}`,
      );
      // Due times count from the arrival, so a late first token does not push the last one back.
      const lastAt = ms(last - line.received_ns);
      assert.ok(lastAt >= ttftMs + 6 * itlMs - tol, `last token at ${lastAt}`);
      // Equal when a busy machine fires the first timer so late that every token is due at once.
      assert.ok(last >= first);
      // The same clock in the same process: received after sending, sent before being read.
      assert.ok(line.received_ns >= sentNs, "received before the request was sent");
      assert.ok(first <= firstSeenNs, "first token sent after the client read it");
      assert.ok(last <= doneNs, "last token sent after the answer ended");
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("the timing log: no header, reasoning, zero delay, non-streamed, other APIs", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "timing.jsonl");
  await Deno.writeTextFile(path, "");
  const server = await startMockServer({ reasoningTokens: 3, seed: 1, timingLog: path });
  try {
    // Every token is due at once: one chunk, so the first and last token leave together.
    await readSse(await post(`${server.url}/v1/chat/completions`, chat(5)));
    // Non-streamed answers are not logged.
    await (await post(`${server.url}/v1/chat/completions`, chat(5, false))).json();
    await readSse(
      await post(`${server.url}/v1/completions`, { prompt: "hi", max_tokens: 4, stream: true }, {
        headers: { "content-type": "application/json", "x-request-id": "c-1" },
      }),
    );
  } finally {
    await server.close();
  }
  try {
    const lines = await readLog(path);
    assert.equal(lines.length, 2);
    const [a, b] = lines;
    assert.equal(a.request_id, null);
    assert.equal(a.tokens, 5 + 3);
    assert.equal(a.first_token_ns, a.last_token_ns);
    assert.ok(a.first_token_ns! >= a.received_ns);
    assert.equal(b.request_id, "c-1");
    assert.equal(b.tokens, 4);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("TimingLog appends, writes what is queued on close, and formats null times", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "t.jsonl");
  await Deno.writeTextFile(path, "old\n");
  try {
    const log = await TimingLog.open(path, { flushMs: 60_000 });
    log.record("a", 1, { first: 2, last: 3.5, tokens: 2 });
    log.record(null, 1, { first: null, last: null, tokens: 0 });
    assert.equal(await Deno.readTextFile(path), "old\n", "written before the flush interval");
    await log.close();
    const text = await Deno.readTextFile(path);
    const lines = text.split("\n");
    assert.equal(lines.length, 4);
    assert.equal(lines[0], "old");
    assert.equal(lines[3], "");
    const a = parseLine(lines[1]);
    assert.equal(a.received_ns, epochNs(1));
    assert.equal(a.last_token_ns! - a.first_token_ns!, 1_500_000n);
    assert.equal(
      lines[2],
      `{"request_id":null,"received_ns":${epochNs(1)},"first_token_ns":null,` +
        `"last_token_ns":null,"tokens":0}`,
    );
    assert.equal(lines[2], timingLine(null, 1, { first: null, last: null, tokens: 0 }));
    log.record("late", 1, { first: 2, last: 2, tokens: 1 });
    await log.close();
    assert.equal(await Deno.readTextFile(path), text, "nothing is written after close");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reprise mock-server --timing-log writes its lines on SIGTERM", async () => {
  if (Deno.build.os === "windows") return;
  const dir = await Deno.makeTempDir();
  const path = join(dir, "timing.jsonl");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../main.ts", import.meta.url).pathname,
      "mock-server",
      "--port",
      "0",
      "--ttft-ms",
      "5",
      "--timing-log",
      path,
    ],
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20000);
  let err = "";
  try {
    while (!/http:\/\/[\d.]+:\d+/.test(err)) {
      const { value, done } = await reader.read();
      if (done) break;
      err += value;
    }
    const url = /http:\/\/[\d.]+:\d+/.exec(err)?.[0];
    assert.ok(url, err);
    const ids = ["r-1", "r-2", "r-3"];
    await Promise.all(ids.map(async (id) =>
      readSse(
        await post(`${url}/v1/chat/completions`, chat(3), {
          headers: { "content-type": "application/json", "x-request-id": id },
        }),
      )
    ));
    child.kill("SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += value;
    }
    assert.equal((await child.status).code, 0, err);
    const lines = await readLog(path);
    assert.deepEqual(lines.map((l) => l.request_id).sort(), ids);
    for (const l of lines) {
      assert.equal(l.tokens, 3);
      assert.ok(ms(l.first_token_ns! - l.received_ns) >= 5 - 0.01);
    }
  } finally {
    clearTimeout(timer);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("performance.timeOrigin + performance.now() agree across processes", async () => {
  // The child answers each byte on stdin with its epoch ms reading; the sample with the shortest
  // round trip bounds the offset between the two processes' clocks.
  const code = `const enc = new TextEncoder();
    const r = Deno.stdin.readable.getReader();
    while (!(await r.read()).done) {
      Deno.stdout.writeSync(enc.encode(String(performance.timeOrigin + performance.now()) + "\\n"));
    }`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20000);
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let best = { rtt: Infinity, offset: NaN };
  try {
    let buf = "";
    // A busy machine makes most round trips slow; sampling goes on (bounded in count and time)
    // until one is short enough to pin the offset down to a fraction of a millisecond.
    const until = performance.now() + 10_000;
    for (let i = 0; i < 5000 && (i < 200 || (best.rtt >= 0.5 && performance.now() < until)); i++) {
      const t0 = performance.timeOrigin + performance.now();
      await writer.write(new Uint8Array([10]));
      while (!buf.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the child exited");
        buf += value;
      }
      const t1 = performance.timeOrigin + performance.now();
      const cut = buf.indexOf("\n");
      const theirs = Number(buf.slice(0, cut));
      buf = buf.slice(cut + 1);
      if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: theirs - (t0 + t1) / 2 };
    }
  } finally {
    await writer.close();
    clearTimeout(timer);
    await child.status;
  }
  // The reading lies within the round trip; the clocks agree to well under 0.1 ms. The shortest
  // round trip takes about 0.1 ms; 10 ms would take a machine that never once answered in time.
  assert.ok(best.rtt < 10, `shortest round trip ${best.rtt} ms`);
  assert.ok(
    Math.abs(best.offset) <= best.rtt / 2 + 0.05,
    `offset ${best.offset} ms, round trip ${best.rtt} ms`,
  );
});
