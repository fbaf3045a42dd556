import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../../src/config/parse.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { writeQwen3 } from "../tokenizer/qwen3_files.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

async function promptTokens(url: string, messages: unknown[]): Promise<number> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages, max_tokens: 2 }),
  });
  assert.equal(res.status, 200);
  return (await res.json()).usage.prompt_tokens;
}

Deno.test(
  "mock --tokenizer/--chat-template: chat prompt_tokens through the template, as real servers count",
  opts,
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      const tok = await writeQwen3(join(dir, "q"));
      const messages = [{ role: "user", content: "Hello world, this is a test" }];
      const jinja = join(dir, "t.jinja");
      await Deno.writeTextFile(
        jinja,
        "{% for m in messages %}<|im_start|>{{ m.content }}{% endfor %}",
      );
      const cases: [Record<string, string>, number][] = [
        [{}, 7], // o200k, content only
        [{ tokenizer: tok }, 7], // Qwen3, content only
        [{ tokenizer: tok, chatTemplate: join(tok, "tokenizer_config.json") }, 15],
        [{ tokenizer: tok, chatTemplate: jinja }, 8], // a plain Jinja file
      ];
      for (const [o, want] of cases) {
        const server = await startMockServer({ ttftMs: 0, itlMs: 0, ...o });
        try {
          assert.equal(await promptTokens(server.url, messages), want, JSON.stringify(o));
        } finally {
          await server.close();
        }
      }
      await assert.rejects(
        () => startMockServer({ chatTemplate: jinja }),
        (e: unknown) => e instanceof ConfigError && /needs --tokenizer/.test(e.message),
      );
      await assert.rejects(
        () => startMockServer({ tokenizer: tok, chatTemplate: join(dir, "absent.jinja") }),
        (e: unknown) => e instanceof ConfigError && /--chat-template/.test(e.message),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
