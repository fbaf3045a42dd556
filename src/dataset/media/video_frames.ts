/**
 * The frames of synthetic videos (`--video-synth-type`), RGB24: moving shapes on black, a grid
 * with a clock, or noise. Drawn here; encoded by ffmpeg (video.ts).
 */

import { fillNoise, type MediaRandom } from "./random.ts";

/** What the frames show. */
export type SynthType = "moving_shapes" | "grid_clock" | "noise";

interface Shape {
  circle: boolean;
  x: number;
  y: number;
  vx: number;
  vy: number;
  size: number;
  rgb: [number, number, number];
}

function fillRect(
  f: Uint8Array,
  w: number,
  h: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  rgb: readonly number[],
) {
  for (let y = Math.max(0, y0); y < Math.min(h, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(w, x1); x++) {
      const o = (y * w + x) * 3;
      f[o] = rgb[0];
      f[o + 1] = rgb[1];
      f[o + 2] = rgb[2];
    }
  }
}

function fillCircle(
  f: Uint8Array,
  w: number,
  h: number,
  cx: number,
  cy: number,
  r: number,
  rgb: readonly number[],
) {
  for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(h, Math.ceil(cy + r)); y++) {
    for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(w, Math.ceil(cx + r)); x++) {
      if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) continue;
      const o = (y * w + x) * 3;
      f[o] = rgb[0];
      f[o + 1] = rgb[1];
      f[o + 2] = rgb[2];
    }
  }
}

function line(
  f: Uint8Array,
  w: number,
  h: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  thick: number,
  rgb: readonly number[],
) {
  const steps = Math.ceil(Math.hypot(x1 - x0, y1 - y0));
  for (let i = 0; i <= steps; i++) {
    const t = steps ? i / steps : 0;
    const x = Math.round(x0 + (x1 - x0) * t);
    const y = Math.round(y0 + (y1 - y0) * t);
    fillRect(f, w, h, x - thick, y - thick, x + thick + 1, y + thick + 1, rgb);
  }
}

/**
 * The frames of one clip, `count` of `width` × `height` RGB24, one after another in one buffer;
 * every draw from `rand`, so a seed gives the same clip.
 */
export function synthFrames(
  type: SynthType,
  width: number,
  height: number,
  count: number,
  rand: MediaRandom,
): Uint8Array {
  const size = width * height * 3;
  const out = new Uint8Array(size * count);
  if (type === "noise") {
    fillNoise(out, rand.u32());
    return out;
  }
  if (type === "grid_clock") {
    const cx = width / 2;
    const cy = height / 2;
    const r = Math.min(width, height) * 0.4;
    const step = Math.max(8, Math.round(Math.min(width, height) / 8));
    for (let i = 0; i < count; i++) {
      const f = out.subarray(i * size, (i + 1) * size);
      fillRect(f, width, height, 0, 0, width, height, [40, 40, 40]);
      for (let x = 0; x < width; x += step) {
        fillRect(f, width, height, x, 0, x + 1, height, [90, 90, 90]);
      }
      for (let y = 0; y < height; y += step) {
        fillRect(f, width, height, 0, y, width, y + 1, [90, 90, 90]);
      }
      const minute = (i / count) * 2 * Math.PI * 4;
      const hour = (i / count) * 2 * Math.PI / 3;
      line(
        f,
        width,
        height,
        cx,
        cy,
        cx + Math.sin(hour) * r * 0.5,
        cy - Math.cos(hour) * r * 0.5,
        2,
        [255, 200, 0],
      );
      line(f, width, height, cx, cy, cx + Math.sin(minute) * r, cy - Math.cos(minute) * r, 1, [
        0,
        220,
        255,
      ]);
      // The frame number as a bar of binary cells along the top.
      for (let b = 0; b < 16; b++) {
        const on = (i >> b) & 1;
        fillRect(f, width, height, 4 + b * 6, 4, 8 + b * 6, 8, on ? [255, 255, 255] : [70, 70, 70]);
      }
    }
    return out;
  }
  const shapes: Shape[] = Array.from({ length: 5 }, () => ({
    circle: rand.random() < 0.5,
    x: rand.random() * width,
    y: rand.random() * height,
    vx: (rand.random() - 0.5) * width * 0.1,
    vy: (rand.random() - 0.5) * height * 0.1,
    size: Math.max(4, Math.min(width, height) * (0.05 + rand.random() * 0.1)),
    rgb: [
      55 + Math.floor(rand.random() * 200),
      55 + Math.floor(rand.random() * 200),
      55 + Math.floor(rand.random() * 200),
    ],
  }));
  for (let i = 0; i < count; i++) {
    const f = out.subarray(i * size, (i + 1) * size);
    for (const s of shapes) {
      const x = ((s.x + s.vx * i) % width + width) % width;
      const y = ((s.y + s.vy * i) % height + height) % height;
      if (s.circle) fillCircle(f, width, height, x, y, s.size, s.rgb);
      else {fillRect(
          f,
          width,
          height,
          Math.round(x - s.size),
          Math.round(y - s.size),
          Math.round(x + s.size),
          Math.round(y + s.size),
          s.rgb,
        );}
    }
  }
  return out;
}
