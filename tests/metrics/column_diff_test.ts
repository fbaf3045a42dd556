import assert from "node:assert/strict";
import { Column, type ColumnOptions, CopyBuffers } from "../../src/metrics/column.ts";
import { MetricsAggregator } from "../../src/metrics/aggregator.ts";
import { computeRecordMetrics } from "../../src/metrics/record_metrics.ts";
import type { RecordMetrics } from "../../src/metrics/definitions.ts";
import { histogramNear, ReferenceColumn, variedCases } from "./_reference.ts";
import { stdPopulation } from "../../src/metrics/stats.ts";
import { setPlainPaths } from "../../src/util/fast_paths.ts";

/** A linear congruential generator of numbers in [0, 1) from `seed`: the same every run. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

/**
 * Whether the column's running mean or variance is the reference's: the same double while the
 * values are kept (folded one by one, as the reference does), within 1e-12 past the cap, where a
 * list's values are merged into them at once.
 */
function momentNear(col: Column, ref: ReferenceColumn, which: "mean" | "variance"): boolean {
  const [a, b] = [col[which], ref[which]];
  if (Object.is(a, b)) return true;
  return !ref.exact && Math.abs(a - b) <= Math.abs(b) * 1e-12;
}

function assertSame(col: Column, ref: ReferenceColumn, what: string): void {
  assert.equal(col.count, ref.count, what);
  assert.ok(Object.is(col.sum, ref.sum), `${what}: sum ${col.sum} != ${ref.sum}`);
  assert.ok(Object.is(col.min, ref.min), what);
  assert.ok(Object.is(col.max, ref.max), what);
  assert.ok(momentNear(col, ref, "mean"), `${what}: mean ${col.mean} != ${ref.mean}`);
  assert.ok(momentNear(col, ref, "variance"), `${what}: ${col.variance} != ${ref.variance}`);
  assert.deepEqual(Array.from(col.values()), ref.values, what);
  assert.deepEqual(
    Array.from(col.sorted()),
    Array.from(Float64Array.from(ref.values).sort()),
    what,
  );
  assert.equal(col.exact, ref.exact, what);
  assert.equal(col.sampleComplete, ref.sampleComplete, what);
  if (ref.exact) {
    assert.deepEqual(col.sortedSample(), Float64Array.from(ref.live).sort(), what);
    assert.equal(col.countedValuesAt([0]), null, what);
    return;
  }
  // Past the cap: every rank of every value pushed, read back from the histogram.
  const sorted = Float64Array.from(ref.all).sort();
  const ranks = Array.from(sorted, (_, r) => r);
  const at = col.countedValuesAt([...ranks, -1, sorted.length])!;
  assert.equal(at.size, sorted.length, what);
  for (const r of ranks) {
    const v = at.get(r)!;
    assert.ok(histogramNear(v, sorted[r]), `${what}: rank ${r} read ${v}, is ${sorted[r]}`);
  }
  // The live sample stands in as values at evenly spaced ranks.
  const sample = col.sortedSample();
  const n = Math.min(ref.liveSize, ref.count);
  assert.equal(sample.length, n, what);
  for (let i = 0; i < n; i++) {
    const want = sorted[n === 1 ? 0 : Math.round((i * (ref.count - 1)) / (n - 1))];
    assert.ok(histogramNear(sample[i], want), `${what}: sample ${i} ${sample[i]} for ${want}`);
  }
}

Deno.test("Column: push and pushAll keep what pushing one value at a time keeps", () => {
  const options: ColumnOptions[] = [
    {},
    { cap: 100, liveSize: 10 },
    { cap: 1, liveSize: 1 },
    { cap: 1000, liveSize: 4096 },
    { cap: 5000, liveSize: 37 },
    // Storage in many chunks, a cap between chunk ends.
    { cap: 5000, liveSize: 37, chunkSize: 64 },
    { cap: 1000, liveSize: 100, chunkSize: 16 },
    { cap: 100, liveSize: 10, chunkSize: 64 },
    { chunkSize: 128 },
    { cap: 300, chunkSize: 1 },
  ];
  for (const opts of options) {
    const rand = lcg(12345);
    const col = new Column(opts);
    const ref = new ReferenceColumn(opts);
    const what = JSON.stringify(opts);
    for (let round = 0; round < 60; round++) {
      const n = Math.floor(rand() * 300);
      const values = Float64Array.from({ length: n }, () => rand() * 1e7 - 1e3);
      if (round === 7) values.fill(-0, 0, Math.min(3, n));
      if (round % 3 === 0) {
        for (const v of values) col.push(v);
      } else if (round % 3 === 1) {
        col.pushAll(round % 2 === 0 ? values : Array.from(values));
      } else {
        // A slice given by bounds.
        const from = Math.floor(n / 3);
        const to = n - Math.floor(n / 4);
        col.pushAll(values, from, to);
        for (let i = 0; i < from; i++) col.push(values[i]);
        for (const v of values.subarray(from, to)) ref.push(v);
        for (let i = 0; i < from; i++) ref.push(values[i]);
        assertSame(col, ref, `${what} round ${round}`);
        continue;
      }
      for (const v of values) ref.push(v);
      assertSame(col, ref, `${what} round ${round}`);
    }
  }
});

