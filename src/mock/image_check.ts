/**
 * What the mock checks of the media it receives: an image (a `data:` URL, bare base64 or
 * uploaded bytes) must decode and start with the magic bytes of a PNG, JPEG, GIF, WebP or BMP
 * image; an http(s) URL is taken on trust. Each check says what is wrong, or null.
 */

/** The image types the mock recognizes, by their leading bytes. */
const MAGIC: [string, number[]][] = [
  ["png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ["jpeg", [0xff, 0xd8, 0xff]],
  ["gif", [0x47, 0x49, 0x46, 0x38]],
  ["webp", [0x52, 0x49, 0x46, 0x46]],
  ["bmp", [0x42, 0x4d]],
];

/** The image type `bytes` start as, or null for none the mock knows. */
export function imageType(bytes: Uint8Array): string | null {
  for (const [type, magic] of MAGIC) {
    if (bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)) return type;
  }
  return null;
}

/** Bytes of standard base64; null when it is not base64. */
export function decodeBase64(b64: string): Uint8Array | null {
  try {
    const bin = atob(b64.replace(/\s+/g, ""));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** What is wrong with uploaded image bytes, or null. */
export function imageBytesProblem(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return "the image is empty";
  return imageType(bytes) === null ? "the image is not a PNG, JPEG, GIF, WebP or BMP image" : null;
}

/**
 * What is wrong with an image given as text: a `data:image/...;base64,` URL or bare base64 must
 * decode to an image; an http(s) URL is accepted. Null when it is fine.
 */
export function imageTextProblem(image: string): string | null {
  if (/^https?:\/\//i.test(image)) return null;
  let b64 = image;
  if (image.startsWith("data:")) {
    const comma = image.indexOf(",");
    if (comma < 0) return "the image data URL has no comma";
    if (!image.slice(5, comma).endsWith(";base64")) return "the image data URL is not base64";
    b64 = image.slice(comma + 1);
  }
  const bytes = decodeBase64(b64);
  if (bytes === null) return "the image is not valid base64";
  return imageBytesProblem(bytes);
}

/**
 * The images of chat-style messages (`image_url` parts, as a string or `{url}`): the first one
 * that does not decode, as a problem, or null when all do.
 */
export function messageImagesProblem(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (const m of messages) {
    const content = (m as Record<string, unknown> | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      const p = part as Record<string, unknown> | null;
      if (p?.type !== "image_url") continue;
      const v = p.image_url;
      const url = typeof v === "string"
        ? v
        : typeof (v as Record<string, unknown> | null)?.url === "string"
        ? (v as Record<string, string>).url
        : null;
      if (url === null) return "an image_url part has no url";
      const problem = imageTextProblem(url);
      if (problem !== null) return problem;
    }
  }
  return null;
}

/** A 1x1 PNG, base64: the picture every generated image of the mock is. */
export const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
