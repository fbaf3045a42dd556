import assert from "node:assert/strict";
import { bodyBytes, bodyCount, packBodies, packConversations } from "../../src/load/packed.ts";
import { BodyStore } from "../../src/util/body_store.ts";

const decode = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("packed bodies round-trip, multi-byte UTF-8 and empty bodies included", () => {
  const bodies = [
    '{"a":1}',
    "",
    "héllo wörld — 日本語 🎉 (surrogate pair)",
    "",
    "x".repeat(10_000),
    "\u0000\u007f\u0080\u07ff\u0800\uffff",
  ];
  const packed = packBodies(bodies);
  assert.equal(bodyCount(packed), bodies.length);
  assert.equal(packed.blocks[0].length, new TextEncoder().encode(bodies.join("")).length);
  for (let i = 0; i < bodies.length; i++) {
    assert.equal(decode(bodyBytes(packed, i)), bodies[i], `body ${i}`);
  }
});

Deno.test("packed bodies live in shared memory; a body read is a view of it", () => {
  const packed = packBodies(["abc", "déf"]);
  assert.ok(packed.blocks[0].buffer instanceof SharedArrayBuffer);
  assert.ok(packed.spans.buffer instanceof SharedArrayBuffer);
  const b = bodyBytes(packed, 1);
  // No copy per request: the body's bytes are where the pack put them.
  assert.equal(b.buffer, packed.blocks[0].buffer);
  assert.equal(b.byteOffset, 3);
  assert.deepEqual([...b], [...new TextEncoder().encode("déf")]);
});

Deno.test("packing no bodies gives an empty, valid set", () => {
  const packed = packBodies([]);
  assert.equal(bodyCount(packed), 0);
  assert.equal(packed.blocks[0].length, 0);
});

Deno.test("packConversations keeps the metadata and maps every turn to its body", () => {
  const { conversations, bodies } = packConversations([
    { sessionId: "a", bodies: ["a0", "ä1"], delaysMs: [0, 5] },
    { sessionId: "b", bodies: [] },
    { sessionId: "c", bodies: ["c0"], timestampsMs: [12] },
  ]);
  assert.deepEqual(conversations, [
    { sessionId: "a", turns: 2, firstBody: 0, delaysMs: [0, 5] },
    { sessionId: "b", turns: 0, firstBody: 2 },
    { sessionId: "c", turns: 1, firstBody: 2, timestampsMs: [12] },
  ]);
  assert.ok(!("bodies" in conversations[0]));
  const text = (c: number, t: number) => decode(bodyBytes(bodies, conversations[c].firstBody + t));
  assert.equal(text(0, 0), "a0");
  assert.equal(text(0, 1), "ä1");
  assert.equal(text(2, 0), "c0");
});

Deno.test("packed bodies reach a Worker shared, not copied", async () => {
  const packed = packBodies(["one", "twö"]);
  const src = `self.onmessage = (e) => {
    const { blocks, spans } = e.data;
    const bytes = blocks[0];
    const shared = bytes.buffer instanceof SharedArrayBuffer;
    const text = new TextDecoder().decode(bytes.slice(spans[4], spans[5]));
    // Written by the Worker, seen by this thread: the same memory.
    bytes[0] = 0x4f;
    self.postMessage({ shared, text });
  };`;
  const url = URL.createObjectURL(new Blob([src], { type: "application/javascript" }));
  const w = new Worker(url, { type: "module" });
  try {
    const reply = await new Promise<{ shared: boolean; text: string }>((resolve) => {
      w.onmessage = (e) => resolve(e.data);
      w.postMessage(packed);
    });
    assert.deepEqual(reply, { shared: true, text: "twö" });
    assert.equal(decode(bodyBytes(packed, 0)), "One");
  } finally {
    w.terminate();
    URL.revokeObjectURL(url);
  }
});

Deno.test("stored bodies are packed where their store holds them, text bodies into a block", () => {
  const store = new BodyStore(64);
  const stored = [store.add("s0 ünï"), store.add("s1")];
  const packed = packBodies(["t0", stored[0], "t1", stored[1]]);
  assert.equal(bodyCount(packed), 4);
  assert.deepEqual([0, 1, 2, 3].map((i) => decode(bodyBytes(packed, i))), [
    "t0",
    "s0 ünï",
    "t1",
    "s1",
  ]);
  // No copy of a stored body: the Workers read the store's own shared bytes.
  assert.equal(bodyBytes(packed, 1).buffer, store.blocks[0].buffer);
  assert.equal(bodyBytes(packed, 3).buffer, store.blocks[0].buffer);
  assert.equal(packed.blocks.length, 2);
  assert.equal(decode(packed.blocks[0]), "t0t1");
});
