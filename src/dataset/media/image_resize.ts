/** Resizing pixels to an exact size (bilinear), for pictures drawn at a size of the run's choosing. */

import type { Pixels } from "./image_codec.ts";

/** `src` resized to exactly `width` × `height` by bilinear interpolation. */
export function resizePixels(src: Pixels, width: number, height: number): Pixels {
  if (src.width === width && src.height === height) return src;
  const out = new Uint8Array(width * height * 4);
  const sx = src.width / width;
  const sy = src.height / height;
  const maxX = src.width - 1;
  const maxY = src.height - 1;
  const s = src.rgba;
  for (let y = 0; y < height; y++) {
    const fy = Math.min(maxY, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(maxY, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.min(maxX, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(maxX, x0 + 1);
      const wx = fx - x0;
      const a = (y0 * src.width + x0) * 4;
      const b = (y0 * src.width + x1) * 4;
      const c = (y1 * src.width + x0) * 4;
      const d = (y1 * src.width + x1) * 4;
      const o = (y * width + x) * 4;
      for (let k = 0; k < 4; k++) {
        const top = s[a + k] + (s[b + k] - s[a + k]) * wx;
        const bottom = s[c + k] + (s[d + k] - s[c + k]) * wx;
        out[o + k] = Math.round(top + (bottom - top) * wy);
      }
    }
  }
  return { width, height, rgba: out };
}
