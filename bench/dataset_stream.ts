/**
 * Loads a large raw_payload JSON Lines file and reports time, lines/s and peak RSS, to check
 * that the loader streams: peak memory should track what the dataset keeps (about the file's
 * size, the bodies being one-byte strings), not a multiple of it.
 *
 *   deno run --allow-read --allow-write bench/dataset_stream.ts [size]   # size: 200M, 1G, bytes
 *
 * The file is written to a temporary directory and deleted at the end. Not run by the tests.
 */

import { join } from "node:path";
import { loadDataset } from "../src/dataset/mod.ts";
import { mulberry32 } from "../src/util/rng.ts";

const MiB = 1024 * 1024;

function parseSize(arg: string | undefined): number {
  if (!arg) return 1024 * MiB;
  const m = /^(\d+(?:\.\d+)?)([KMG]i?B?)?$/i.exec(arg.trim());
  if (!m) throw new Error(`size must look like 200M, 1G or a byte count, got "${arg}"`);
  const unit = (m[2] ?? "").toUpperCase()[0];
  const scale = unit === "K" ? 1024 : unit === "M" ? MiB : unit === "G" ? 1024 * MiB : 1;
  return Math.floor(Number(m[1]) * scale);
}

/** Writes about `size` bytes of chat request bodies of 200–2000 bytes each; returns line count. */
async function writeDataset(path: string, size: number): Promise<number> {
  const rand = mulberry32(1);
  const words = "the quick brown fox jumps over a lazy dog while models stream tokens".split(" ");
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let written = 0;
  let lines = 0;
  try {
    while (written < size) {
      let block = "";
      while (block.length < 4 * MiB && written + block.length < size) {
        const target = 200 + Math.floor(rand() * 1800);
        let text = "";
        while (text.length < target) text += words[Math.floor(rand() * words.length)] + " ";
        block += `{"model":"bench","messages":[{"role":"user","content":"${text}"}],` +
          `"max_tokens":${1 + Math.floor(rand() * 512)},"stream":true}\n`;
        lines++;
      }
      const bytes = enc.encode(block);
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
      written += bytes.length;
    }
  } finally {
    file.close();
  }
  return lines;
}

const size = parseSize(Deno.args[0]);
const dir = await Deno.makeTempDir({ prefix: "reprise-bench-" });
try {
  const path = join(dir, "big.jsonl");
  let t0 = performance.now();
  const lines = await writeDataset(path, size);
  const bytes = (await Deno.stat(path)).size;
  console.log(
    `wrote ${(bytes / MiB).toFixed(0)} MiB, ${lines} lines in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s`,
  );

  const before = Deno.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }, 5);
  t0 = performance.now();
  const dataset = await loadDataset(path, {});
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  const after = Deno.memoryUsage();
  peak = Math.max(peak, after.rss);

  const kept = dataset.conversations.reduce((n, c) => n + c.turns[0].body.length, 0);
  console.log(`loaded ${dataset.conversations.length} conversations (${dataset.type})`);
  console.log(
    `time ${seconds.toFixed(2)} s, ${Math.round(lines / seconds)} lines/s, ${
      (bytes / MiB / seconds).toFixed(0)
    } MiB/s`,
  );
  console.log(
    `RSS before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB, ` +
      `after ${(after.rss / MiB).toFixed(0)} MiB (heap used ${
        (after.heapUsed / MiB).toFixed(0)
      } MiB); bodies hold ${(kept / MiB).toFixed(0)} MiB of text; ` +
      `peak growth / file size = ${((peak - before) / bytes).toFixed(2)}`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
