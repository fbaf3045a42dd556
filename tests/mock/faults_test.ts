import assert from "node:assert/strict";
import { decideFault } from "../../src/mock/faults.ts";
import { seededRandom } from "../../src/mock/rng.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { payloads, post, readSse } from "./helpers.ts";

const CHAT = { messages: [{ role: "user", content: "hi" }] };

Deno.test("decideFault maps one draw onto the rates", () => {
  const none = { errorRate: 0, dropRate: 0, truncateRate: 0 };
  assert.equal(decideFault(none, () => 0), null);
  assert.equal(decideFault({ ...none, errorRate: 1 }, () => 0.999), "error");
  assert.equal(decideFault({ ...none, dropRate: 1 }, () => 0.5), "drop");
  assert.equal(decideFault({ ...none, truncateRate: 1 }, () => 0), "truncate");
  const rates = { errorRate: 0.2, dropRate: 0.3, truncateRate: 0.1 };
  assert.equal(decideFault(rates, () => 0.1), "error");
  assert.equal(decideFault(rates, () => 0.4), "drop");
  assert.equal(decideFault(rates, () => 0.55), "truncate");
  assert.equal(decideFault(rates, () => 0.7), null);
});

Deno.test("decideFault with a seed repeats and approaches its rates", () => {
  const rates = { errorRate: 0.25, dropRate: 0.25, truncateRate: 0 };
  const run = (seed: number) => {
    const random = seededRandom(seed);
    return Array.from({ length: 2000 }, () => decideFault(rates, random));
  };
  const a = run(42);
  assert.deepEqual(a, run(42));
  assert.notDeepEqual(a, run(43));
  const errors = a.filter((f) => f === "error").length / a.length;
  const drops = a.filter((f) => f === "drop").length / a.length;
  assert.ok(Math.abs(errors - 0.25) < 0.05, `error share ${errors}`);
  assert.ok(Math.abs(drops - 0.25) < 0.05, `drop share ${drops}`);
});

Deno.test("error injection answers 500 with an OpenAI error body", async () => {
  const server = await startMockServer({ errorRate: 1, seed: 7 });
  try {
    const res = await post(`${server.url}/v1/chat/completions`, { ...CHAT, stream: true });
    assert.equal(res.status, 500);
    assert.match(res.headers.get("content-type")!, /application\/json/);
    const body = await res.json();
    assert.equal(body.error.type, "server_error");
    assert.equal(body.error.code, 500);
    assert.equal(typeof body.error.message, "string");
  } finally {
    await server.close();
  }
});

for (const http of ["deno", "direct"] as const) {
  Deno.test(`drop injection (${http} server): the connection closes before any body byte`, async (t) => {
    const server = await startMockServer({ http, dropRate: 1, seed: 7 });
    try {
      await t.step("a fetch client gets the headers, then the body read fails", async () => {
        for (const stream of [true, false]) {
          const res = await post(`${server.url}/v1/chat/completions`, { ...CHAT, stream });
          // Both servers send the status line before the body: the failure shows on read.
          await assert.rejects(() => res.text(), TypeError);
        }
      });
      await t.step("on the wire: headers, no body, then the connection ends", async () => {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
        const body = JSON.stringify(CHAT);
        await conn.write(new TextEncoder().encode(
          `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
            `content-length: ${body.length}\r\n\r\n${body}`,
        ));
        let raw = "";
        const buf = new Uint8Array(4096);
        const deadline = setTimeout(() => conn.close(), 5000);
        try {
          for (;;) {
            const n = await conn.read(buf);
            if (n === null) break;
            raw += new TextDecoder().decode(buf.subarray(0, n));
          }
        } catch { /* a reset counts as the end too */ }
        clearTimeout(deadline);
        try {
          conn.close();
        } catch { /* already closed */ }
        const [head, rest] = raw.split("\r\n\r\n");
        assert.match(head, /^HTTP\/1\.1 200/);
        assert.match(head, /transfer-encoding: chunked/i);
        assert.equal(rest, "", "no body byte, not even the final chunk");
      });
    } finally {
      await server.close();
    }
  });
}

Deno.test("truncate injection stops the stream half-way without [DONE]", async () => {
  const server = await startMockServer({ truncateRate: 1, outputTokens: 10, seed: 7 });
  try {
    const res = await post(`${server.url}/v1/chat/completions`, {
      ...CHAT,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(res.status, 200);
    const events = await readSse(res);
    assert.ok(events.every((e) => e.data !== "[DONE]"));
    const chunks = payloads(events) as { choices: { delta: { content?: string } }[] }[];
    const tokens = chunks.filter((c) => c.choices[0]?.delta.content);
    assert.equal(tokens.length, 5);
    assert.ok(chunks.every((c) => !("usage" in c) || c.usage === null));
  } finally {
    await server.close();
  }
});

Deno.test("truncate does not affect non-streaming answers", async () => {
  const server = await startMockServer({ truncateRate: 1, outputTokens: 3 });
  try {
    const json = await (await post(`${server.url}/v1/chat/completions`, CHAT)).json();
    assert.equal(json.usage.completion_tokens, 3);
  } finally {
    await server.close();
  }
});

Deno.test("a seed makes the server's fault sequence repeat", async () => {
  const statuses = async (seed: number) => {
    const server = await startMockServer({ errorRate: 0.5, seed });
    try {
      const out: number[] = [];
      for (let i = 0; i < 24; i++) {
        const res = await post(`${server.url}/v1/chat/completions`, CHAT);
        out.push(res.status);
        await res.body?.cancel();
      }
      return out;
    } finally {
      await server.close();
    }
  };
  const a = await statuses(11);
  assert.deepEqual(a, await statuses(11));
  assert.ok(a.includes(500) && a.includes(200), String(a));
});
