/**
 * AIPerf's load and connection flags through the real CLI against the mock server: several URLs
 * in turn, connection reuse (counted by a TCP proxy in front of the server), the session header,
 * prefill concurrency, the user-centric rate and a rate series.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, runCli } from "./helpers.ts";

type Meta = {
  request_start_ns: number;
  request_end_ns: number;
  intended_start_ns?: number;
  conversation_id: string;
  x_correlation_id: string;
  turn_index: number;
  url_index?: number;
};
type Rec = { metadata: Meta; metrics: Record<string, { value: number }>; error: unknown };

/** A synthetic multi-turn dataset: small prompts and answers. */
const SYNTH = ["--isl", "16", "--osl", "4", "--random-seed", "7"];

function profile(urls: string[], dir: string, ...more: string[]): string[] {
  return [
    "profile",
    ...urls.flatMap((u) => ["--url", u]),
    "--model",
    "m",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
    "--transport",
    "http1",
    // The connections counted here are the benchmark's: the server's /metrics is not scraped.
    "--no-server-metrics",
    ...SYNTH,
    ...more,
  ];
}

/** The records of the only run directory under `dir`. */
async function records(dir: string): Promise<Rec[]> {
  const runs = [];
  for await (const e of Deno.readDir(dir)) if (e.isDirectory) runs.push(e.name);
  assert.equal(runs.length, 1, runs.join(", "));
  return (await readRecords(join(dir, runs[0], "profile_export.jsonl"))) as unknown as Rec[];
}

/**
 * A TCP proxy that counts the connections made to it and keeps, per connection, the bytes sent
 * to the server as text (the requests of these tests are small).
 */
function countingProxy(target: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const sent: string[] = [];
  const pipes: Promise<unknown>[] = [];
  const accepting = (async () => {
    for await (const client of listener) {
      const conn = sent.length;
      sent.push("");
      pipes.push(
        (async () => {
          const server = await Deno.connect({ hostname: "127.0.0.1", port: target });
          const up = (async () => {
            const dec = new TextDecoder();
            const buf = new Uint8Array(65536);
            try {
              for (;;) {
                const n = await client.read(buf);
                if (n === null) break;
                sent[conn] += dec.decode(buf.subarray(0, n), { stream: true });
                await server.write(buf.subarray(0, n));
              }
            } catch { /* either side closed */ }
            try {
              server.closeWrite();
            } catch { /* closed */ }
          })();
          const down = server.readable.pipeTo(client.writable).catch(() => {});
          await Promise.all([up, down]);
          try {
            server.close();
          } catch { /* closed */ }
        })().catch(() => {}),
      );
    }
  })().catch(() => {});
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Connections accepted. */
    get connections(): number {
      return sent.length;
    },
    /** Per connection, in the order accepted: the values of request header `name` it carried. */
    values(name: string): string[][] {
      const re = new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, "gi");
      return sent.map((text) => [...text.matchAll(re)].map((m) => m[1]));
    },
    async close() {
      listener.close();
      await accepting;
      await Promise.all(pipes);
    },
  };
}

