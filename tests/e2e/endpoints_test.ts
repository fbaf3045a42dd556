/**
 * Every endpoint type, end to end: an `inputs_json` dataset of that API's payloads, the CLI run
 * in-process through `main`, the built-in mock server in-process, and the artifacts checked.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { readRecords, runCli } from "./helpers.ts";

/** A record's metrics, in display units (ms for times). */
type Metrics = Record<string, { value: number | number[] }>;

/** What one CLI run left behind. */
interface Run {
  code: number;
  stderr: string;
  records: Record<string, unknown>[];
  summary: Record<string, unknown>;
  inputs: { data: { payloads: Record<string, unknown>[] }[] };
}

/** Writes `payloads` as one-turn sessions of an inputs_json file and profiles them. */
async function profile(
  url: string,
  endpointType: string,
  payloads: Record<string, unknown>[],
  extraArgs: string[] = [],
): Promise<Run> {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "inputs.json");
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        data: payloads.map((p, i) => ({ session_id: `s${i}`, payloads: [p] })),
      }),
    );
    const res = await runCli([
      "profile",
      "--url",
      url,
      "--model",
      "m",
      "--endpoint-type",
      endpointType,
      "--input-file",
      file,
      "--custom-dataset-type",
      "inputs_json",
      "--artifact-dir",
      join(dir, "out"),
      "--ui",
      "none",
      "--random-seed",
      "1",
      ...extraArgs,
    ]);
    const concurrency = extraArgs.includes("--concurrency")
      ? extraArgs[extraArgs.indexOf("--concurrency") + 1]
      : "1";
    const runDir = join(dir, "out", `m-openai-${endpointType}-concurrency${concurrency}`);
    let records: Record<string, unknown>[] = [];
    let summary: Record<string, unknown> = {};
    let inputs: Run["inputs"] = { data: [] };
    if (res.code === 0) {
      records = await readRecords(join(runDir, "profile_export.jsonl"));
      summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
      inputs = JSON.parse(await Deno.readTextFile(join(runDir, "inputs.json")));
    }
    return { code: res.code, stderr: res.stderr, records, summary, inputs };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function metric(r: Record<string, unknown>, tag: string): number | undefined {
  const v = (r.metrics as Metrics)[tag]?.value;
  return typeof v === "number" ? v : undefined;
}

/** Each record's value of `tag`, sorted (records finish in any order). */
function sorted(run: Run, tag: string): (number | undefined)[] {
  return run.records.map((r) => metric(r, tag)).sort((a, b) => (a ?? -1) - (b ?? -1));
}

function assertNoErrors(run: Run, n: number): void {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.records.length, n);
  for (const r of run.records) assert.equal(r.error, null, JSON.stringify(r.error));
}

const TTFT_MS = 30;

/** TTFT of every record at least the mock's, and an ITL once there is more than one token. */
function assertStreamTiming(run: Run): void {
  for (const r of run.records) {
    const ttft = metric(r, "time_to_first_token");
    assert.ok(ttft !== undefined, "TTFT missing");
    assert.ok(ttft >= TTFT_MS, `TTFT ${ttft} ms is below the mock's ${TTFT_MS} ms`);
    assert.ok(metric(r, "inter_token_latency") !== undefined, "ITL missing");
  }
}

/** The API shapes that generate text: payloads asking for 6 and 9 tokens. */
const GENERATORS: { type: string; payload: (max: number) => Record<string, unknown> }[] = [
  {
    type: "chat",
    payload: (max) => ({
      model: "m",
      messages: [{ role: "user", content: "Tell me a story" }],
      max_completion_tokens: max,
    }),
  },
  {
    type: "completions",
    payload: (max) => ({ model: "m", prompt: "Once upon a time", max_tokens: max }),
  },
  {
    type: "responses",
    payload: (max) => ({
      model: "m",
      input: [{ role: "user", content: "Tell me a story" }],
      instructions: "Be brief.",
      max_output_tokens: max,
    }),
  },
  {
    type: "messages",
    payload: (max) => ({
      model: "m",
      system: "Be brief.",
      messages: [{ role: "user", content: "Tell me a story" }],
      max_tokens: max,
    }),
  },
  {
    type: "huggingface_generate",
    payload: (max) => ({ inputs: "Once upon a time", parameters: { max_new_tokens: max } }),
  },
];

