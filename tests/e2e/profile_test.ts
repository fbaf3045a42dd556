import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "../../src/mock/server.ts";
import { replayBody } from "../../src/endpoints/replay_body.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { readRecords, runCli } from "./helpers.ts";

const PAYLOADS = fileURLToPath(
  new URL("../../examples/payloads.jsonl", import.meta.url),
);

/** How late the client may read a token the mock sent, on any machine this suite runs on. */
const LATE_MS = 50;

Deno.test("profile replays raw payloads against the mock server and writes every artifact", async () => {
  const dir = await Deno.makeTempDir();
  const timingLog = join(dir, "mock_timing.jsonl");
  const server = await startMockServer({ ttftMs: 50, itlMs: 10, outputTokens: 64, timingLog });
  try {
    const res = await runCli([
      "profile",
      "--url",
      server.url.replace("http://", ""),
      "--model",
      "Qwen/Qwen3-0.6B",
      "--input-file",
      PAYLOADS,
      "--custom-dataset-type",
      "raw_payload",
      "--streaming",
      "--concurrency",
      "2",
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ]);
    assert.equal(res.code, 0, res.stderr);
    const runDir = join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency2");
    for (
      const f of [
        "profile_export_aiperf.json",
        "profile_export_aiperf.csv",
        "profile_export.jsonl",
        "inputs.json",
      ]
    ) {
      const st = await Deno.stat(join(runDir, f));
      assert.ok(st.size > 0, `${f} is empty`);
    }
    assert.match(res.stdout, /Time to First Token/i);

    const records = await readRecords(join(runDir, "profile_export.jsonl"));
    assert.equal(records.length, 3);
    for (const r of records) assert.equal(r.error, null);

    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    assert.equal(summary.request_count.avg, 3);
    // The mock waits 50 ms before the first token: no TTFT can be shorter. How much longer is
    // the mock's own lateness plus the client's: the client's part is checked against the
    // mock's log of when it really sent each first token.
    const ttft = summary.time_to_first_token.p50;
    assert.ok(ttft >= 49, `TTFT p50 ${ttft} ms is shorter than the mock's 50 ms`);
    await server.close();
    const sent = new Map(
      (await Deno.readTextFile(timingLog)).split("\n").filter((l) => l).map((l) => {
        const s = JSON.parse(l);
        return [
          s.request_id,
          s as { first_token_ns: number; last_token_ns: number; tokens: number },
        ];
      }),
    );
    const itls: number[] = [];
    for (const r of records) {
      const meta = r.metadata as { x_request_id: string; request_start_ns: number };
      const log = sent.get(meta.x_request_id);
      assert.ok(log, `the mock logged no answer for ${meta.x_request_id}`);
      const metrics = r.metrics as Record<string, { value: number }>;
      const reported = metrics.time_to_first_token.value;
      const truth = (log.first_token_ns - meta.request_start_ns) / 1e6;
      // Both clocks are epoch time on this machine; the JSON numbers keep about 0.3 µs of it.
      // The client reads the first token some time after the mock sent it: under a millisecond
      // on an idle machine, a few on a busy one; LATE_MS is far beyond either.
      assert.ok(
        reported >= truth - 0.5 && reported < truth + LATE_MS,
        `TTFT ${reported} ms against ${truth} ms from the mock's log`,
      );
      // ITL spreads the answer's span over its 99 or more gaps: the client reading the first and
      // the last token late by different amounts moves it by their difference over the gaps. A
      // loaded machine can hold one read back by tens of milliseconds; 4 * LATE_MS is past that.
      assert.equal(log.tokens, metrics.output_sequence_length.value);
      const itl = metrics.inter_token_latency.value;
      const truthItl = (log.last_token_ns - log.first_token_ns) / 1e6 / (log.tokens - 1);
      assert.ok(
        Math.abs(itl - truthItl) * (log.tokens - 1) < 4 * LATE_MS,
        `ITL ${itl} ms against ${truthItl} ms from the mock's log`,
      );
      itls.push(itl);
    }
    const itl = summary.inter_token_latency.p50;
    assert.ok(
      itl >= Math.min(...itls) && itl <= Math.max(...itls),
      `ITL p50 ${itl} ms is outside the records' ${itls}`,
    );
    // max_tokens of each payload decides the answer length; the mock's tokens are single tokens.
    const osl = records.map((r) =>
      (r.metrics as Record<string, { value: number }>).output_sequence_length.value
    ).sort((a, b) => a - b);
    assert.deepEqual(osl, [100, 150, 200]);

    // inputs.json holds the exact bodies sent: each line, with only `"stream":true` added.
    const inputsText = await Deno.readTextFile(join(runDir, "inputs.json"));
    const lines = (await Deno.readTextFile(PAYLOADS)).split("\n").filter((l) => l.trim());
    for (const line of lines) {
      const sent = replayBody(line, getEndpoint("chat"), {
        streaming: true,
        useServerTokenCount: false,
      });
      assert.equal(sent, line.slice(0, -1) + ',"stream":true}');
      assert.ok(inputsText.includes(sent), `inputs.json lacks ${line}`);
    }
    const inputs = JSON.parse(inputsText);
    assert.equal(inputs.data.length, 3);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("profile without --streaming sends each payload byte for byte", async () => {
  const server = await startMockServer({ outputTokens: 8 });
  const dir = await Deno.makeTempDir();
  try {
    const res = await runCli([
      "profile",
      "--url",
      server.url,
      "--input-file",
      PAYLOADS,
      "--artifact-dir",
      dir,
      "--ui",
      "none",
      "-v",
    ]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /plan: 3 conversations \(3 turns\) from raw_payload/);
    const runDir = join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency1");
    const inputsText = await Deno.readTextFile(join(runDir, "inputs.json"));
    const lines = (await Deno.readTextFile(PAYLOADS)).split("\n").filter((l) => l.trim());
    for (const line of lines) assert.ok(inputsText.includes(line));
    const records = await readRecords(join(runDir, "profile_export.jsonl"));
    assert.equal(records.length, 3);
    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    assert.equal(summary.time_to_first_token, undefined, "TTFT is a streaming metric");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a payload that asks to stream is read as a stream without --streaming", async () => {
  const server = await startMockServer({ ttftMs: 5, itlMs: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const data = join(dir, "streamed.jsonl");
    const line =
      '{"messages": [{"role": "user", "content": "hi"}], "model": "m", "max_tokens": 6, "stream": true}';
    await Deno.writeTextFile(data, line + "\n");
    const res = await runCli([
      "profile",
      "--url",
      server.url,
      "--input-file",
      data,
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ]);
    assert.equal(res.code, 0, res.stderr);
    const runDir = join(dir, "m-openai-chat-concurrency1");
    const [record] = await readRecords(join(runDir, "profile_export.jsonl"));
    assert.equal(record.error, null);
    const metrics = record.metrics as Record<string, { value: number }>;
    assert.equal(metrics.output_sequence_length.value, 6);
    assert.ok(metrics.time_to_first_token.value >= 5);
    assert.ok((await Deno.readTextFile(join(runDir, "inputs.json"))).includes(line));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a malformed dataset line stops the run before any request, naming file and line", async () => {
  const server = await startMockServer();
  const dir = await Deno.makeTempDir();
  try {
    const bad = join(dir, "bad.jsonl");
    await Deno.writeTextFile(
      bad,
      '{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [oops\n',
    );
    const res = await runCli([
      "profile",
      "--url",
      server.url,
      "--input-file",
      bad,
      "--custom-dataset-type",
      "raw_payload",
      "--artifact-dir",
      dir,
    ]);
    assert.equal(res.code, 3);
    assert.match(res.stderr, /bad\.jsonl/);
    assert.match(res.stderr, /line 2/);
    assert.equal(server.stats().requests, 0);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unknown flag is an error that suggests the nearest known one", async () => {
  const res = await runCli(["profile", "--concurency", "2"]);
  assert.equal(res.code, 2);
  assert.match(res.stderr, /--concurency/);
  assert.match(res.stderr, /did you mean --concurrency/);
});

Deno.test("a server that cannot be reached ends with its own exit code", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Bind and close a listener to get a port nothing listens on.
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const res = await runCli([
      "profile",
      "--url",
      `127.0.0.1:${port}`,
      "--input-file",
      PAYLOADS,
      "--artifact-dir",
      dir,
      "--ui",
      "none",
    ]);
    assert.equal(res.code, 4, res.stderr);
    assert.match(res.stderr, /every request failed/);
    const runDir = join(dir, "Qwen_Qwen3-0.6B-openai-chat-concurrency1");
    const summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
    assert.equal(summary.error_summary[0].count, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