Deno.test("--url given three times: requests go to each in turn, and each record says which", async () => {
  const servers = await Promise.all([0, 1, 2].map(() => startMockServer({ outputTokens: 3 })));
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile(
      servers.map((s) => s.url),
      dir,
      "--num-conversations",
      "12",
      "--concurrency",
      "3",
    ));
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(servers.map((s) => s.stats().requests), [4, 4, 4]);
    const recs = await records(dir);
    assert.equal(recs.length, 12);
    const byUrl = [0, 0, 0];
    for (const r of recs) byUrl[r.metadata.url_index!]++;
    assert.deepEqual(byUrl, [4, 4, 4]);
    // The run is named as with one URL.
    await Deno.stat(join(dir, "m-openai-chat-concurrency3"));
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("several URLs with sticky sessions: each conversation stays on one URL, taken in turn", async () => {
  const servers = await Promise.all([0, 1].map(() => startMockServer({ outputTokens: 3 })));
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile(
      servers.map((s) => s.url),
      dir,
      "--num-conversations",
      "4",
      "--session-turns-mean",
      "3",
      "--concurrency",
      "2",
      "--connection-reuse-strategy",
      "sticky-user-sessions",
    ));
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(servers.map((s) => s.stats().requests), [6, 6]);
    const urlOf = new Map<string, Set<number>>();
    for (const r of await records(dir)) {
      const set = urlOf.get(r.metadata.conversation_id) ?? new Set();
      set.add(r.metadata.url_index!);
      urlOf.set(r.metadata.conversation_id, set);
    }
    assert.equal(urlOf.size, 4);
    for (const set of urlOf.values()) assert.equal(set.size, 1);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("one URL: records carry no url_index", async () => {
  const server = await startMockServer({ outputTokens: 3 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile([server.url], dir, "--num-conversations", "2"));
    assert.equal(res.code, 0, res.stderr);
    for (const r of await records(dir)) assert.equal(r.metadata.url_index, undefined);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--connection-reuse-strategy never opens a connection per request; pooled reuses them", async () => {
  const server = await startMockServer({ outputTokens: 3 });
  try {
    for (
      const [strategy, check] of [
        ["never", (n: number) => assert.equal(n, 8)],
        ["pooled", (n: number) => assert.ok(n <= 2, `${n} connections for 2 slots`)],
      ] as const
    ) {
      const proxy = countingProxy(server.port);
      const dir = await Deno.makeTempDir();
      try {
        const res = await runCli(profile(
          [proxy.url],
          dir,
          "--num-conversations",
          "8",
          "--concurrency",
          "2",
          "--connection-reuse-strategy",
          strategy,
        ));
        assert.equal(res.code, 0, res.stderr);
        assert.equal((await records(dir)).length, 8);
      } finally {
        await proxy.close();
        await Deno.remove(dir, { recursive: true });
      }
      check(proxy.connections);
      assert.equal(proxy.values("X-Request-ID").flat().length, 8, strategy);
    }
  } finally {
    await server.close();
  }
});

Deno.test("sticky-user-sessions keeps each conversation's turns on one connection of its own", async () => {
  const server = await startMockServer({ outputTokens: 3 });
  const proxy = countingProxy(server.port);
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile(
      [proxy.url],
      dir,
      "--num-conversations",
      "4",
      "--session-turns-mean",
      "3",
      "--concurrency",
      "2",
      "--connection-reuse-strategy",
      "sticky-user-sessions",
    ));
    assert.equal(res.code, 0, res.stderr);
    assert.equal((await records(dir)).length, 12);
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
  // One connection per conversation, carrying its three turns and nothing else.
  const seen = proxy.values("X-Correlation-ID");
  assert.equal(seen.length, 4);
  for (const values of seen) {
    assert.equal(values.length, 3);
    assert.equal(new Set(values).size, 1, values.join(", "));
  }
  assert.equal(new Set(seen.map((v) => v[0])).size, 4);
});

Deno.test("--session-header carries the conversation id on every turn, in place of X-Correlation-ID", async () => {
  const server = await startMockServer({ outputTokens: 3 });
  const proxy = countingProxy(server.port);
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile(
      [proxy.url],
      dir,
      "--num-conversations",
      "3",
      "--session-turns-mean",
      "2",
      "--session-header",
      "X-Session-Affinity",
    ));
    assert.equal(res.code, 0, res.stderr);
    const recs = await records(dir);
    const sent = proxy.values("X-Session-Affinity").flat().sort();
    assert.equal(sent.length, 6);
    assert.deepEqual(sent, recs.map((r) => r.metadata.conversation_id).sort());
    // The default name is not sent as well.
    assert.deepEqual(proxy.values("X-Correlation-ID").flat(), []);
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("by default the conversation id goes in X-Correlation-ID", async () => {
  const server = await startMockServer({ outputTokens: 3 });
  const proxy = countingProxy(server.port);
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile([proxy.url], dir, "--num-conversations", "2"));
    assert.equal(res.code, 0, res.stderr);
    const recs = await records(dir);
    assert.deepEqual(
      proxy.values("X-Correlation-ID").flat().sort(),
      recs.map((r) => r.metadata.conversation_id).sort(),
    );
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The most requests at any start instant that had started and not yet had their first token. */
function maxWaitingForFirstToken(recs: Rec[]): number {
  const spans = recs.map((r) => {
    const s = r.metadata.request_start_ns;
    return [s, s + r.metrics.time_to_first_token.value * 1e6];
  });
  let most = 0;
  for (const [at] of spans) {
    // 1 us of slack for the ns lost to JSON numbers; a place is given back well before reuse.
    const n = spans.filter(([s, f]) => s <= at && at < f - 1e3).length;
    most = Math.max(most, n);
  }
  return most;
}

Deno.test("--prefill-concurrency: never more than N requests waiting for their first token", async () => {
  const server = await startMockServer({ ttftMs: 60, itlMs: 5, outputTokens: 4 });
  try {
    const run = async (...more: string[]) => {
      const dir = await Deno.makeTempDir();
      try {
        const res = await runCli(profile(
          [server.url],
          dir,
          "--streaming",
          "--num-conversations",
          "12",
          "--concurrency",
          "6",
          ...more,
        ));
        assert.equal(res.code, 0, res.stderr);
        const recs = await records(dir);
        assert.equal(recs.length, 12);
        for (const r of recs) assert.equal(r.error, null);
        return maxWaitingForFirstToken(recs);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    };
    assert.ok((await run("--prefill-concurrency", "2")) <= 2);
    // Without the cap the same load has more waiting at once: the check above can fail.
    assert.ok((await run()) > 2);
  } finally {
    await server.close();
  }
});

Deno.test("--user-centric-rate: each user's turns are --num-users/QPS apart", async () => {
  const server = await startMockServer({ ttftMs: 2, itlMs: 0, outputTokens: 3 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli(profile(
      [server.url],
      dir,
      "--num-conversations",
      "4",
      "--session-turns-mean",
      "3",
      "--user-centric-rate",
      "20",
      "--num-users",
      "2",
    ));
    assert.equal(res.code, 0, res.stderr);
    const recs = await records(dir);
    assert.equal(recs.length, 12);
    const byConv = new Map<string, Meta[]>();
    for (const r of recs) {
      const list = byConv.get(r.metadata.conversation_id) ?? [];
      list.push(r.metadata);
      byConv.set(r.metadata.conversation_id, list);
    }
    assert.equal(byConv.size, 4);
    for (const turns of byConv.values()) {
      turns.sort((a, b) => a.turn_index - b.turn_index);
      assert.deepEqual(turns.map((t) => t.turn_index), [0, 1, 2]);
      for (let i = 1; i < turns.length; i++) {
        // Meant exactly 2/20 s apart.
        const meant = turns[i].intended_start_ns! - turns[i - 1].intended_start_ns!;
        assert.ok(Math.abs(meant - 100e6) < 5e3, `meant gap ${meant}`);
        // Sent no earlier than meant, and after the answer it follows.
        assert.ok(turns[i].request_start_ns >= turns[i].intended_start_ns! - 5e3);
        assert.ok(turns[i].request_start_ns >= turns[i - 1].request_end_ns - 5e3);
        // Only a hang is late by ten gaps.
        assert.ok(turns[i].request_start_ns - turns[i].intended_start_ns! < 1e9);
      }
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--request-rate-series: the send rate follows the file", async () => {
  const server = await startMockServer({ ttftMs: 1, itlMs: 0, outputTokens: 2 });
  const dir = await Deno.makeTempDir();
  const file = join(dir, "series.json");
  // 10/s for the first second, then 40/s: 10 requests, then 40 in the next second.
  await Deno.writeTextFile(file, JSON.stringify([[0, 10], [1, 10], [1.001, 40], [3, 40]]));
  const out = join(dir, "out");
  try {
    const res = await runCli(profile(
      [server.url],
      out,
      "--num-conversations",
      "10",
      "--request-count",
      "50",
      "--request-rate-series",
      file,
      "--arrival-pattern",
      "constant",
    ));
    assert.equal(res.code, 0, res.stderr);
    const recs = await records(out);
    assert.equal(recs.length, 50);
    const intended = recs.map((r) => r.metadata.intended_start_ns!).sort((a, b) => a - b);
    const t0 = intended[0];
    const inFirst = intended.filter((t) => t - t0 < 1e9).length;
    assert.ok(inFirst >= 9 && inFirst <= 11, `${inFirst} meant in the first second`);
    // Sends are never early: the first second holds at most its share; the rest come faster.
    const sent = recs.map((r) => r.metadata.request_start_ns).sort((a, b) => a - b);
    assert.ok(sent.filter((t) => t - t0 < 1e9).length <= 11);
    // The other 40 are meant within the next second, four times as dense.
    const inSecond = intended.filter((t) => t - t0 >= 1e9 && t - t0 < 2e9).length;
    assert.ok(inSecond >= 39 && inSecond <= 41, `${inSecond} meant in the second second`);
    for (const r of recs) {
      assert.ok(r.metadata.request_start_ns >= r.metadata.intended_start_ns! - 5e3);
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bad load flags are one-line config errors before anything is sent", async () => {
  const server = await startMockServer({ outputTokens: 2 });
  const dir = await Deno.makeTempDir();
  try {
    for (
      const bad of [
        ["--prefill-concurrency", "2"],
        ["--user-centric-rate", "5"],
        ["--user-centric-rate", "5", "--num-users", "2"],
        ["--request-content-type", "multipart/form-data"],
        ["--connection-reuse-strategy", "never", "--transport", "fetch"],
        ["--arrival-pattern", "concurrency_burst", "--request-rate", "5"],
      ]
    ) {
      const res = await runCli(profile([server.url], dir, ...bad));
      assert.equal(res.code, 2, `${bad.join(" ")}: ${res.stderr}`);
      assert.equal(res.stderr.trim().split("\n").length, 1, res.stderr);
      assert.match(res.stderr, new RegExp(bad[0]), res.stderr);
    }
    assert.equal(server.stats().requests, 0);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