const SIZES = [6, 9];

for (const { type, payload } of GENERATORS) {
  Deno.test(`e2e ${type}: streaming and not, token counts equal the requested maximum`, async () => {
    const server = await startMockServer({ ttftMs: TTFT_MS, itlMs: 2 });
    try {
      const payloads = SIZES.map(payload);
      const streamed = await profile(server.url, type, payloads, ["--streaming"]);
      assertNoErrors(streamed, 2);
      assertStreamTiming(streamed);
      assert.deepEqual(sorted(streamed, "output_token_count"), SIZES);
      // No reasoning was sent: its count is absent, not zero.
      for (const r of streamed.records) {
        assert.equal(metric(r, "reasoning_token_count"), undefined);
      }

      const whole = await profile(server.url, type, payloads);
      assertNoErrors(whole, 2);
      assert.deepEqual(sorted(whole, "output_token_count"), SIZES);
      for (const r of whole.records) {
        assert.equal(metric(r, "time_to_first_token"), undefined);
        assert.ok((metric(r, "request_latency") ?? 0) >= TTFT_MS);
      }
      const paths = server.stats().byPath;
      if (type === "huggingface_generate") {
        // TGI streams by path, and its body gets no `stream` key.
        assert.deepEqual(paths, { "/generate_stream": 2, "/generate": 2 });
        for (const p of streamed.inputs.data.flatMap((d) => d.payloads)) {
          assert.equal("stream" in p, false);
        }
      } else {
        for (const p of streamed.inputs.data.flatMap((d) => d.payloads)) {
          assert.equal(p.stream, true);
        }
      }
    } finally {
      await server.close();
    }
  });
}

Deno.test("e2e --use-server-token-count: counts from usage; chat streams ask for it", async () => {
  const server = await startMockServer({ ttftMs: TTFT_MS, itlMs: 2 });
  try {
    const chat = GENERATORS[0].payload;
    const plain = await profile(server.url, "chat", SIZES.map(chat), ["--streaming"]);
    assertNoErrors(plain, 2);
    // Without the flag no stream_options is added, so the stream carries no usage.
    for (const r of plain.records) assert.equal(metric(r, "usage_completion_tokens"), undefined);

    const counted = await profile(server.url, "chat", SIZES.map(chat), [
      "--streaming",
      "--use-server-token-count",
    ]);
    assertNoErrors(counted, 2);
    for (const p of counted.inputs.data.flatMap((d) => d.payloads)) {
      assert.deepEqual(p.stream_options, { include_usage: true });
    }
    for (const r of counted.records) {
      const usageIn = metric(r, "usage_prompt_tokens");
      assert.ok(usageIn !== undefined && usageIn > 0, "usage missing from the stream");
      assert.equal(metric(r, "input_sequence_length"), usageIn);
      assert.equal(metric(r, "output_token_count"), metric(r, "usage_completion_tokens"));
    }
    assert.deepEqual(sorted(counted, "output_token_count"), SIZES);

    // A body that sets its own stream_options keeps it as it is.
    const own = await profile(server.url, "chat", [{
      ...chat(5),
      stream_options: { include_usage: false },
    }], ["--streaming", "--use-server-token-count"]);
    assertNoErrors(own, 1);
    assert.deepEqual(own.inputs.data[0].payloads[0].stream_options, { include_usage: false });
  } finally {
    await server.close();
  }
});

Deno.test("e2e responses --streaming: TTFT, ITL, output tokens from usage, reasoning tokens", async () => {
  const server = await startMockServer({ ttftMs: TTFT_MS, itlMs: 2, reasoningTokens: 8 });
  try {
    const run = await profile(server.url, "responses", SIZES.map(GENERATORS[2].payload), [
      "--streaming",
      "--use-server-token-count",
    ]);
    assertNoErrors(run, 2);
    assertStreamTiming(run);
    for (const r of run.records) {
      assert.equal(metric(r, "reasoning_token_count"), 8);
      assert.equal(metric(r, "usage_reasoning_tokens"), 8);
      // usage counts reasoning inside output tokens: output is what remains.
      assert.equal(
        metric(r, "output_token_count"),
        (metric(r, "usage_completion_tokens") ?? 0) - 8,
      );
    }
    assert.deepEqual(sorted(run, "output_token_count"), SIZES);
    const summary = run.summary as Record<string, { avg: number }>;
    assert.equal(summary.reasoning_token_count.avg, 8);
    assert.ok(summary.inter_token_latency.avg > 0);
  } finally {
    await server.close();
  }
});