Deno.test("Column: the running moments, read seldom or never before the cap, are those of pushing one at a time", () => {
  // Values all kept are folded into the running moments only when read or when sampling
  // starts: across many chunks, with the cap crossed inside a pushAll and by a push.
  for (
    const opts of [
      { cap: 1000, liveSize: 50, chunkSize: 64 },
      { cap: 777, liveSize: 10, chunkSize: 16 },
      { cap: 5000, liveSize: 100 },
    ]
  ) {
    for (const readEvery of [0, 5, 13]) {
      const rand = lcg(4242);
      const col = new Column(opts);
      const ref = new ReferenceColumn(opts);
      const what = `${JSON.stringify(opts)} read every ${readEvery}`;
      for (let round = 0; round < 40; round++) {
        const values = Array.from({ length: Math.floor(rand() * 250) }, () => rand() * 1e6);
        if (round % 4 === 3) { for (const v of values) col.push(v); }
        else col.pushAll(values);
        for (const v of values) ref.push(v);
        if (readEvery > 0 && round % readEvery === readEvery - 1) {
          assert.ok(momentNear(col, ref, "variance"), `${what} round ${round}`);
        }
      }
      assertSame(col, ref, what);
    }
  }
});

Deno.test("Column: non-finite values are kept as they come", () => {
  const col = new Column({ cap: 4, liveSize: 2 });
  const ref = new ReferenceColumn({ cap: 4, liveSize: 2 });
  const values = [1, NaN, Infinity, -Infinity, 2, -0, 3, NaN];
  col.pushAll(values, 0, 4);
  for (const v of values.slice(4)) col.push(v);
  for (const v of values) ref.push(v);
  assertSame(col, ref, "non-finite");
});

/** The same metrics as an object built key by key, in reverse order, with a tag no metric has. */
function rebuilt(m: RecordMetrics): RecordMetrics {
  const out: RecordMetrics = { not_a_metric: 1 };
  for (const tag of Object.keys(m).reverse()) out[tag] = m[tag];
  return out;
}

Deno.test("MetricsAggregator: summaries do not depend on how the metrics object was built", () => {
  const a = new MetricsAggregator({ cap: 500, liveSize: 64 });
  const b = new MetricsAggregator({ cap: 500, liveSize: 64 });
  for (let round = 0; round < 3; round++) {
    for (const c of variedCases()) {
      const m = computeRecordMetrics(c.rec, c.ctx);
      a.add(c.rec, m);
      b.add(c.rec, rebuilt(m));
    }
  }
  assert.deepEqual(a.summary(), b.summary());
  assert.deepEqual(a.snapshot(), b.snapshot());
  assert.deepEqual(a.errorSummary(), b.errorSummary());
  assert.deepEqual(a.timeRange, b.timeRange);
});

Deno.test("Column: full chunks of whole numbers take half the memory and give the same values", () => {
  const rand = lcg(987654);
  // Whole nanoseconds as times are, then, past the cap, values an Int32Array cannot hold.
  const opts: ColumnOptions = { cap: 4000, liveSize: 50, chunkSize: 64 };
  const col = new Column(opts);
  const ref = new ReferenceColumn(opts);
  for (let i = 0; i < 2000; i++) {
    const v = Math.round(rand() * 5e6);
    col.push(v);
    ref.push(v);
  }
  assertSame(col, ref, "whole numbers");
  // 31 full chunks as Int32Array, the last (64 values) as doubles.
  assert.equal(col.storedBytes, 31 * 64 * 4 + 64 * 8);
  // The copy a summary ranks is whole numbers too.
  assert.ok(col.copy() instanceof Int32Array);
  const odd = [-0, 0.5, 2 ** 31, -(2 ** 31) - 1, NaN, Infinity, 3e9];
  for (let i = 0; i < 6000; i++) {
    const v = i % 10 === 0 ? odd[(i / 10) % odd.length] : Math.round(rand() * 5e6);
    if (i % 2 === 0) col.push(v);
    else col.pushAll([v]);
    ref.push(v);
  }
  assertSame(col, ref, "then values Int32 cannot hold");
  assert.ok(!col.exact);
  // The kept values are given up for the histogram: a page of counts per sign and exponent.
  assert.equal(col.copy().length, 0);
  assert.equal(col.storedBytes, histogramPages(ref.all) * 4096 * 4);
});

