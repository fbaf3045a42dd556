import assert from "node:assert/strict";
import { loadDataset } from "../../../src/dataset/mod.ts";
import { getEndpoint } from "../../../src/endpoints/mod.ts";
import type { BodyFormat } from "../../../src/dataset/build.ts";
import { rejectsWith, withTempDir, write } from "../helpers.ts";

const format = (type = "chat"): BodyFormat => ({
  endpoint: getEndpoint(type),
  options: {
    model: "m",
    streaming: false,
    extraInputs: {},
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
  },
});

Deno.test("single_turn video(s): a local file is sent as a data URL of its type, a URL as it is, in chat video_url parts", async () => {
  await withTempDir(async (dir) => {
    await write(dir, "clip.webm", new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 1, 2, 3]));
    const file = await write(
      dir,
      "in.jsonl",
      JSON.stringify({ text: "What happens?", videos: ["clip.webm", "https://x.test/v.mp4"] }) +
        "\n",
    );
    const ds = await loadDataset(file, { type: "single_turn", format: format(), seed: 1 });
    const parts = JSON.parse(ds.conversations[0].turns[0].body).messages[0].content;
    assert.deepEqual(parts.slice(1), [
      { type: "video_url", video_url: { url: "data:video/webm;base64,GkXfowECAw==" } },
      { type: "video_url", video_url: { url: "https://x.test/v.mp4" } },
    ]);
    await rejectsWith(
      loadDataset(file, { type: "single_turn", format: format("responses"), seed: 1 }),
      "the responses endpoint cannot send videos",
    );
  });
});

Deno.test("image_uuids: each image part of a chat body carries its id; ids must pair one to one with images", async () => {
  await withTempDir(async (dir) => {
    const file = await write(
      dir,
      "in.jsonl",
      JSON.stringify({
        text: "Compare.",
        images: ["https://x.test/a.png", "https://x.test/b.png"],
        image_uuids: ["sku-a", "sku-b"],
      }) + "\n",
    );
    const ds = await loadDataset(file, { type: "single_turn", format: format(), seed: 1 });
    const parts = JSON.parse(ds.conversations[0].turns[0].body).messages[0].content;
    assert.deepEqual(parts.slice(1), [
      { type: "image_url", image_url: { url: "https://x.test/a.png" }, uuid: "sku-a" },
      { type: "image_url", image_url: { url: "https://x.test/b.png" }, uuid: "sku-b" },
    ]);
    const bad = await write(
      dir,
      "bad.jsonl",
      JSON.stringify({ text: "x", images: ["https://x.test/a.png"], image_uuids: ["a", "b"] }) +
        "\n",
    );
    await rejectsWith(
      loadDataset(bad, { type: "single_turn", format: format(), seed: 1 }),
      "bad.jsonl",
      'line 1: "image_uuids" has 2 ids for 1 image(s)',
    );
  });
});

Deno.test("--uuid-and-strip: within a session, an image whose id was sent before goes as its id alone", async () => {
  await withTempDir(async (dir) => {
    const line = (session: string, text: string) =>
      JSON.stringify({
        session_id: session,
        text,
        images: ["https://x.test/a.png", "https://x.test/b.png"],
        image_uuids: ["a", "b"],
      });
    const file = await write(
      dir,
      "in.jsonl",
      [line("s1", "one"), line("s1", "two"), line("s2", "three")].join("\n") + "\n",
    );
    const imageParts = (body: string) =>
      JSON.parse(body).messages.at(-1).content.filter((p: { type: string }) =>
        p.type === "image_url"
      );
    const stripped = await loadDataset(file, {
      type: "single_turn",
      format: format(),
      seed: 1,
      uuidAndStrip: true,
    });
    const [s1, s2] = stripped.conversations;
    assert.deepEqual(imageParts(s1.turns[0].body)[0], {
      type: "image_url",
      image_url: { url: "https://x.test/a.png" },
      uuid: "a",
    });
    // The session's second turn: both ids were sent, so both images go as ids alone.
    assert.deepEqual(imageParts(s1.turns[1].body), [
      { type: "image_url", image_url: { url: "" }, uuid: "a" },
      { type: "image_url", image_url: { url: "" }, uuid: "b" },
    ]);
    // Another session starts afresh.
    assert.equal(imageParts(s2.turns[0].body)[0].image_url.url, "https://x.test/a.png");
    const kept = await loadDataset(file, { type: "single_turn", format: format(), seed: 1 });
    assert.equal(
      imageParts(kept.conversations[0].turns[1].body)[1].image_url.url,
      "https://x.test/b.png",
    );
  });
});

Deno.test("an empty image is a cache reference only with its id; without image_uuids it is refused", async () => {
  await withTempDir(async (dir) => {
    const ok = await write(
      dir,
      "ok.jsonl",
      JSON.stringify({ text: "again", images: [""], image_uuids: ["a"] }) + "\n",
    );
    const ds = await loadDataset(ok, { type: "single_turn", format: format(), seed: 1 });
    const parts = JSON.parse(ds.conversations[0].turns[0].body).messages[0].content;
    assert.deepEqual(parts[1], { type: "image_url", image_url: { url: "" }, uuid: "a" });
    const bad = await write(dir, "bad.jsonl", JSON.stringify({ text: "x", images: [""] }) + "\n");
    await rejectsWith(
      loadDataset(bad, { type: "single_turn", format: format(), seed: 1 }),
      "cannot read media file",
    );
  });
});