Deno.test("e2e reasoning tokens: counted apart for chat, responses and messages", async () => {
  const server = await startMockServer({ ttftMs: 5, reasoningTokens: 8 });
  try {
    for (const { type, payload } of GENERATORS.slice(0, 4)) {
      if (type === "completions") continue; // the mock's completions send no reasoning
      const run = await profile(server.url, type, SIZES.map(payload), ["--streaming"]);
      assertNoErrors(run, 2);
      assert.deepEqual(sorted(run, "reasoning_token_count"), [8, 8], type);
      assert.deepEqual(sorted(run, "output_token_count"), SIZES, type);
    }
  } finally {
    await server.close();
  }
});

Deno.test("e2e token counts: the tokenizer's by default, the server's usage with the flag", async () => {
  // The usage deliberately disagrees with the text ("Hello there" is 2 tokens).
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    return Response.json({
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there" } }],
      usage: { prompt_tokens: 99, completion_tokens: 50, total_tokens: 149 },
    });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  try {
    const payloads = [GENERATORS[0].payload(4)];
    const client = await profile(url, "chat", payloads);
    assertNoErrors(client, 1);
    assert.equal(metric(client.records[0], "output_token_count"), 2);
    assert.notEqual(metric(client.records[0], "input_sequence_length"), 99);

    const usage = await profile(url, "chat", payloads, [
      "--use-server-token-count",
    ]);
    assertNoErrors(usage, 1);
    assert.equal(metric(usage.records[0], "output_token_count"), 50);
    assert.equal(metric(usage.records[0], "input_sequence_length"), 99);
  } finally {
    await server.shutdown();
  }
});

/** The API shapes whose answers are not tokens, with one payload each. */
const NON_TOKEN: { type: string; payload: Record<string, unknown> }[] = [
  { type: "embeddings", payload: { model: "m", input: ["a cat", "a dog"] } },
  {
    type: "chat_embeddings",
    payload: { model: "m", messages: [{ role: "user", content: "a cat" }] },
  },
  { type: "nim_embeddings", payload: { model: "m", input: ["a cat"], input_type: "query" } },
  {
    type: "nim_rankings",
    payload: { model: "m", query: { text: "cats" }, passages: [{ text: "a cat" }, { text: "x" }] },
  },
  {
    type: "cohere_rankings",
    payload: { model: "m", query: "cats", documents: ["a cat", "a dog"] },
  },
  { type: "hf_tei_rankings", payload: { query: "cats", texts: ["a cat", "a dog"] } },
];

Deno.test("e2e embeddings and rankings: every type answers without errors", async () => {
  const server = await startMockServer({ ttftMs: 5 });
  try {
    for (const { type, payload } of NON_TOKEN) {
      // --streaming is ignored by APIs that cannot stream: no `stream` key, no TTFT.
      const run = await profile(server.url, type, [payload, payload], ["--streaming"]);
      assertNoErrors(run, 2);
      for (const r of run.records) {
        assert.ok((metric(r, "request_latency") ?? 0) >= 5, type);
        assert.equal(metric(r, "time_to_first_token"), undefined, type);
        assert.equal(metric(r, "output_token_count"), undefined, type);
      }
      assert.equal("stream" in run.inputs.data[0].payloads[0], false, type);
    }
    const paths = server.stats().byPath;
    assert.deepEqual(paths, {
      "/v1/embeddings": 6,
      "/v1/ranking": 2,
      "/v2/rerank": 2,
      "/rerank": 2,
    });
  } finally {
    await server.close();
  }
});

