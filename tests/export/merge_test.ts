import assert from "node:assert/strict";
import { join } from "node:path";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import {
  fromShown,
  mergeShards,
  parseIsoUtc,
  type ShardArtifacts,
} from "../../src/export/merge.ts";
import { Results } from "../../src/export/results.ts";
import { parseGoodput } from "../../src/metrics/goodput.ts";
import { isoUtc } from "../../src/record/clock.ts";
import type { RequestRecord } from "../../src/record/record.ts";
import type { PlannedConversation } from "../../src/plan/types.ts";
import { main } from "../../src/cli/main.ts";
import type { Io } from "../../src/cli/io.ts";

/** Runs a command in-process; its exit code and stdout. */
async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: () => undefined,
    isTerminal: false,
  };
  return { code: await main(args, io), out, err };
}

const T0 = 1_795_759_552_000_000_000n;

/** A dataset whose bodies ask for a length some answers miss (osl_mismatch). */
const CONVERSATIONS: PlannedConversation[] = Array.from({ length: 5 }, (_, i) => ({
  sessionId: `s${i}`,
  bodies: [
    JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: `question ${i}` }],
      max_tokens: 4,
    }),
  ],
}));

/**
 * The i-th request of a run: answers of a few tokens at uneven gaps (so inter-token latencies are
 * fractional ns), usage on some (usage diffs, discrepancies), failures, warmup requests.
 */
function record(i: number): RequestRecord {
  const start = T0 + BigInt(i) * 7_312_911n;
  const tokens = 1 + (i % 6);
  const gaps = Array.from(
    { length: tokens },
    (_, k) => 20_000_000 + k * 1_234_567 + (i * 7919) % 3_333_333,
  );
  const responseNs: number[] = [];
  let t = 0;
  for (const g of gaps) responseNs.push(t += g);
  const failed = i % 11 === 5;
  return {
    phase: i < 6 ? "warmup" : "profiling",
    workerId: 0,
    sessionNum: i,
    conversationIndex: i % CONVERSATIONS.length,
    conversationId: `s${i % CONVERSATIONS.length}`,
    turnIndex: 0,
    requestId: `r${i}`,
    correlationId: `s${i % CONVERSATIONS.length}`,
    intendedStartNs: start - BigInt(i % 4) * 1_000_000n,
    startNs: start,
    ackNs: failed ? null : 9_000_000 + i,
    endNs: failed ? 3_000_000 + i : t + 1_000 + (i % 5),
    responseNs: failed ? [] : responseNs,
    responseReasoning: null,
    outputText: failed ? "" : Array.from({ length: tokens }, (_, k) => ` word${k}`).join(""),
    reasoningText: "",
    usage: failed || i % 3 === 0
      ? null
      : { promptTokens: 9 + (i % 4), completionTokens: tokens + (i % 7 === 0 ? 5 : 0) },
    httpStatus: failed ? 500 : 200,
    error: failed ? { code: 500, type: "HTTPError", message: `boom ${i % 2}` } : null,
    cancelled: false,
  };
}

const GOODPUT = "request_latency:80";

async function writeRun(dir: string, records: RequestRecord[], shard?: number): Promise<void> {
  const results = await Results.open({
    runDir: dir,
    conversations: CONVERSATIONS,
    streaming: true,
    endpoint: getEndpoint("chat"),
    goodput: parseGoodput(GOODPUT),
    run: {
      benchmarkId: "b",
      cliCommand: "reprise profile",
      randomSeed: 1,
      inputConfig: { goodput: GOODPUT, ...(shard === undefined ? {} : { shard: `${shard}/4` }) },
      version: "test",
    },
  });
  for (const r of records) {
    if (shard !== undefined) r.shard = shard;
    results.add(r);
  }
  const starts = records.map((r) => r.startNs);
  await results.finish({
    startNs: starts.reduce((a, b) => a < b ? a : b),
    endNs: starts.reduce((a, b) => a > b ? a : b) + 100_000_000n,
    wasCancelled: false,
  });
}

async function artifacts(dir: string): Promise<ShardArtifacts> {
  const read = (name: string) => Deno.readTextFile(join(dir, name)).catch(() => null);
  return {
    source: dir,
    summary: await read("profile_export_aiperf.json"),
    records: await read("profile_export.jsonl"),
    inputs: await read("inputs.json"),
    shardInfo: null,
  };
}

/** The summary's metric blocks and what else a merge must reproduce. */
function comparable(json: string): Record<string, unknown> {
  const doc = JSON.parse(json);
  for (
    const k of [
      "benchmark_id",
      "run_info",
      "start_time",
      "end_time",
      "reprise_version",
      "reprise_input_config",
      "input_config",
      "was_cancelled",
    ]
  ) delete doc[k];
  return doc;
}

