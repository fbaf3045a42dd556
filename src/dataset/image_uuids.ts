/**
 * `--uuid-and-strip`: within a session, an image whose `image_uuids` id was sent before goes out
 * as its id alone (an empty URL), so that a server caching processed images by id (vLLM) is not
 * sent, and does not decode, the same picture again. Done once when the dataset loads.
 */

import type { PromptTurn } from "./build.ts";

/**
 * Empties the image of every turn of one session whose id an earlier image of the session had;
 * images without an id are left as they are.
 */
export function stripRepeatedImages(turns: readonly PromptTurn[]): void {
  const seen = new Set<string>();
  for (const t of turns) {
    const { images, imageUuids } = t.input;
    if (!images || !imageUuids) continue;
    for (let i = 0; i < images.length; i++) {
      const id = imageUuids[i];
      if (!id) continue;
      if (seen.has(id)) images[i] = "";
      else seen.add(id);
    }
  }
}
