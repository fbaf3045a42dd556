/**
 * PNG and JPEG through well-kept encoders (pngjs, jpeg-js): encoding the pixels of a synthetic
 * image, and decoding a picture (the bundled assets, a user's directory, what a server
 * received) to pixels and its true size.
 */

import { Buffer } from "node:buffer";
import { PNG } from "pngjs";
import jpeg from "jpeg-js";

/** An image's pixels: RGBA, 4 bytes a pixel, rows top to bottom. */
export interface Pixels {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** The encodings synthetic images take. */
export type ImageFormat = "png" | "jpeg";

/** The media type of an encoding, for data URLs and Anthropic's `media_type`. */
export const IMAGE_MEDIA_TYPE: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
};

/** Encodes `px` as PNG or JPEG. */
export function encodeImage(px: Pixels, format: ImageFormat): Uint8Array {
  if (format === "jpeg") {
    const out = jpeg.encode({ data: px.rgba, width: px.width, height: px.height }, 85);
    return new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength);
  }
  // A plain object, not `new PNG()`: a PNG is a stream, and each one, with a buffer of its own
  // size, stays alive until the event loop turns, which a loop making a thousand does not wait for.
  const png = {
    width: px.width,
    height: px.height,
    data: Buffer.from(px.rgba.buffer, px.rgba.byteOffset, px.rgba.byteLength),
  } as unknown as PNG;
  const out = PNG.sync.write(png, {
    colorType: 2, // RGB: the alpha channel is always opaque
    inputHasAlpha: true,
  });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * A PNG of RGB noise (`rgb`: 3 bytes a pixel): handed to the encoder as it is, with no filter
 * search and no compression (noise does not compress), which makes a 512x512 image many times
 * quicker to write than through RGBA.
 */
export function encodeNoisePng(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const png = {
    width,
    height,
    data: Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength),
  } as unknown as PNG;
  const out = PNG.sync.write(png, {
    colorType: 2,
    inputColorType: 2,
    inputHasAlpha: false,
    filterType: 0,
    deflateLevel: 0,
  });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** The encoding of `bytes` by its signature, or undefined for anything but PNG or JPEG. */
export function sniffImage(bytes: Uint8Array): ImageFormat | undefined {
  if (
    bytes.length > 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e &&
    bytes[3] === 0x47
  ) return "png";
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return "jpeg";
  }
  return undefined;
}

/**
 * Decodes a PNG or JPEG to RGBA pixels. Throws an `Error` saying what it is not when the bytes
 * are neither, or are damaged.
 */
export function decodeImage(bytes: Uint8Array): Pixels & { format: ImageFormat } {
  const format = sniffImage(bytes);
  if (format === "png") {
    const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return {
      format,
      width: png.width,
      height: png.height,
      rgba: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength),
    };
  }
  if (format === "jpeg") {
    const img = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxMemoryUsageInMB: 1024,
    });
    return { format, width: img.width, height: img.height, rgba: img.data };
  }
  throw new Error("not a PNG or JPEG image");
}
