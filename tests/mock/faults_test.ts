import assert from "node:assert/strict";
import { mockServerOptions } from "../../src/config/options.ts";
import { ConfigError } from "../../src/config/parse.ts";
import {
  decideFault,
  drawFault,
  FAULT_KINDS,
  faultShares,
  selectFault,
} from "../../src/mock/faults.ts";
import { resolveMockOptions } from "../../src/mock/options.ts";
import { seededRandom } from "../../src/mock/rng.ts";
import { type MockOptions, startMockServer } from "../../src/mock/server.ts";
import { payloads, post, readSse } from "./helpers.ts";
import { dechunk, exchange, parse, postBytes, sseEvents, text, values } from "./raw.ts";

const CHAT = { messages: [{ role: "user", content: "hi" }] };
const STREAM = { ...CHAT, stream: true };
const PATH = "/v1/chat/completions";

/** Runs `fn` against a mock started with `opts`, closing it after. */
async function withMock(
  opts: MockOptions,
  fn: (server: Awaited<ReturnType<typeof startMockServer>>) => Promise<void>,
): Promise<void> {
  const server = await startMockServer({ seed: 7, outputTokens: 6, ...opts });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

// ---- choosing a fault ------------------------------------------------------------------------

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

Deno.test("faultShares: the rates first, then each --fault in order, probability 1 by default", () => {
  const shares = faultShares({
    errorRate: 0.1,
    dropRate: 0,
    truncateRate: 0.2,
    fault: ["http-429=0.25", "drop=.05", "STALL=0"],
  });
  assert.deepEqual(shares, [
    { kind: "http-500", probability: 0.1 },
    { kind: "truncate", probability: 0.2 },
    { kind: "http-429", probability: 0.25 },
    { kind: "reset-after-head", probability: 0.05 },
  ]);
  assert.deepEqual(faultShares({ errorRate: 0, dropRate: 0, truncateRate: 0, fault: ["close"] }), [
    { kind: "close", probability: 1 },
  ]);
  const bad = (fault: string[], re: RegExp) =>
    assert.throws(
      () => faultShares({ errorRate: 0, dropRate: 0, truncateRate: 0, fault }),
      (e: Error) => e instanceof ConfigError && re.test(e.message),
    );
  bad(["nope"], /unknown fault kind "nope" \(kinds: http-500,/);
  bad(["stall=2"], /"stall=2": the probability must be a number from 0 to 1/);
  bad(["stall="], /probability must be/);
  bad(["stall=x"], /probability must be/);
  bad(["http-500=0.6", "http-429=0.6"], /add up to 1\.2, more than 1/);
});

Deno.test("drawFault: 1,000 seeded decisions repeat for a seed and fall within binomial bounds", () => {
  const shares = faultShares({
    errorRate: 0,
    dropRate: 0,
    truncateRate: 0,
    fault: ["http-500=0.1", "stall=0.3", "close=0.05"],
  });
  const run = (seed: number) => {
    const random = seededRandom(seed);
    return Array.from({ length: 1000 }, () => drawFault(shares, random));
  };
  for (const seed of [1, 42, 2026]) {
    const a = run(seed);
    assert.deepEqual(a, run(seed), "the same seed, the same decisions");
    const expected: [string | null, number][] = [
      ["http-500", 0.1],
      ["stall", 0.3],
      ["close", 0.05],
      [null, 0.55],
    ];
    for (const [kind, p] of expected) {
      const n = a.filter((k) => k === kind).length;
      // Five standard deviations: a seed outside it would be a broken draw, not bad luck.
      const bound = 5 * Math.sqrt(1000 * p * (1 - p));
      assert.ok(Math.abs(n - 1000 * p) <= bound, `seed ${seed}: ${kind} ${n} times, p=${p}`);
    }
  }
  assert.notDeepEqual(run(1), run(2));
  assert.equal(drawFault([], () => assert.fail("no draw without shares")), null);
});

Deno.test("selectFault: a /fault/KIND/ prefix first, then the header; unknown names kept", () => {
  assert.deepEqual(selectFault("/fault/http-429/v1/chat/completions", "stall"), {
    kind: "http-429",
    unknown: null,
    path: "/v1/chat/completions",
  });
  assert.deepEqual(selectFault("/v1/completions", " Stall "), {
    kind: "stall",
    unknown: null,
    path: "/v1/completions",
  });
  assert.deepEqual(selectFault("/v1/completions", null), {
    kind: null,
    unknown: null,
    path: "/v1/completions",
  });
  assert.deepEqual(selectFault("/fault/bogus/v1/x", null), {
    kind: null,
    unknown: "bogus",
    path: "/v1/x",
  });
  assert.equal(selectFault("/v1/x", "error").kind, "http-500", "the old names still work");
});

Deno.test("resolveMockOptions: a wire fault picks the mock's own server, unless deno is asked", () => {
  assert.equal(resolveMockOptions({ fault: ["close"] }).http, "direct");
  assert.equal(resolveMockOptions({ fault: ["http-500"] }).http, "deno");
  assert.equal(resolveMockOptions({ fault: ["close"], http: "direct" }).http, "direct");
  assert.throws(
    () => resolveMockOptions({ fault: ["http-500=0.5", "close=0.5"], http: "deno" }),
    (e: Error) =>
      e instanceof ConfigError && /--http deno cannot inject wire faults \(close\)/.test(e.message),
  );
});

Deno.test("every kind is documented in docs/mock-server.md and listed by --help", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/mock-server.md", import.meta.url));
  const help = mockServerOptions.fault.help;
  for (const kind of FAULT_KINDS) {
    assert.ok(doc.includes(`| \`${kind}\``), kind);
    assert.match(help, new RegExp(`[ :]${kind}[,.]`), kind);
  }
});

// ---- selection per request, counters ---------------------------------------------------------

Deno.test("a header or a path prefix faults that request alone; /mock/stats counts them", async () => {
  await withMock({}, async (server) => {
    const viaHeader = await post(`${server.url}${PATH}`, CHAT, {
      headers: { "content-type": "application/json", "x-mock-fault": "http-429" },
    });
    assert.equal(viaHeader.status, 429);
    await viaHeader.body?.cancel();
    const plain = await post(`${server.url}${PATH}`, CHAT);
    assert.equal(plain.status, 200);
    assert.equal((await plain.json()).object, "chat.completion");
    const viaPath = await post(`${server.url}/fault/http-500${PATH}`, CHAT);
    assert.equal(viaPath.status, 500);
    assert.equal((await viaPath.json()).error.type, "server_error");
    const unknown = await post(`${server.url}/fault/nope${PATH}`, CHAT);
    assert.equal(unknown.status, 400);
    assert.match((await unknown.json()).error.message, /Unknown mock fault "nope"/);
    const wire = await post(`${server.url}/fault/close${PATH}`, CHAT);
    assert.equal(wire.status, 501, "Deno.serve cannot make wire faults");
    assert.match((await wire.json()).error.message, /--http deno cannot inject it/);

    const stats = await (await fetch(`${server.url}/mock/stats`)).json();
    assert.deepEqual(stats, {
      requests: 5,
      byPath: {
        [PATH]: 2,
        [`/fault/http-500${PATH}`]: 1,
        [`/fault/nope${PATH}`]: 1,
        [`/fault/close${PATH}`]: 1,
      },
      faults: { "http-429": 1, "http-500": 1 },
    });
    assert.deepEqual(server.stats(), stats);
  });
});

Deno.test("configured probabilities: the counters match what the client saw, and repeat for a seed", async () => {
  const run = async (seed: number) => {
    const statuses: number[] = [];
    let stats: Record<string, unknown> = {};
    await withMock({ seed, fault: ["http-500=0.3", "http-429=0.2"] }, async (server) => {
      for (let i = 0; i < 40; i++) {
        const res = await post(`${server.url}${PATH}`, CHAT);
        statuses.push(res.status);
        await res.body?.cancel();
      }
      stats = server.stats() as unknown as Record<string, unknown>;
    });
    return { statuses, stats };
  };
  const a = await run(5);
  assert.deepEqual(a, await run(5));
  const count = (s: number) => a.statuses.filter((x) => x === s).length;
  assert.equal(a.stats.requests, 40);
  assert.deepEqual(a.stats.faults, {
    ...(count(500) ? { "http-500": count(500) } : {}),
    ...(count(429) ? { "http-429": count(429) } : {}),
  });
  assert.equal(count(500) + count(429) + count(200), 40);
  assert.ok(count(200) > 0 && count(500) > 0 && count(429) > 0, String(a.statuses));
});

Deno.test("a seed makes the server's fault sequence repeat (--error-rate)", async () => {
  const statuses = async (seed: number) => {
    const out: number[] = [];
    await withMock({ errorRate: 0.5, seed }, async (server) => {
      for (let i = 0; i < 24; i++) {
        const res = await post(`${server.url}${PATH}`, CHAT);
        out.push(res.status);
        await res.body?.cancel();
      }
    });
    return out;
  };
  const a = await statuses(11);
  assert.deepEqual(a, await statuses(11));
  assert.ok(a.includes(500) && a.includes(200), String(a));
});

// ---- answer faults, on both servers ----------------------------------------------------------

for (const http of ["deno", "direct"] as const) {
  const on = (name: string) => `${name} (${http} server)`;

  Deno.test(on("http-500, http-429, http-503 and http-307 answers"), async () => {
    await withMock({ http }, async (server) => {
      for (const body of [CHAT, STREAM]) {
        const e500 = await post(`${server.url}/fault/http-500${PATH}`, body);
        assert.equal(e500.status, 500);
        assert.match(e500.headers.get("content-type")!, /application\/json/);
        const j = await e500.json();
        assert.equal(j.error.type, "server_error");
        assert.equal(j.error.code, 500);

        const e429 = await post(`${server.url}/fault/http-429${PATH}`, body);
        assert.equal(e429.status, 429);
        assert.equal(e429.headers.get("retry-after"), "1");
        assert.equal(typeof (await e429.json()).error.message, "string");

        const e503 = await post(`${server.url}/fault/http-503${PATH}`, body);
        assert.equal(e503.status, 503);
        assert.match(e503.headers.get("content-type")!, /^text\/html/);
        assert.match(await e503.text(), /^<html>[\s\S]*503 Service Temporarily Unavailable/);
      }
      const moved = await post(`${server.url}/fault/http-307${PATH}?a=1`, CHAT, {
        headers: { "content-type": "application/json" },
        redirect: "manual",
      });
      assert.equal(moved.status, 307);
      assert.equal(moved.headers.get("location"), `${PATH}?a=1`);
      await moved.body?.cancel();
      const followed = await post(`${server.url}/fault/http-307${PATH}`, CHAT);
      assert.equal(followed.status, 200, "a client following it lands on the plain path");
      assert.equal((await followed.json()).object, "chat.completion");
    });
  });

  Deno.test(
    on("reset-after-head: the head, then the connection ends without a body byte"),
    async () => {
      await withMock({ http, dropRate: 1 }, async (server) => {
        for (const stream of [true, false]) {
          const res = await post(`${server.url}${PATH}`, { ...CHAT, stream });
          // Both servers send the status line before the body: the failure shows on read.
          assert.equal(res.status, 200);
          await assert.rejects(() => res.text(), TypeError);
        }
        if (http === "direct") {
          const { bytes, ended } = await exchange(server.port, postBytes(PATH, STREAM));
          const p = parse(bytes);
          assert.match(p.statusLine, /^HTTP\/1\.1 200/);
          assert.deepEqual(values(p, "transfer-encoding"), ["chunked"]);
          assert.equal(p.body.length, 0, "no body byte, not even the final chunk");
          assert.notEqual(ended, "guard");
        }
      });
    },
  );

  Deno.test(on("reset-mid-stream: part of the answer, then the connection ends"), async () => {
    await withMock({ http, outputTokens: 10 }, async (server) => {
      for (const stream of [true, false]) {
        const res = await post(`${server.url}/fault/reset-mid-stream${PATH}`, { ...CHAT, stream });
        assert.equal(res.status, 200);
        await assert.rejects(() => res.text(), TypeError);
      }
      if (http === "direct") {
        const s = await exchange(server.port, postBytes(`/fault/reset-mid-stream${PATH}`, STREAM));
        const streamed = dechunk(parse(s.bytes).body);
        assert.equal(streamed.complete, false, "no last chunk");
        const events = sseEvents(text(streamed.data));
        assert.ok(events.length >= 2, "some events came");
        assert.ok(events.every((e) => e.data !== "[DONE]"));
        const w = await exchange(server.port, postBytes(`/fault/reset-mid-stream${PATH}`, CHAT));
        const whole = dechunk(parse(w.bytes).body);
        assert.equal(whole.complete, false);
        assert.ok(whole.data.length > 0, "half of the JSON came");
        assert.throws(() => JSON.parse(text(whole.data)));
      }
    });
  });

  Deno.test(
    on("truncate: the stream ends cleanly without its final events and [DONE]"),
    async () => {
      await withMock({ http, truncateRate: 1, outputTokens: 10 }, async (server) => {
        const res = await post(`${server.url}${PATH}`, {
          ...STREAM,
          stream_options: { include_usage: true },
        });
        assert.equal(res.status, 200);
        const events = await readSse(res);
        assert.ok(events.every((e) => e.data !== "[DONE]"));
        const chunks = payloads(events) as { choices: { delta: { content?: string } }[] }[];
        assert.equal(chunks.filter((c) => c.choices[0]?.delta.content).length, 5);
        assert.ok(chunks.every((c) => !("usage" in c) || c.usage === null));
        const whole = await (await post(`${server.url}${PATH}`, CHAT)).json();
        assert.equal(whole.usage.completion_tokens, 10, "a whole answer is not truncated");
      });
    },
  );

  Deno.test(
    on("stall: the head, then nothing until the mock's cap closes the connection"),
    async () => {
      const stallMs = 300;
      await withMock({ http, faultStallMs: stallMs }, async (server) => {
        for (const stream of [true, false]) {
          const sent = performance.now();
          const res = await post(`${server.url}/fault/stall${PATH}`, { ...CHAT, stream });
          assert.equal(res.status, 200, "the head arrives");
          await assert.rejects(() => res.text(), TypeError);
          const took = performance.now() - sent;
          assert.ok(took >= stallMs - 20, `the body failed after ${took} ms, not after the stall`);
        }
        const c = new AbortController();
        const res = await post(`${server.url}/fault/stall${PATH}`, STREAM, {
          headers: { "content-type": "application/json" },
          signal: c.signal,
        });
        const reading = res.text();
        setTimeout(() => c.abort(), 50);
        await assert.rejects(() => reading, "a client timing out leaves the stall");
      });
    },
  );

  Deno.test(on("invalid-json: one event (or the whole body) is cut mid-JSON"), async () => {
    await withMock({ http }, async (server) => {
      const events = await readSse(await post(`${server.url}/fault/invalid-json${PATH}`, STREAM));
      const bad = events.filter((e) => {
        if (e.data === "[DONE]") return false;
        try {
          JSON.parse(e.data);
          return false;
        } catch {
          return true;
        }
      });
      assert.equal(bad.length, 1);
      assert.equal(events.at(-1)!.data, "[DONE]", "the stream goes on after it");
      const res = await post(`${server.url}/fault/invalid-json${PATH}`, CHAT);
      assert.equal(res.status, 200);
      const body = await res.text();
      assert.match(body, /^\{"id":"chatcmpl-/);
      assert.throws(() => JSON.parse(body));
    });
  });

  Deno.test(on("event-error: an `event: error` event ends the stream"), async () => {
    await withMock({ http }, async (server) => {
      const events = await readSse(await post(`${server.url}/fault/event-error${PATH}`, STREAM));
      const last = events.at(-1)!;
      assert.equal(last.event, "error");
      assert.equal(JSON.parse(last.data).error.type, "server_error");
      assert.ok(events.length >= 2, "it follows a first event");
      assert.ok(events.every((e) => e.data !== "[DONE]"));
      const whole = await post(`${server.url}/fault/event-error${PATH}`, CHAT);
      assert.equal((await whole.json()).object, "chat.completion", "a whole answer is unchanged");
    });
  });

  Deno.test(on("gzip: Content-Encoding gzip and a body that gunzips to the answer"), async () => {
    await withMock({ http }, async (server) => {
      for (const body of [CHAT, STREAM]) {
        // fetch undoes the encoding itself: the answer reads as usual.
        const res = await post(`${server.url}/fault/gzip${PATH}`, body);
        assert.equal(res.headers.get("content-encoding"), "gzip");
        const plain = await res.text();
        assert.match(plain, body === STREAM ? /data: \[DONE\]\n\n$/ : /"chat\.completion"/);
        if (http !== "direct") continue;
        const raw = await exchange(
          server.port,
          postBytes(`/fault/gzip${PATH}`, body, { connection: "close" }),
        );
        const p = parse(raw.bytes);
        const bytes = body === STREAM ? dechunk(p.body).data : p.body;
        assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b], "gzip magic");
        const unzipped = await new Response(
          new Blob([bytes.slice()]).stream().pipeThrough(new DecompressionStream("gzip")),
        ).text();
        assert.equal(unzipped.replace(/chatcmpl-[0-9a-f]+/g, "").length > 0, true);
        assert.match(unzipped, body === STREAM ? /data: \[DONE\]\n\n$/ : /"chat\.completion"/);
      }
    });
  });

  Deno.test(on("large-event: one event (or the body) padded to the configured size"), async () => {
    const size = 1_000_000;
    await withMock({ http, faultEventBytes: size }, async (server) => {
      const events = await readSse(await post(`${server.url}/fault/large-event${PATH}`, STREAM));
      const big = events.filter((e) => e.data.length >= size);
      assert.equal(big.length, 1);
      const chunk = JSON.parse(big[0].data);
      assert.equal(chunk.object, "chat.completion.chunk", "still the API's event");
      assert.equal(chunk.mock_padding.length, size - `"mock_padding":"",`.length);
      assert.equal(events.at(-1)!.data, "[DONE]");
      const whole = await (await post(`${server.url}/fault/large-event${PATH}`, CHAT)).json();
      assert.equal(whole.object, "chat.completion");
      assert.ok(whole.mock_padding.length > size - 100);
    });
  });

  Deno.test(
    on("non-utf8: bytes that are not UTF-8 inside the first JSON event (or body)"),
    async () => {
      await withMock({ http }, async (server) => {
        for (const body of [STREAM, CHAT]) {
          const res = await post(`${server.url}/fault/non-utf8${PATH}`, body);
          const bytes = new Uint8Array(await res.arrayBuffer());
          assert.throws(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes), TypeError);
          const at = bytes.indexOf(0xff);
          assert.ok(at > 0);
          assert.equal(bytes[at + 1], 0xfe);
          // Read leniently, the rest is the usual answer.
          const lenient = new TextDecoder().decode(bytes);
          assert.match(lenient, body === STREAM ? /data: \[DONE\]\n\n$/ : /"chat\.completion"/);
        }
      });
    },
  );
}
