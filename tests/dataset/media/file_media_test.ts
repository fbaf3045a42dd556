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
