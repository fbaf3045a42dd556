/**
 * `--apply-chat-template`: a chat request's input counted as the server counts `prompt_tokens`.
 * vLLM and llama.cpp's server render the messages through the model's chat template (from
 * `tokenizer_config.json`, `add_generation_prompt: true`) and tokenize the result without adding
 * special tokens again (the template writes them: `<|im_start|>`, a BOS); the role markers and
 * separators the template adds are input tokens too. Rendered with `@huggingface/jinja`.
 */

import { Template } from "@huggingface/jinja";
import { promptText } from "./prompt_text.ts";
import type { Tokenizer } from "./tokenizer.ts";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A special token of `tokenizer_config.json`: a string or an `{content}` object. */
function tokenText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isObj(v) && typeof v.content === "string") return v.content;
  return undefined;
}

/**
 * The chat template of a `tokenizer_config.json` (a string, or a list of named templates of
 * which `default` is used), or undefined when it has none.
 */
export function chatTemplateOf(config: unknown): string | undefined {
  if (!isObj(config)) return undefined;
  const t = config.chat_template;
  if (typeof t === "string" && t !== "") return t;
  if (Array.isArray(t)) {
    const named = t.filter(isObj);
    const pick = named.find((x) => x.name === "default") ?? named[0];
    if (pick && typeof pick.template === "string") return pick.template;
  }
  return undefined;
}

/**
 * A message as servers hand it to a template: text-part arrays joined into one string (as vLLM
 * does for string-content templates), other fields kept.
 */
function normalizeMessage(m: unknown): unknown {
  if (!isObj(m) || !Array.isArray(m.content)) return m;
  const parts = m.content as unknown[];
  const allText = parts.every((p) => typeof p === "string" || (isObj(p) && p.type === "text"));
  if (!allText) return m;
  const text = parts.map((p) => (typeof p === "string" ? p : String((p as Obj).text ?? "")));
  return { ...m, content: text.join("\n") };
}

/** Renders chat bodies through one template; `render` gives undefined when the template fails. */
export interface ChatRenderer {
  /** The prompt text the server builds for this body, or undefined if the template refused. */
  render(body: Obj): string | undefined;
}

/** Parses `template` once; the special tokens come from the same `tokenizer_config.json`. */
export function chatRenderer(template: string, config: unknown): ChatRenderer {
  const tpl = new Template(template);
  const specials: Obj = {};
  if (isObj(config)) {
    for (const k of ["bos_token", "eos_token", "pad_token", "unk_token"]) {
      const v = tokenText(config[k]);
      if (v !== undefined) specials[k] = v;
    }
  }
  return {
    render(body: Obj): string | undefined {
      if (!Array.isArray(body.messages)) return undefined;
      const messages = body.messages.map(normalizeMessage);
      // Anthropic-style bodies carry the system prompt beside the messages.
      if (typeof body.system === "string" && body.system !== "") {
        messages.unshift({ role: "system", content: body.system });
      }
      const kwargs = isObj(body.chat_template_kwargs) ? body.chat_template_kwargs : {};
      try {
        return tpl.render({
          ...specials,
          ...(Array.isArray(body.tools) ? { tools: body.tools } : {}),
          ...kwargs,
          messages,
          add_generation_prompt: true,
        });
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Input tokens of a request body: through the tokenizer's chat template when it applies one and
 * the body has `messages`, else the body's input text (`promptText`).
 */
export function countInput(tokenizer: Tokenizer, body: unknown): number {
  if (tokenizer.countChat && isObj(body) && Array.isArray(body.messages)) {
    const n = tokenizer.countChat(body);
    if (n !== undefined) return n;
  }
  return tokenizer.count(promptText(body));
}
