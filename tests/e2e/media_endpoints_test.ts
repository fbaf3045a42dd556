/**
 * The media endpoints end to end against the built-in mock: image generation (streamed partial
 * images and not), image edits (a multipart form the mock decodes), video jobs (polled, then
 * downloaded), the template endpoint, and chat/NIM embeddings carrying images.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockServer } from "../../src/mock/server.ts";
import { TINY_PNG } from "../../src/mock/image_check.ts";
import { readRecords, runCli, startCli } from "./helpers.ts";

type Metrics = Record<string, { value: number | number[] }>;

interface Run {
  code: number;
  stderr: string;
  records: Record<string, unknown>[];
  summary: Record<string, { avg?: number; unit?: string } | unknown>;
  csv: string;
  inputs: { data: { payloads: Record<string, unknown>[] }[] };
}

/** Profiles `endpointType` on `url` with `args`; reads the run's artifacts when it succeeded. */
async function profile(
  url: string,
  endpointType: string,
  args: string[],
  env: Record<string, string> = {},
  files: Record<string, string | Uint8Array> = {},
): Promise<Run> {
  const dir = await Deno.makeTempDir();
  try {
    for (const [name, content] of Object.entries(files)) {
      const path = join(dir, name);
      if (typeof content === "string") await Deno.writeTextFile(path, content);
      else await Deno.writeFile(path, content);
    }
    const out = join(dir, "out");
    const res = await runCli([
      "profile",
      "--url",
      url,
      "--model",
      "m",
      "--endpoint-type",
      endpointType,
      "--artifact-dir",
      out,
      "--ui",
      "none",
      "--random-seed",
      "1",
      "--tokenizer",
      "builtin",
      ...args.map((a) => a.replaceAll("$DIR", dir)),
    ], { env });
    const run: Run = {
      code: res.code,
      stderr: res.stderr,
      records: [],
      summary: {},
      csv: "",
      inputs: { data: [] },
    };
    // Every request failing is exit code 1, with the artifacts written all the same.
    if (res.code === 0 || res.code === 1) {
      const runDir = join(out, (await Array.fromAsync(Deno.readDir(out)))[0].name);
      run.records = await readRecords(join(runDir, "profile_export.jsonl"));
      run.summary = JSON.parse(await Deno.readTextFile(join(runDir, "profile_export_aiperf.json")));
      run.csv = await Deno.readTextFile(join(runDir, "profile_export_aiperf.csv"));
      run.inputs = JSON.parse(await Deno.readTextFile(join(runDir, "inputs.json")));
    }
    return run;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function metric(r: Record<string, unknown>, tag: string): number | undefined {
  const v = (r.metrics as Metrics)[tag]?.value;
  return typeof v === "number" ? v : undefined;
}

function assertNoErrors(run: Run, n: number): void {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.records.length, n);
  for (const r of run.records) assert.equal(r.error, null, JSON.stringify(r.error));
}

function payloads(run: Run): Record<string, unknown>[] {
  return run.inputs.data.flatMap((d) => d.payloads);
}

const PNG_BYTES = Uint8Array.from(atob(TINY_PNG), (c) => c.charCodeAt(0));
const SYNTHETIC = ["--isl", "8", "--request-count", "2", "--concurrency", "1"];

Deno.test("e2e image_generation: streamed partial images and whole answers, images counted", async () => {
  const server = await startMockServer({ ttftMs: 20, itlMs: 5 });
  try {
    const streamed = await profile(server.url, "image_generation", [
      ...SYNTHETIC,
      "--streaming",
      "--extra-inputs",
      "partial_images:2",
      "--extra-inputs",
      "n:2",
    ]);
    assertNoErrors(streamed, 2);
    for (const p of payloads(streamed)) {
      assert.equal(p.stream, true);
      assert.equal(p.response_format, "b64_json");
      assert.equal(p.n, 2);
      assert.equal(typeof p.prompt, "string");
    }
    for (const r of streamed.records) {
      assert.equal(metric(r, "num_images"), 2);
      const latency = metric(r, "request_latency")!;
      // Two images of 3 events each, 5 ms apart after the first at 20 ms.
      assert.ok(latency >= 20 + 5 * 5, `latency ${latency} ms`);
      assert.ok(Math.abs(metric(r, "image_latency")! - latency / 2) < 1e-6);
      assert.ok(Math.abs(metric(r, "image_throughput")! - 2 / (latency / 1000)) < 1e-6);
    }
    assert.match(streamed.csv, /^Image Latency \(ms\/image\),/m);
    assert.equal((streamed.summary.image_latency as { unit: string }).unit, "ms/image");

    // A stream cut before its finished image (the mock's truncate fault) is an error.
    const cut = await profile(`${server.url}/fault/truncate`, "image_generation", [
      ...SYNTHETIC,
      "--streaming",
      "--extra-inputs",
      "partial_images:1",
    ]);
    assert.equal(cut.code, 1, cut.stderr);
    for (const r of cut.records) {
      assert.equal((r.error as { type: string }).type, "StreamTruncated");
    }

    const whole = await profile(server.url, "image_generation", SYNTHETIC);
    assertNoErrors(whole, 2);
    for (const p of payloads(whole)) assert.equal("stream" in p, false);
    for (const r of whole.records) assert.equal(metric(r, "num_images"), 1);
    assert.equal(server.stats().byPath["/v1/images/generations"], 4);
  } finally {
    await server.close();
  }
});

Deno.test("e2e image_edit: the reference image goes as a multipart file the mock decodes", async () => {
  const server = await startMockServer({ ttftMs: 5, itlMs: 1 });
  try {
    const lines = [
      { text: "Make it a watercolor", image: "ref.png" },
      { text: "Add snow", image: `data:image/png;base64,${TINY_PNG}` },
    ].map((l) => JSON.stringify(l)).join("\n");
    // Both HTTP clients send the form.
    for (const transport of ["fetch", "http1"]) {
      const run = await profile(
        server.url,
        "image_edit",
        [
          "--input-file",
          "$DIR/edits.jsonl",
          "--custom-dataset-type",
          "single_turn",
          "--request-count",
          "2",
          "--extra-inputs",
          "size:512x512",
          "--request-content-type",
          "multipart/form-data",
          "--transport",
          transport,
        ],
        {},
        { "edits.jsonl": lines, "ref.png": PNG_BYTES },
      );
      assertNoErrors(run, 2);
      for (const p of payloads(run)) {
        assert.equal(p.image, `data:image/png;base64,${TINY_PNG}`);
        assert.equal(p.size, "512x512");
      }
      for (const r of run.records) assert.equal(metric(r, "num_images"), 1);
    }
    assert.equal(server.stats().byPath["/v1/images/edits"], 4);

    const args = ["--input-file", "$DIR/in.jsonl", "--custom-dataset-type", "single_turn"];
    // An image of no image type is the dataset's error: nothing is sent.
    const unknown = await profile(server.url, "image_edit", [...args, "--request-count", "1"], {}, {
      "in.jsonl": JSON.stringify({ text: "x", image: "data:text/plain;base64,AAAA" }),
    });
    assert.equal(unknown.code, 3, unknown.stderr);
    assert.match(unknown.stderr, /not a recognized image/);
    assert.equal(server.stats().byPath["/v1/images/edits"], 4);
    // Bytes said to be a PNG that are not: the mock's decoding finds out.
    const bad = await profile(server.url, "image_edit", [...args, "--request-count", "1"], {}, {
      "in.jsonl": JSON.stringify({ text: "x", image: "data:image/png;base64,AAAA" }),
    });
    assert.equal(bad.code, 1, bad.stderr);
    const error = bad.records[0].error as { code: number; message: string };
    assert.equal(error.code, 400);
    assert.match(error.message, /not a PNG/);
  } finally {
    await server.close();
  }
});

Deno.test("e2e video_generation: the job is polled to completion, then downloaded on request", async () => {
  // A 3-second video takes 20 ms to start and 10 ms more per second.
  const server = await startMockServer({ ttftMs: 20, itlMs: 10 });
  const env = { AIPERF_HTTP_VIDEO_POLL_INTERVAL: "0.01" };
  try {
    const args = [...SYNTHETIC, "--extra-inputs", "seconds:3", "--extra-inputs", "size:64x64"];
    const run = await profile(server.url, "video_generation", args, env);
    assertNoErrors(run, 2);
    for (const p of payloads(run)) {
      assert.equal(p.seconds, 3);
      assert.equal(p.size, "64x64");
      assert.equal(typeof p.prompt, "string");
    }
    for (const r of run.records) {
      const latency = metric(r, "request_latency")!;
      assert.ok(latency >= 40, `latency ${latency} ms: the job was not followed to its end`);
      const inference = metric(r, "video_inference_time")!;
      assert.ok(inference >= 15 && inference <= latency, `inference ${inference} ms`);
      assert.equal(metric(r, "video_peak_memory"), 1024);
    }
    assert.equal((run.summary.video_inference_time as { unit: string }).unit, "ms");
    assert.match(run.csv, /^Video Peak Memory \(MB\),/m);
    const paths = server.stats().byPath;
    assert.equal(paths["/v1/videos"], 2);
    const polls = Object.entries(paths).filter(([p]) => /^\/v1\/videos\/video_[^/]+$/.test(p));
    assert.equal(polls.length, 2);
    for (const [, n] of polls) assert.ok(n >= 2, `only ${n} polls`);
    assert.equal(Object.keys(paths).some((p) => p.endsWith("/content")), false);

    const downloaded = await profile(server.url, "video_generation", [
      ...args,
      "--download-video-content",
      "--verbose",
    ], env);
    assertNoErrors(downloaded, 2);
    assert.match(downloaded.stderr, /plan: video jobs polled every 10 ms, each video downloaded/);
    const contents = Object.entries(server.stats().byPath).filter(([p]) => p.endsWith("/content"));
    assert.equal(contents.length, 2);
  } finally {
    await server.close();
  }
});

Deno.test("e2e template: inline, named and file templates, streamed or not, answers detected or picked", async () => {
  const server = await startMockServer({ ttftMs: 10, itlMs: 1 });
  try {
    const chat = await profile(`${server.url}/v1/chat/completions`, "template", [
      ...SYNTHETIC,
      "--streaming",
      "--extra-inputs",
      'payload_template:{"model": {{ model|tojson }}, "messages": [{"role": "user", "content": {{ text|tojson }}}], "stream": {{ stream|lower }}, "max_tokens": 5}',
      "--extra-inputs",
      "temperature:0",
    ]);
    assertNoErrors(chat, 2);
    for (const p of payloads(chat)) {
      assert.equal(p.stream, true);
      assert.equal(p.temperature, 0);
      assert.equal(p.max_tokens, 5);
    }
    for (const r of chat.records) {
      assert.equal(metric(r, "output_token_count"), 5);
      assert.ok(metric(r, "time_to_first_token")! >= 10);
    }

    const file = await profile(
      `${server.url}/v1/embeddings`,
      "template",
      [
        ...SYNTHETIC,
        "--extra-inputs",
        "payload_template:$DIR/embed.json",
        "--extra-inputs",
        "response_field:data[0].embedding",
      ],
      {},
      { "embed.json": '{"model": {{ model|tojson }}, "input": {{ texts|tojson }}}' },
    );
    assertNoErrors(file, 2);
    for (const p of payloads(file)) assert.ok(Array.isArray(p.input));

    // The named template sends `{"text": [...]}`, which the mock's embeddings do not take.
    const named = await profile(`${server.url}/v1/embeddings`, "template", [
      ...SYNTHETIC,
      "--extra-inputs",
      "payload_template:nv-embedqa",
    ]);
    assert.equal(named.code, 1, named.stderr);
    for (const p of payloads(named)) assert.deepEqual(Object.keys(p), ["text"]);
    for (const r of named.records) assert.equal((r.error as { code: number }).code, 400);

    const missing = await profile(server.url, "template", SYNTHETIC);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /payload_template/);
  } finally {
    await server.close();
  }
});

