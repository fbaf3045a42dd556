/**
 * Synthetic images (`--image-*`): each of the drawn size, exactly, from random noise, one of the
 * bundled pictures or a picture of the user's directory (resized), encoded as PNG or JPEG and
 * sent as a `data:` URL.
 */

import { Buffer } from "node:buffer";
import { join } from "node:path";
import {
  decodeImage,
  encodeImage,
  encodeNoisePng,
  IMAGE_MEDIA_TYPE,
  type ImageFormat,
  type Pixels,
} from "./image_codec.ts";
import { IMAGE_ASSETS } from "./image_assets.ts";
import { resizePixels } from "./image_resize.ts";
import { fillNoise, type MediaRandom } from "./random.ts";
import { base64 } from "../../util/base64.ts";

/** The image options, as the config names them. */
export interface ImageOptions {
  imageWidthMean: number;
  imageWidthStddev: number;
  imageHeightMean: number;
  imageHeightStddev: number;
  imageBatchSize: number;
  imageFormat: "png" | "jpeg" | "random";
  imageSource: string;
  imageSourceSampling: "random-with-replacement" | "shuffle-cycle" | "sequential-cycle";
}

/** A picture to resize: decoded when first drawn, then kept. */
interface Source {
  name: string;
  load(): Pixels;
}

/** The pictures of a finite source, picked one after another as `--image-source-sampling` says. */
class Picker {
  #order: number[] = [];
  #next = 0;
  constructor(
    readonly sources: Source[],
    readonly sampling: ImageOptions["imageSourceSampling"],
    readonly rand: MediaRandom,
  ) {}

  next(): Source {
    const n = this.sources.length;
    if (this.sampling === "random-with-replacement") {
      return this.sources[Math.floor(this.rand.random() * n)];
    }
    if (this.#next === 0 || this.#next >= this.#order.length) {
      this.#order = Array.from({ length: n }, (_, i) => i);
      if (this.sampling === "shuffle-cycle") {
        for (let i = n - 1; i > 0; i--) {
          const j = Math.floor(this.rand.random() * (i + 1));
          [this.#order[i], this.#order[j]] = [this.#order[j], this.#order[i]];
        }
      }
      this.#next = 0;
    }
    return this.sources[this.#order[this.#next++]];
  }
}

function cached(name: string, read: () => Uint8Array): Source {
  let px: Pixels | undefined;
  return {
    name,
    load: () => {
      if (!px) {
        try {
          px = decodeImage(read());
        } catch (err) {
          throw new Error(`cannot read image "${name}": ${(err as Error).message}`);
        }
      }
      return px;
    },
  };
}

/** The bundled pictures. */
function assetSources(): Source[] {
  return IMAGE_ASSETS.map((a) =>
    cached(`assets/${a.name}`, () => new Uint8Array(Buffer.from(a.png, "base64")))
  );
}

/**
 * The PNG and JPEG files of a directory, sorted by name; other files are skipped. Throws an
 * `Error` naming the directory when it cannot be read or holds no picture.
 */
function directorySources(dir: string): Source[] {
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile).map((e) => e.name).sort();
  } catch (err) {
    throw new Error(
      `--image-source "${dir}" is not a readable directory (${(err as Error).message})`,
    );
  }
  const pictures = names.filter((n) => /\.(png|jpe?g)$/i.test(n));
  if (pictures.length === 0) {
    throw new Error(`--image-source "${dir}" holds no .png, .jpg or .jpeg file`);
  }
  return pictures.map((n) => cached(join(dir, n), () => Deno.readFileSync(join(dir, n))));
}

/** Draws the images of a run, one request's batch at a time. */
export class ImageMaker {
  #picker: Picker | null;

  /** Throws an `Error` when `--image-source` names a directory without pictures. */
  constructor(readonly opts: ImageOptions, readonly rand: MediaRandom) {
    const src = opts.imageSource;
    this.#picker = src === "noise" ? null : new Picker(
      src === "assets" ? assetSources() : directorySources(src),
      opts.imageSourceSampling,
      rand,
    );
  }

  /** One image as a `data:` URL, of a drawn size and format. */
  one(): string {
    const o = this.opts;
    const width = this.rand.normalInt(o.imageWidthMean, o.imageWidthStddev, 1);
    const height = this.rand.normalInt(o.imageHeightMean, o.imageHeightStddev, 1);
    const format: ImageFormat = o.imageFormat === "random"
      ? this.rand.pick(["png", "jpeg"] as const)
      : o.imageFormat;
    let bytes: Uint8Array;
    if (this.#picker) {
      bytes = encodeImage(resizePixels(this.#picker.next().load(), width, height), format);
    } else if (format === "png") {
      const rgb = new Uint8Array(width * height * 3);
      fillNoise(rgb, this.rand.u32());
      bytes = encodeNoisePng(rgb, width, height);
    } else {
      const rgba = new Uint8Array(width * height * 4);
      fillNoise(rgba, this.rand.u32());
      for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
      bytes = encodeImage({ width, height, rgba }, format);
    }
    return `data:${IMAGE_MEDIA_TYPE[format]};base64,${base64(bytes)}`;
  }

  /** A request's images (`--image-batch-size` of them). */
  batch(): string[] {
    return Array.from({ length: this.opts.imageBatchSize }, () => this.one());
  }
}