Deno.test("e2e raw: the full URL as given, answers detected or selected by response_field", async () => {
  const server = await startMockServer({ ttftMs: TTFT_MS, itlMs: 2 });
  try {
    const url = `${server.url}/v1/chat/completions`;
    const body = (max: number, stream?: boolean) => ({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: max,
      ...(stream === undefined ? {} : { stream }),
    });
    // Raw bodies are the user's: --streaming adds nothing, the body asks to stream.
    const streamed = await profile(url, "raw", SIZES.map((n) => body(n, true)), [
      "--streaming",
    ]);
    assertNoErrors(streamed, 2);
    assertStreamTiming(streamed);
    assert.deepEqual(sorted(streamed, "output_token_count"), SIZES);

    const whole = await profile(url, "raw", SIZES.map((n) => body(n)), ["--streaming"]);
    assertNoErrors(whole, 2);
    assert.equal("stream" in whole.inputs.data[0].payloads[0], false);
    assert.deepEqual(sorted(whole, "output_token_count"), SIZES);

    const selected = await profile(url, "raw", SIZES.map((n) => body(n)), [
      "--extra-inputs",
      "response_field:choices[0].message.content",
    ]);
    assertNoErrors(selected, 2);
    assert.deepEqual(sorted(selected, "output_token_count"), SIZES);
    assert.deepEqual(server.stats().byPath, { "/v1/chat/completions": 6 });

    const bad = await profile(url, "raw", [body(3)], [
      "--extra-inputs",
      "response_field:choices[0",
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /response_field/);
  } finally {
    await server.close();
  }
});

Deno.test("e2e errors: a seeded 50% error rate is recorded with the server's message; exit 0", async () => {
  const server = await startMockServer({ ttftMs: 1, errorRate: 0.5, seed: 7 });
  try {
    const payloads = Array.from({ length: 12 }, () => GENERATORS[0].payload(4));
    const run = await profile(server.url, "chat", payloads, ["--streaming", "--concurrency", "3"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.records.length, 12);
    const failed = run.records.filter((r) => r.error !== null);
    assert.ok(failed.length > 0 && failed.length < 12, `${failed.length} of 12 failed`);
    const errors = run.summary.error_summary as {
      error_details: { code: number; type: string; message: string };
      count: number;
    }[];
    assert.equal(errors.length, 1);
    assert.equal(errors[0].count, failed.length);
    assert.equal(errors[0].error_details.code, 500);
    assert.match(errors[0].error_details.message, /failed this request on purpose/);
  } finally {
    await server.close();
  }
});

/** A server answering in turn: HTTP error, `event: error`, `response.failed`, an empty 200, a good stream. */
function faultyResponsesServer(): { url: string; close(): Promise<void> } {
  let n = 0;
  const sse = (text: string) =>
    new Response(text, { headers: { "content-type": "text/event-stream" } });
  const ev = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    switch (n++ % 5) {
      case 0:
        return Response.json(
          { error: { message: "overloaded: try later", type: "server_error" } },
          {
            status: 503,
          },
        );
      case 1:
        return sse(`event: error\ndata: {"error":{"message":"stream broke down"}}\n\n`);
      case 2:
        return sse(
          ev("response.created", { response: { status: "in_progress" } }) +
            ev("response.failed", {
              response: { status: "failed", error: { code: "server_error", message: "ran out" } },
            }),
        );
      case 3:
        return sse(ev("response.completed", { response: { usage: { output_tokens: 0 } } }));
      default:
        return sse(
          ev("response.output_text.delta", { item_id: "m", delta: "Hello" }) +
            ev("response.output_text.delta", { item_id: "m", delta: " there" }) +
            ev("response.completed", { response: { usage: { output_tokens: 2 } } }),
        );
    }
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("e2e errors: HTTP error, event: error, response.failed and an empty 200 are records", async () => {
  const faulty = faultyResponsesServer();
  try {
    const payloads = Array.from({ length: 5 }, () => GENERATORS[2].payload(4));
    const run = await profile(faulty.url, "responses", payloads, ["--streaming"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.records.length, 5);
    assert.equal(run.records.filter((r) => r.error === null).length, 1);
    const messages = (run.summary.error_summary as { error_details: { message: string } }[])
      .map((e) => e.error_details.message).join("\n");
    for (const m of ["overloaded: try later", "stream broke down", "ran out", "no text"]) {
      assert.ok(messages.includes(m), `error_summary lacks "${m}":\n${messages}`);
    }
  } finally {
    await faulty.close();
  }
});