Deno.test("narrow-columns: the plain path (doubles only) keeps the same values and summary", () => {
  const opts: ColumnOptions = { cap: 5000, liveSize: 50, chunkSize: 64 };
  // Flags, token counts and whole-ns times (1, 2 and 4 bytes narrowed), and fractions; and the
  // varied records over and over, so that every metric fills chunks.
  const build = () => {
    const rand = lcg(13579);
    const kinds = [
      () => Math.floor(rand() * 2),
      () => Math.floor(rand() * 60_000),
      () => Math.round(rand() * 3e9) - 1e9,
      () => rand() * 100,
    ];
    const cols = kinds.map(() => new Column(opts));
    const agg = new MetricsAggregator({ cap: 5000, liveSize: 64, chunkSize: 64 });
    const cases = variedCases();
    for (let i = 0; i < 1000; i++) {
      kinds.forEach((k, j) => cols[j].push(k()));
      const c = cases[i % cases.length];
      agg.add(c.rec, computeRecordMetrics(c.rec, c.ctx));
    }
    return { cols, agg };
  };
  const fastRun = build();
  setPlainPaths(["narrow-columns"]);
  let plainRun: ReturnType<typeof build>;
  try {
    plainRun = build();
  } finally {
    setPlainPaths([]);
  }
  for (let j = 0; j < fastRun.cols.length; j++) {
    const [f, p] = [fastRun.cols[j], plainRun.cols[j]];
    assert.deepEqual(Array.from(p.values()), Array.from(f.values()), `column ${j}`);
    assert.deepEqual(Array.from(p.sorted()), Array.from(f.sorted()), `column ${j}`);
    assert.equal(p.mean, f.mean);
    assert.equal(p.variance, f.variance);
    // Plain: 1,000 values in doubles (15 full chunks and the last); fast: whole numbers narrower.
    assert.equal(p.storedBytes, 16 * 64 * 8, `column ${j}`);
    if (j < 3) assert.ok(f.storedBytes < p.storedBytes, `column ${j}`);
  }
  assert.deepEqual(plainRun.agg.summary(), fastRun.agg.summary());
  assert.deepEqual(plainRun.agg.snapshot(), fastRun.agg.snapshot());
});

/** Pages a histogram of `values` counts them in: their distinct signs and exponents. */
function histogramPages(values: readonly number[]): number {
  const view = new DataView(new ArrayBuffer(8));
  const pages = new Set<number>();
  for (const v of values) {
    view.setFloat64(0, v);
    pages.add(view.getUint16(0) >>> 4);
  }
  return pages.size;
}

Deno.test("Column: full chunks of small whole numbers take a byte or two a value and give the same values", () => {
  const rand = lcg(24680);
  const opts: ColumnOptions = { cap: 640, liveSize: 50, chunkSize: 64 };
  // Flags and short token counts (a byte each), then longer counts (two bytes each).
  const bytes = new Column(opts);
  const bytesRef = new ReferenceColumn(opts);
  const shorts = new Column(opts);
  const shortsRef = new ReferenceColumn(opts);
  // A value to a column, alone or as a list, and to its reference.
  const add = (col: Column, ref: ReferenceColumn, v: number, asList: boolean) => {
    if (asList) col.pushAll([v]);
    else col.push(v);
    ref.push(v);
  };
  for (let i = 0; i < 600; i++) {
    const b = Math.floor(rand() * 256);
    // Chunks of counts under 4,096 first, then up to 65,535.
    const h = 256 + Math.floor(rand() * (i < 320 ? 3840 : 65280));
    add(bytes, bytesRef, b, false);
    add(shorts, shortsRef, h, true);
  }
  assertSame(bytes, bytesRef, "bytes");
  assertSame(shorts, shortsRef, "shorts");
  // 9 full chunks of 64 values, the last as doubles.
  assert.equal(bytes.storedBytes, 9 * 64 + 64 * 8);
  assert.equal(shorts.storedBytes, 9 * 64 * 2 + 64 * 8);
  assert.ok(bytes.copy() instanceof Int32Array);
  // Past the cap, values the narrow chunks could not hold are counted with the rest.
  const odd = [256, -1, 65536, 0.5, -0, 2 ** 31, NaN];
  for (let i = 0; i < 3000; i++) {
    const v = i % 5 === 0 ? odd[(i / 5) % odd.length] : Math.floor(rand() * 300);
    add(bytes, bytesRef, v, false);
    add(shorts, shortsRef, v, true);
  }
  assertSame(bytes, bytesRef, "bytes, then wider values");
  assertSame(shorts, shortsRef, "shorts, then wider values");
  assert.ok(!bytes.exact);
  assert.equal(bytes.storedBytes, histogramPages(bytesRef.all) * 4096 * 4);
});

