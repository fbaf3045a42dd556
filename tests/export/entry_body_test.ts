import assert from "node:assert/strict";
import { EntryBodies, metricsText } from "../../src/export/entry_body.ts";
import { BodyStore } from "../../src/util/body_store.ts";

Deno.test("metricsText: a stored body's image data URLs lose their data, all else is kept", () => {
  const store = new BodyStore(1 << 16);
  const body = JSON.stringify({
    messages: [{
      role: "user",
      content: [
        { type: "text", text: 'é "data:image/ not a url' },
        { type: "image_url", image_url: { url: "data:image/png;base64," + "iVBO".repeat(300) } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/" + "Q".repeat(50) } },
        { type: "input_audio", input_audio: { data: "UklGR", format: "wav" } },
      ],
    }],
    max_tokens: 7,
  });
  const stored = store.add(body);
  const text = metricsText(stored);
  const parsed = JSON.parse(text);
  const content = parsed.messages[0].content;
  assert.equal(content[0].text, 'é "data:image/ not a url');
  assert.equal(content[1].image_url.url, "data:image/png;base64,");
  assert.equal(content[2].image_url.url, "data:image/jpeg;base64,");
  assert.deepEqual(content[3], {
    type: "input_audio",
    input_audio: { data: "UklGR", format: "wav" },
  });
  assert.equal(parsed.max_tokens, 7);
  // A text body, and a stored one without images, are as they are.
  assert.equal(metricsText(body), body);
  assert.equal(metricsText(store.add('{"a":"b"}')), '{"a":"b"}');
  const entries = new EntryBodies([{ bodies: [stored] }]);
  assert.equal(entries.text(0, 0), text);
});
