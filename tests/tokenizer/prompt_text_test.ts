import assert from "node:assert/strict";
import { promptText } from "../../src/tokenizer/prompt_text.ts";

Deno.test("promptText", async (t) => {
  await t.step("chat messages: string content and text parts", () => {
    const body = {
      model: "m",
      messages: [
        { role: "system", content: "be brief" },
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image_url", image_url: { url: "data:..." } },
          ],
        },
        { role: "assistant", content: null },
      ],
    };
    assert.equal(promptText(body), "be brief\nwhat is this?");
  });

  await t.step("completions prompt: string or list", () => {
    assert.equal(promptText({ prompt: "once upon" }), "once upon");
    assert.equal(promptText({ prompt: ["a", "b"] }), "a\nb");
  });

  await t.step("Responses: instructions then input string or items", () => {
    assert.equal(promptText({ instructions: "sys", input: "hi" }), "sys\nhi");
    const items = {
      input: [
        { role: "user", content: "plain" },
        { role: "user", content: [{ type: "input_text", text: "part" }, { type: "input_image" }] },
        { type: "input_text", text: "bare" },
      ],
    };
    assert.equal(promptText(items), "plain\npart\nbare");
  });

  await t.step("Anthropic: system string or blocks, then messages", () => {
    assert.equal(
      promptText({ system: "s", messages: [{ role: "user", content: "u" }] }),
      "s\nu",
    );
    assert.equal(
      promptText({
        system: [{ type: "text", text: "s1" }],
        messages: [{ role: "user", content: [{ type: "text", text: "u1" }] }],
      }),
      "s1\nu1",
    );
  });

  await t.step("embeddings input, rankings and TGI", () => {
    assert.equal(promptText({ input: ["x", "y"] }), "x\ny");
    assert.equal(promptText({ input: "x" }), "x");
    assert.equal(
      promptText({ query: { text: "q" }, passages: [{ text: "p1" }, { text: "p2" }] }),
      "q\np1\np2",
    );
    assert.equal(promptText({ query: "q", documents: ["d"] }), "q\nd");
    assert.equal(promptText({ query: "q", texts: ["t"] }), "q\nt");
    assert.equal(promptText({ inputs: "tgi", parameters: { max_new_tokens: 5 } }), "tgi");
  });

  await t.step("unknown shapes give an empty string", () => {
    assert.equal(promptText(null), "");
    assert.equal(promptText("text"), "");
    assert.equal(promptText([1, 2]), "");
    assert.equal(promptText({ foo: "bar" }), "");
    assert.equal(promptText({ messages: "not a list" }), "");
  });
});
