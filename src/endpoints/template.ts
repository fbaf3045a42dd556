/**
 * The template endpoint: bodies for an API reprise does not know, written by the user as a Jinja
 * template (`--extra-inputs payload_template:` a named template, a file or the template itself),
 * sent to the full `--url`. Answers are read as the raw endpoint reads them: detected
 * (embeddings, rankings, then text) or picked by a JMESPath `response_field`.
 */

import { Template } from "@huggingface/jinja";
import type { Endpoint, FormatOptions, TurnInput } from "./types.ts";
import { isObject, type JsonObject } from "./json.ts";
import { createRawEndpoint } from "./raw.ts";

/** AIPerf's named templates. */
export const NAMED_TEMPLATES: Readonly<Record<string, string>> = {
  "nv-embedqa": '{"text": {{ texts|tojson }}}',
};

/**
 * The template text a `payload_template` value names: a named template, the text of a file at
 * that path, or the value itself (an inline template). `readText` reads a file, throwing when
 * there is none.
 */
export function resolvePayloadTemplate(
  value: string,
  readText: (path: string) => string = Deno.readTextFileSync,
): string {
  const named = NAMED_TEMPLATES[value];
  if (named !== undefined) return named;
  const t = value.trim();
  // A JSON-looking value is a template, not a path.
  if (t.startsWith("{") || t.startsWith("[") || t.includes("{{")) return value;
  try {
    return readText(t);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return value;
    throw new Error(`cannot read the payload template ${t}: ${(e as Error).message}`);
  }
}

/**
 * Python's Jinja turns any value to text before `lower`/`upper` (`{{ stream|lower }}` gives
 * `true`); the JavaScript Jinja knows these filters on strings only: they are given a string.
 */
function pythonFilters(source: string): string {
  return source.replace(/\|\s*(lower|upper)\b/g, "|string|$1");
}

/** Options of the template endpoint. */
export interface TemplateOptions {
  /** The template text (already resolved: see {@link resolvePayloadTemplate}). */
  template: string;
  /** JMESPath expression selecting the answer's text; absent: the answer's shape is detected. */
  responseField?: string;
}

/**
 * The variables a template sees, as AIPerf names them: `text(s)`, `image(s)`, `audio(s)`,
 * `video(s)`, `query`/`queries` (the first text) and `passage(s)` (the texts after it, as the
 * rankings endpoints read a turn), `model`, `max_tokens`, `role`, `stream` and `turn`.
 */
export function templateVariables(turn: TurnInput, opts: FormatOptions): Record<string, unknown> {
  const texts = turn.texts;
  const images = turn.images ?? [];
  const audios = turn.audios ?? [];
  const videos = turn.videos ?? [];
  const passages = texts.slice(1);
  return {
    texts,
    images,
    audios,
    videos,
    text: texts[0] ?? null,
    image: images[0] ?? null,
    audio: audios[0] ?? null,
    video: videos[0] ?? null,
    queries: texts.slice(0, 1),
    query: texts[0] ?? null,
    passages,
    passage: passages[0] ?? null,
    texts_by_name: {},
    images_by_name: {},
    audios_by_name: {},
    videos_by_name: {},
    model: opts.model,
    max_tokens: turn.maxTokens ?? null,
    role: turn.role ?? "user",
    stream: opts.streaming,
    turn,
  };
}

/**
 * Builds the `template` endpoint; throws when the template is not valid Jinja or the
 * `responseField` not a JMESPath expression.
 */
export function createTemplateEndpoint(options: TemplateOptions): Endpoint {
  let template: Template;
  try {
    template = new Template(pythonFilters(options.template));
  } catch (e) {
    throw new Error(`Invalid payload_template: ${(e as Error).message}`);
  }
  const reader = createRawEndpoint({ responseField: options.responseField });
  return {
    ...reader,
    type: "template",
    formatPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
      const rendered = template.render(templateVariables(turn, opts));
      let body: unknown;
      try {
        body = JSON.parse(rendered);
      } catch (e) {
        throw new Error(
          `the payload template did not render JSON (${(e as Error).message}): ${
            rendered.slice(0, 100)
          }`,
        );
      }
      if (!isObject(body)) throw new Error("the payload template must render a JSON object");
      return { ...body, ...opts.extraInputs };
    },
  };
}
