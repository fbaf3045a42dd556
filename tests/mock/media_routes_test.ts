import assert from "node:assert/strict";
import { startMockServer } from "../../src/mock/server.ts";
import { TINY_PNG } from "../../src/mock/image_check.ts";

const PNG = Uint8Array.from(atob(TINY_PNG), (c) => c.charCodeAt(0));

Deno.test("mock images: streamed events in order, bad requests answered 400", async () => {
  const server = await startMockServer({ ttftMs: 1, itlMs: 1 });
  try {
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const res = await post("/v1/images/generations", {
      prompt: "a cat",
      stream: true,
      n: 2,
      partial_images: 1,
    });
    assert.match(res.headers.get("content-type")!, /text\/event-stream/);
    const events = [...(await res.text()).matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    assert.deepEqual(events, [
      "image_generation.partial_image",
      "image_generation.completed",
      "image_generation.partial_image",
      "image_generation.completed",
    ]);
    const whole = await (await post("/v1/images/generations", { prompt: "a cat" })).json();
    assert.equal(whole.data.length, 1);
    assert.equal(whole.data[0].b64_json, TINY_PNG);
    for (
      const bad of [{}, { prompt: "x", n: 11 }, { prompt: "x", stream: true, partial_images: 4 }]
    ) {
      const r = await post("/v1/images/generations", bad);
      assert.equal(r.status, 400);
      await r.body?.cancel();
    }

    // Edits: a form with a decodable image; JSON or junk bytes are refused.
    const form = (image: Uint8Array) => {
      const f = new FormData();
      f.append("prompt", "snow");
      f.append("image", new Blob([image.slice()], { type: "image/png" }), "a.png");
      return f;
    };
    const ok = await fetch(`${server.url}/v1/images/edits`, { method: "POST", body: form(PNG) });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).data.length, 1);
    const junk = await fetch(`${server.url}/v1/images/edits`, {
      method: "POST",
      body: form(new Uint8Array([1, 2, 3])),
    });
    assert.equal(junk.status, 400);
    assert.match((await junk.json()).error.message, /not a PNG/);
    const json = await post("/v1/images/edits", { prompt: "snow" });
    assert.equal(json.status, 400);
    await json.body?.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("mock videos: queued, then completed with the server's figures; content once done", async () => {
  const server = await startMockServer({ ttftMs: 30, itlMs: 10 });
  try {
    const job = await (await fetch(`${server.url}/v1/videos`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: "waves", seconds: 2 }),
    })).json();
    assert.equal(job.object, "video");
    assert.equal(job.status, "queued");
    assert.match(job.id, /^video_/);
    const early = await fetch(`${server.url}/v1/videos/${job.id}/content`);
    assert.equal(early.status, 409);
    await early.body?.cancel();
    let status = job;
    for (let i = 0; i < 200 && status.status !== "completed"; i++) {
      await new Promise((r) => setTimeout(r, 5));
      status = await (await fetch(`${server.url}/v1/videos/${job.id}`)).json();
    }
    assert.equal(status.status, "completed");
    assert.equal(status.progress, 100);
    assert.equal(status.peak_memory_mb, 1024);
    assert.ok(status.inference_time_s >= 0.009);
    const content = await fetch(`${server.url}/v1/videos/${job.id}/content`);
    assert.equal(content.headers.get("content-type"), "video/mp4");
    assert.equal((await content.arrayBuffer()).byteLength, 24);
    const unknown = await fetch(`${server.url}/v1/videos/video_none`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  } finally {
    await server.close();
  }
});