Deno.test("Column.copy: copies into lent buffers share one array per kind, grown when too short", () => {
  const opts: ColumnOptions = { chunkSize: 16 };
  const ints = new Column(opts);
  const fractions = new Column(opts);
  const longer = new Column(opts);
  for (let i = 0; i < 50; i++) {
    ints.push(1000 - i);
    fractions.push(i + 0.5);
  }
  for (let i = 0; i < 80; i++) longer.push(i * 7);
  const buffers = new CopyBuffers();
  const a = ints.copy(buffers);
  assert.ok(a instanceof Int32Array);
  assert.deepEqual(Array.from(a), Array.from(ints.copy()));
  const f = fractions.sorted(buffers);
  assert.ok(f instanceof Float64Array);
  assert.deepEqual(Array.from(f), Array.from(fractions.sorted()));
  // The next integer copy takes the first one's memory; a longer one grows it, once.
  const b = ints.sorted(buffers);
  assert.equal(b.buffer, a.buffer);
  assert.deepEqual(Array.from(b), Array.from(ints.sorted()));
  const c = longer.copy(buffers);
  assert.notEqual(c.buffer, a.buffer);
  assert.deepEqual(Array.from(c), Array.from(longer.copy()));
  assert.equal(ints.copy(buffers).buffer, c.buffer);
  assert.equal(ints.copy(buffers).length, 50);
});

Deno.test("Column.wholeValuesAt: every rank of whole numbers as a sort places it, without a copy", () => {
  const rand = lcg(13579);
  const opts: ColumnOptions = { cap: 100_000, liveSize: 50, chunkSize: 64 };
  // Chunks of bytes, of shorts and of Int32 (negative values, both ends of the range, many
  // equal values), and a last chunk of doubles holding whole numbers.
  const extremes = [-(2 ** 31), 2 ** 31 - 1, -1, 0, 65535, 65536];
  const spreads = [256, 65536, 2 ** 32];
  const col = new Column(opts);
  for (let i = 0; i < 3000; i++) {
    const spread = spreads[Math.floor(i / 1000)];
    const v = i % 97 === 0
      ? extremes[(i / 97) % extremes.length]
      : i % 3 === 0
      ? 7
      : Math.floor(rand() * spread) - (spread > 65536 ? 2 ** 31 : 0);
    if (i % 2 === 0) col.push(v);
    else col.pushAll([v]);
  }
  const sorted = col.sorted();
  const ranks = Array.from({ length: sorted.length }, (_, r) => r);
  // Out of range ranks are left out; each asked rank once.
  const at = col.wholeValuesAt([...ranks, -1, sorted.length, 0])!;
  assert.equal(at.size, sorted.length);
  for (const r of ranks) assert.equal(at.get(r), sorted[r], `rank ${r}`);
  // A few ranks, as a summary asks.
  const few = col.wholeValuesAt([2999, 0, 1500, 1501, 29])!;
  assert.deepEqual(
    [...few].sort((a, b) => a[0] - b[0]),
    [0, 29, 1500, 1501, 2999].map((r) => [r, sorted[r]]),
  );
  // Counts lent to one column after another are cleared between them.
  const buffers = new CopyBuffers();
  const other = new Column(opts);
  for (let i = 0; i < 500; i++) other.push(1000 - 3 * i);
  const otherSorted = other.sorted();
  for (const [c, s] of [[col, sorted], [other, otherSorted], [col, sorted]] as const) {
    const got = c.wholeValuesAt([0, 17, 250, 499, 2999], buffers)!;
    for (const [r, v] of got) assert.equal(v, s[r], `rank ${r} of ${s.length}`);
  }
  // The standard deviation over the chunks is the one over a copy.
  const mean = col.sum / col.count;
  assert.ok(Object.is(col.stdAbout(mean), stdPopulation(col.copy(), mean)));
  // A fraction in the last chunk, or in a full one, and the ranks cannot be read this way.
  col.push(0.5);
  assert.equal(col.wholeValuesAt([0]), null);
  for (let i = 0; i < 64; i++) col.push(i);
  assert.equal(col.wholeValuesAt([0]), null);
  assert.ok(
    Object.is(col.stdAbout(col.sum / col.count), stdPopulation(col.copy(), col.sum / col.count)),
  );
  assert.ok(Number.isNaN(new Column().stdAbout(0)));
  assert.equal(new Column().wholeValuesAt([0])!.size, 0);
});

