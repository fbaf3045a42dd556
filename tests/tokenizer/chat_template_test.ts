import assert from "node:assert/strict";
import { join } from "node:path";
import { chatRenderer, chatTemplateOf, countInput } from "../../src/tokenizer/chat_template.ts";
import { loadTokenizer } from "../../src/tokenizer/load.ts";
import { resolveTokenizer } from "../../src/tokenizer/resolve.ts";
import { QWEN3_FILES, writeQwen3 } from "./qwen3_files.ts";

const CONFIG = JSON.parse(QWEN3_FILES["tokenizer_config.json"]);
const TEMPLATE = chatTemplateOf(CONFIG)!;

async function qwen3(applyChatTemplate: boolean) {
  const dir = await Deno.makeTempDir();
  try {
    return await loadTokenizer(await writeQwen3(dir), { applyChatTemplate });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("chat template: Qwen3's renders as llama.cpp's server and vLLM build the prompt", () => {
  const r = chatRenderer(TEMPLATE, CONFIG);
  assert.equal(
    r.render({
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi there" }],
    }),
    "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n" +
      "<|im_start|>assistant\n",
  );
  // Text parts are joined; chat_template_kwargs reach the template (Qwen3's enable_thinking).
  assert.equal(
    r.render({
      messages: [{
        role: "user",
        content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
      }],
      chat_template_kwargs: { enable_thinking: false },
    }),
    "<|im_start|>user\na\nb<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
  );
  assert.equal(r.render({ prompt: "no messages" }), undefined);
});

Deno.test("chat template: a list of named templates gives the default one; none gives undefined", () => {
  assert.equal(
    chatTemplateOf({
      chat_template: [{ name: "tool_use", template: "T" }, { name: "default", template: "D" }],
    }),
    "D",
  );
  assert.equal(chatTemplateOf({ chat_template: "X" }), "X");
  assert.equal(chatTemplateOf({}), undefined);
  assert.equal(chatTemplateOf(null), undefined);
});

Deno.test("countInput: with the template, the template's tokens count, special tokens once each", async () => {
  const body = { messages: [{ role: "user", content: "Hello world, this is a test" }] };
  const plain = await qwen3(false);
  const templated = await qwen3(true);
  assert.equal(plain.countChat, undefined);
  assert.equal(countInput(plain, body), 7);
  // <|im_start|> user \n ... <|im_end|> \n <|im_start|> assistant \n
  assert.equal(countInput(templated, body), 7 + 8);
  // Bodies without messages (completions) count their text either way.
  assert.equal(countInput(templated, { prompt: "Hello world, this is a test" }), 7);
  // A template that refuses the body (as some raise on roles out of order) renders nothing,
  // and the body's text counts instead.
  const strict = chatRenderer("{{ raise_exception('roles must alternate') }}", {});
  assert.equal(strict.render(body), undefined);
  const refusing = {
    ...plain,
    countChat: (b: Record<string, unknown>) => {
      const text = strict.render(b);
      return text === undefined ? undefined : plain.count(text);
    },
  };
  assert.equal(countInput(refusing, body), 7);
});

Deno.test("resolveTokenizer: --apply-chat-template with no template in sight warns once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "tokenizer.json"), QWEN3_FILES["tokenizer.json"]);
    const env = { cacheDir: join(dir, "hub"), endpoint: "http://127.0.0.1:1", offline: true };
    for (const tokenizer of [dir, "builtin"]) {
      const got = await resolveTokenizer({ tokenizer, applyChatTemplate: true, env });
      assert.equal(got.warnings.length, 1);
      assert.match(got.warnings[0], /^warning: --apply-chat-template: .* has no chat template/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
