/**
 * `reprise mock-server --tokenizer PATH [--chat-template FILE]`: chat `prompt_tokens` counted as
 * a real server counts them, the messages rendered through the model's chat template
 * (`add_generation_prompt`) and tokenized without adding special tokens again. What lets a test
 * check that `--apply-chat-template` counts inputs as such a server does.
 */

import { ConfigError } from "../config/parse.ts";
import { loadTokenizer, TokenizerError } from "../tokenizer/load.ts";
import { chatRenderer, chatTemplateOf } from "../tokenizer/chat_template.ts";
import { promptText } from "../tokenizer/prompt_text.ts";

/** Counts a chat body's prompt tokens; undefined leaves the mock's own count. */
export type PromptCounter = (body: Record<string, unknown>) => number | undefined;

/** Reads the template: a Jinja file, or a JSON config with `chat_template` (and its specials). */
async function readTemplate(path: string): Promise<{ template: string; config: unknown }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new TokenizerError(`--chat-template "${path}": ${(e as Error).message}`);
  }
  if (/^\s*\{[\s\S]*"chat_template"/.test(text)) {
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch {
      config = undefined;
    }
    const template = chatTemplateOf(config);
    if (template !== undefined) return { template, config };
  }
  return { template: text, config: {} };
}

/**
 * The prompt counter of the mock's `--tokenizer` and `--chat-template`, or null with neither.
 * A template without a tokenizer, or a file that cannot be read, is a `ConfigError`.
 */
export async function promptCounter(
  tokenizer?: string,
  chatTemplate?: string,
): Promise<PromptCounter | null> {
  try {
    return await counter(tokenizer, chatTemplate);
  } catch (e) {
    if (e instanceof TokenizerError) throw new ConfigError(e.message);
    throw e;
  }
}

async function counter(
  tokenizer?: string,
  chatTemplate?: string,
): Promise<PromptCounter | null> {
  if (tokenizer === undefined) {
    if (chatTemplate !== undefined) {
      throw new TokenizerError("--chat-template needs --tokenizer (the template's tokenizer)");
    }
    return null;
  }
  const t = await loadTokenizer(tokenizer);
  if (chatTemplate === undefined) return (body) => t.count(promptText({ messages: body.messages }));
  const { template, config } = await readTemplate(chatTemplate);
  let renderer;
  try {
    renderer = chatRenderer(template, config);
  } catch (e) {
    throw new TokenizerError(`--chat-template "${chatTemplate}": ${(e as Error).message}`);
  }
  return (body) => {
    const text = renderer.render(body);
    return text === undefined ? undefined : t.count(text);
  };
}