Deno.test("column: the live sample is uniform over every value pushed, however they come", () => {
  // 200,000 values 0, 1, 2, ... and a sample of 1,000: each tenth of the range should hold about
  // 100 of the sample (a standard deviation of about 9.5), the last tenth as much as the first.
  const n = 200_000;
  const size = 1000;
  const values = Float64Array.from({ length: n }, (_, i) => i);
  const byOne = new Column({ liveSize: size });
  for (const v of values) byOne.push(v);
  // As the inter-chunk latencies of records come: lists of 255, then past a cap of 150,000.
  const byLists = new Column({ liveSize: size, cap: 150_000 });
  for (let i = 0; i < n; i += 255) byLists.pushAll(values, i, Math.min(n, i + 255));
  for (const [what, col] of [["one by one", byOne], ["in lists, past the cap", byLists]] as const) {
    const sample = col.sortedSample();
    assert.equal(sample.length, size, what);
    assert.equal(new Set(sample).size, size, `${what}: a value sampled twice`);
    const bins = new Array<number>(10).fill(0);
    for (const v of sample) bins[Math.floor(v / (n / 10))]++;
    for (const [i, b] of bins.entries()) {
      assert.ok(b >= 60 && b <= 140, `${what}: tenth ${i} holds ${b} of ${size} (${bins})`);
    }
  }
});

Deno.test("column: past the cap, every percentile of every value pushed within 2^-12, in a few pages", () => {
  // 200,000 values 0, 1, 2, ... in lists, and a cap of 20,000.
  const n = 200_000;
  const cap = 20_000;
  const values = Float64Array.from({ length: n }, (_, i) => i);
  const col = new Column({ cap });
  for (let i = 0; i < n; i += 255) col.pushAll(values, i, Math.min(n, i + 255));
  assert.ok(!col.exact);
  assert.equal(col.kept, 0);
  assert.equal(col.sorted().length, 0);
  const ranks = [0, 1, 999, 20_000, 100_000, 123_457, 180_000, 198_000, 199_998, 199_999];
  const at = col.countedValuesAt(ranks)!;
  for (const r of ranks) {
    assert.ok(histogramNear(at.get(r)!, r), `rank ${r} read ${at.get(r)}`);
  }
  // The extremes are exact: the column's min and max bound what is read.
  assert.equal(at.get(0), 0);
  assert.equal(at.get(n - 1), n - 1);
  // 0 and the exponents of 1 to 2^17: 19 pages of 16 KiB, where 20,000 doubles took 156 KiB.
  assert.equal(col.storedBytes, 19 * 4096 * 4);
});

Deno.test("column: the moments past the cap are those of every value, to 1e-12", () => {
  // Values that drift far from the kept values' mean, then come back: the running moments must
  // not lose the variance to cancellation.
  const rand = lcg(777);
  const n = 300_000;
  const values = Float64Array.from(
    { length: n },
    (_, i) => (i < 100_000 ? 5e6 : i < 200_000 ? 4e9 : 1e3) + rand() * 1e4,
  );
  const col = new Column({ cap: 50_000 });
  for (let i = 0; i < n; i += 255) col.pushAll(values, i, Math.min(n, i + 255));
  assert.ok(!col.exact);
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  const variance = stdPopulation(values, mean) ** 2;
  assert.ok(Math.abs(col.mean - mean) / mean < 1e-12, `mean ${col.mean} != ${mean}`);
  assert.ok(
    Math.abs(col.variance - variance) / variance < 1e-12,
    `variance ${col.variance} != ${variance}`,
  );
});