Deno.test("e2e chat_embeddings and nim_embeddings: images reach the mock, which decodes them", async () => {
  const server = await startMockServer({ ttftMs: 5, itlMs: 1 });
  try {
    const good = JSON.stringify({ text: "a cat", image: "cat.png" });
    for (const type of ["chat_embeddings", "nim_embeddings"]) {
      const run = await profile(
        server.url,
        type,
        [
          "--input-file",
          "$DIR/in.jsonl",
          "--custom-dataset-type",
          "single_turn",
          "--request-count",
          "1",
        ],
        {},
        { "in.jsonl": good, "cat.png": PNG_BYTES },
      );
      assertNoErrors(run, 1);
      // The image is no text: the prompt's tokens are those of "a cat" alone.
      assert.equal(metric(run.records[0], "usage_prompt_tokens"), 2);
      const body = JSON.stringify(payloads(run)[0]);
      assert.ok(body.includes(TINY_PNG), `${type} sent no image: ${body.slice(0, 200)}`);
    }
    // Bytes that are no image: the mock says so.
    const bad = JSON.stringify({ text: "a cat", image: "data:image/png;base64,AAAA" });
    for (const type of ["chat_embeddings", "nim_embeddings"]) {
      const run = await profile(
        server.url,
        type,
        [
          "--input-file",
          "$DIR/in.jsonl",
          "--custom-dataset-type",
          "single_turn",
          "--request-count",
          "1",
        ],
        {},
        { "in.jsonl": bad },
      );
      assert.equal(run.code, 1, run.stderr);
      const error = run.records[0].error as { code: number; message: string };
      assert.equal(error.code, 400);
      assert.match(error.message, /not a PNG/);
    }
  } finally {
    await server.close();
  }
});