Deno.test("merge of 4 shards: every statistic of the one run that sent all their records", async () => {
  const root = await Deno.makeTempDir();
  try {
    const n = 60;
    await writeRun(join(root, "single"), Array.from({ length: n }, (_, i) => record(i)));
    for (let s = 0; s < 4; s++) {
      const own = Array.from({ length: n }, (_, i) => i).filter((i) => i % 4 === s).map(record);
      await writeRun(join(root, "shards", `shard${s}`), own, s);
    }
    const shards = await Promise.all(
      [0, 1, 2, 3].map((s) => artifacts(join(root, "shards", `shard${s}`))),
    );
    const outcome = await mergeShards(shards, join(root, "merged"), { version: "test" });
    const single = await Deno.readTextFile(join(root, "single", "profile_export_aiperf.json"));
    const merged = await Deno.readTextFile(join(root, "merged", "profile_export_aiperf.json"));
    const want = comparable(single);
    const got = comparable(merged);
    // The run has what the test is about: failures, goodput, usage and length checks, warmup.
    for (
      const tag of [
        "error_request_count",
        "good_request_count",
        "usage_discrepancy_count",
        "osl_mismatch_count",
        "inter_token_latency",
        "warmup_metrics",
      ]
    ) {
      assert.ok(tag in want, tag);
    }
    assert.deepEqual(got, want);
    assert.deepEqual(outcome.warnings, []);
    assert.equal(outcome.requests + outcome.errors, n - 6);
    // Every line, each once, in start order, saying its shard.
    const lines = (await Deno.readTextFile(join(root, "merged", "profile_export.jsonl"))).trim()
      .split("\n");
    assert.equal(lines.length, n);
    const meta = lines.map((l) => JSON.parse(l).metadata);
    assert.deepEqual(meta.map((m) => m.session_num), Array.from({ length: n }, (_, i) => i));
    assert.deepEqual(meta.map((m) => m.shard_index), meta.map((m) => m.session_num % 4));
    assert.equal(
      await Deno.readTextFile(join(root, "merged", "inputs.json")),
      await Deno.readTextFile(join(root, "single", "inputs.json")),
    );
    const breakdown = JSON.parse(await Deno.readTextFile(join(root, "merged", "shards.json")));
    assert.deepEqual(breakdown.shards.map((s: { shard_index: number }) => s.shard_index), [
      0,
      1,
      2,
      3,
    ]);
    // report and compare read a merged run as any other: no metric differs from the one run.
    const report = await run(["report", join(root, "merged"), "--output", join(root, "r.html")]);
    assert.equal(report.code, 0, report.err);
    const compared = await run([
      "compare",
      join(root, "single"),
      join(root, "merged"),
      "--output-format",
      "json",
    ]);
    assert.equal(compared.code, 0, compared.err);
    const rows = JSON.parse(compared.out).metrics as { change_pct: number | null }[];
    assert.ok(rows.length > 50, `${rows.length} rows`);
    assert.ok(rows.every((r) => r.change_pct === 0 || r.change_pct === null), compared.out);
    // The command reads a folder of shards' run folders to the same summary.
    const merged2 = await run(["merge", join(root, "shards"), "--output", join(root, "merged2")]);
    assert.equal(merged2.code, 0, merged2.err);
    assert.deepEqual(
      comparable(await Deno.readTextFile(join(root, "merged2", "profile_export_aiperf.json"))),
      want,
    );
    assert.match(merged2.err, /^shard 3\/4: 14 requests \(1 failed\) from /m);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("merge: a missing shard, a failed one and another plan are warned about", async () => {
  const root = await Deno.makeTempDir();
  try {
    for (const s of [0, 2]) {
      await writeRun(join(root, `shard${s}`), [6, 7, 8, 9].map((i) => record(i * 4 + s)), s);
    }
    const shards = await Promise.all([0, 2].map((s) => artifacts(join(root, `shard${s}`))));
    // Shard 2 stopped before its summary: its records still count.
    shards[1].summary = null;
    shards[1].inputs = "[]";
    const outcome = await mergeShards(shards, join(root, "merged"), { version: "test" });
    const text = outcome.warnings.join("\n");
    assert.match(text, /shards 1, 3 of 4 missing/);
    assert.match(text, /has no summary .*its 4 finished requests are merged/);
    assert.match(text, /inputs\.json differ/);
    assert.equal(outcome.requests + outcome.errors, 8);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("merge: a records line that is not JSON names the shard and the line", async () => {
  const root = await Deno.makeTempDir();
  try {
    await assert.rejects(
      mergeShards(
        [{ source: "podA", summary: null, records: "{}\n{oops\n", inputs: null, shardInfo: null }],
        join(root, "m"),
        { version: "t" },
      ),
      /podA: line 1 has no request_start_ns/,
    );
    await assert.rejects(
      mergeShards(
        [{ source: "podB", summary: null, records: "{oops\n", inputs: null, shardInfo: null }],
        join(root, "m"),
        { version: "t" },
      ),
      /records of podB: line 1 is not valid JSON/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("fromShown: a value that divides back to the line's number, the exact one for whole ones", () => {
  const values = [0, 1, 999, 1_000_000, 123_456_789, 20_617_283.5, 1 / 3, 3_141_592.6535, 7e12 / 7];
  for (const v of values) {
    for (const d of [1e3, 1e6, 1e9]) {
      assert.equal(fromShown(JSON.parse(JSON.stringify(v / d)), d), v, `${v} / ${d}`);
    }
  }
  // Times are whole ns: always exact. A fraction (an inter-token latency) divides back to the
  // same number, and so is the value or its neighbour (two floats can share a quotient).
  let exact = 0;
  for (let k = 1; k < 2000; k++) {
    const whole = k * 98_765_431;
    assert.equal(fromShown(JSON.parse(JSON.stringify(whole / 1e6)), 1e6), whole);
    const v = whole / (1 + (k % 13));
    const shown = JSON.parse(JSON.stringify(v / 1e6));
    const back = fromShown(shown, 1e6);
    assert.equal(back / 1e6, shown);
    assert.ok(Math.abs(back - v) <= Number.EPSILON * v, `${v} came back as ${back}`);
    if (back === v) exact++;
  }
  assert.ok(exact > 1900, `${exact} of 1999 exact`);
});

Deno.test("parseIsoUtc: reads isoUtc's text back to the microsecond", () => {
  const ns = 1_795_759_552_123_456_000n;
  assert.equal(parseIsoUtc(isoUtc(ns)), ns);
  assert.equal(parseIsoUtc("not a time"), null);
  assert.equal(parseIsoUtc(undefined), null);
});
