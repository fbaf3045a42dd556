/**
 * OpenAI image editing (`/v1/images/edits`, also SGLang's diffusion server): a prompt and a
 * reference image in, edited images out, sent as a multipart form. The body reprise keeps (in the
 * dataset, in inputs.json) is JSON, as AIPerf keeps it: the image as a `data:` URL (or SGLang's
 * `url` field for an http(s) image); it becomes the form as it is sent (`encodeBody`).
 */

import type { Endpoint, FormatOptions, TurnInput } from "./types.ts";
import { isObject, type JsonObject } from "./json.ts";
import { mediaPrompt, parseImagesBody } from "./image_generation.ts";

/** Fields the endpoint fills from the turn: `--extra-inputs` may not replace them. */
const RESERVED = new Set(["prompt", "image", "url", "mask"]);

/** Image types by the first characters of their base64 (their magic bytes). */
const SNIFF: [string, string][] = [
  ["iVBORw0KGgo", "image/png"],
  ["/9j/", "image/jpeg"],
  ["R0lGODlh", "image/gif"],
  ["R0lGODdh", "image/gif"],
  ["UklGR", "image/webp"],
  ["Qk", "image/bmp"],
];

/** An image as a form's file part: its bytes in base64, its type and file name. */
export interface ImagePart {
  base64: string;
  contentType: string;
  filename: string;
}

/**
 * A `data:` URL or bare base64 image as a file part; throws when it is neither a data URL nor
 * base64 of a PNG, JPEG, GIF, WebP or BMP image.
 */
export function imagePart(image: string): ImagePart {
  let b64 = image;
  let type: string | undefined;
  if (image.startsWith("data:")) {
    const comma = image.indexOf(",");
    if (comma < 0) throw new Error("the reference image is a data URL without a comma");
    const head = image.slice(5, comma);
    b64 = image.slice(comma + 1);
    const declared = head.split(";")[0];
    if (declared.startsWith("image/")) type = declared;
  }
  type ??= SNIFF.find(([prefix]) => b64.startsWith(prefix))?.[1];
  if (type === undefined) {
    throw new Error(
      "the reference image is not a recognized image: expected a data: URL or base64 PNG, JPEG, GIF, WebP or BMP",
    );
  }
  const ext = type.slice(6).split("+")[0];
  return { base64: b64, contentType: type, filename: `image.${ext === "jpeg" ? "jpg" : ext}` };
}

/**
 * An image edit body: `{prompt, model, response_format: "b64_json", n: 1}` with the turn's first
 * image as `image` (a data URL) or `url` (http/https); `--extra-inputs` merged but for the fields
 * taken from the turn. Throws without a prompt or an image.
 */
export function formatImageEditPayload(turn: TurnInput, opts: FormatOptions): JsonObject {
  const prompt = mediaPrompt("image_edit", turn);
  const image = turn.images?.[0];
  if (image === undefined || image === "") {
    throw new Error("the image_edit endpoint needs a reference image: the turn has none");
  }
  const body: JsonObject = { prompt, model: opts.model, response_format: "b64_json", n: 1 };
  if (/^https?:\/\//i.test(image)) body.url = image;
  else {
    imagePart(image); // an unreadable image is the dataset's to fix, before anything is sent
    body.image = image;
  }
  for (const [k, v] of Object.entries(opts.extraInputs)) if (!RESERVED.has(k)) body[k] = v;
  return body;
}

/** A form field's text: strings as they are, anything else as JSON. */
function fieldText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Bytes of base64 text. */
function fromBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * The multipart form of a JSON image edit body: each field a text part, `image` a file part of
 * the decoded image. Returns the bytes and the Content-Type (with its boundary). Throws on a
 * body that is not a JSON object or an image it cannot read.
 */
export async function imageEditForm(
  json: string,
): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const obj: unknown = JSON.parse(json);
  if (!isObject(obj)) throw new Error("the image edit body is not a JSON object");
  const form = new FormData();
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined) continue;
    if (k === "image" && typeof v === "string") {
      const part = imagePart(v);
      const bytes = fromBase64(part.base64);
      form.append("image", new Blob([bytes], { type: part.contentType }), part.filename);
    } else form.append(k, fieldText(v));
  }
  const req = new Request("http://form.invalid/", { method: "POST", body: form });
  return {
    body: new Uint8Array(await req.arrayBuffer()),
    contentType: req.headers.get("content-type")!,
  };
}

/** The `image_edit` endpoint type. */
export const imageEditEndpoint: Endpoint = {
  type: "image_edit",
  path: "/v1/images/edits",
  supportsStreaming: false,
  metricsTitle: "Image Edit Metrics",
  producesTokens: false,
  formatPayload: formatImageEditPayload,
  parseResponse: parseImagesBody,
  parseEvent(event) {
    return event.data === "" ? null : parseImagesBody(JSON.parse(event.data));
  },
  encodeBody: imageEditForm,
};