Deno.test("e2e video_generation: the video metrics reach the live API's /metrics", async () => {
  const server = await startMockServer({ ttftMs: 10, itlMs: 5 });
  const dir = await Deno.makeTempDir();
  const run = startCli([
    "profile",
    "--url",
    server.url,
    "--model",
    "m",
    "--tokenizer",
    "builtin",
    "--endpoint-type",
    "video_generation",
    ...SYNTHETIC,
    "--api-port",
    "0",
    "--api-linger-seconds",
    "5",
    "--artifact-dir",
    dir,
    "--ui",
    "none",
  ], { env: { AIPERF_HTTP_VIDEO_POLL_INTERVAL: "0.01" } });
  try {
    let api: string | undefined;
    for (let i = 0; i < 500 && api === undefined; i++) {
      api = /live API on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1];
      if (api === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(api, run.stderr());
    let status = "";
    for (let i = 0; i < 500 && status !== "complete"; i++) {
      status = (await (await fetch(`${api}/api/results`)).json()).status;
      if (status !== "complete") await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, "complete");
    const metrics = await (await fetch(`${api}/metrics`)).text();
    assert.match(metrics, /^aiperf_video_inference_time_ms\{.*quantile="0.5".*\} \d/m);
    assert.match(metrics, /^aiperf_video_peak_memory_avg_mb\{.*\} 1024$/m);
    run.interrupt();
    assert.equal((await run.done()).code, 0);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
