/** `reprise compare <dir> <dir>`: two runs' summary metrics side by side, change in percent. */

import { compareOptions } from "../config/options.ts";
import { ConfigError, parseOptions } from "../config/parse.ts";
import { compareRuns, type ComparisonRow } from "../report/compare.ts";
import { loadRun, RunDataError } from "../report/run_data.ts";
import { ExitCode } from "./exit_codes.ts";
import { renderHelp } from "./help.ts";
import type { Io } from "./io.ts";

/** The `compare` help text. */
export function compareHelp(): string {
  return renderHelp(
    "reprise compare <base artifact dir> <other artifact dir> [options]",
    "Show two runs' summary metrics side by side with the change from the first to the second,\n" +
      "then the server's statistics of the report's server charts (queue, KV cache, tokens/s)\n" +
      "when the runs scraped the server's /metrics.\n" +
      "Each directory is a run's artifact directory (holding profile_export_aiperf.json); the\n" +
      "change is (other - base) / base in percent, marked better or worse by the metric's\n" +
      "direction. A directory that holds no readable summary is an error (exit 3).\n" +
      "Two repeated-run aggregates, or two sweeps (at each configuration both ran), show each\n" +
      "statistic's mean and confidence interval and whether the difference is beyond the intervals.",
    compareOptions,
  );
}

function num(v: number | null): string {
  if (v === null) return "-";
  return v.toLocaleString("en-US", { maximumFractionDigits: 2, useGrouping: false });
}

function pct(r: ComparisonRow): string {
  if (r.changePct === null) return "-";
  const sign = r.changePct > 0 ? "+" : "";
  const mark = r.changePct === 0
    ? ""
    : (r.changePct > 0) === r.largerIsBetter
    ? " better"
    : " worse";
  return `${sign}${r.changePct.toFixed(1)}%${mark}`;
}

/** The comparison as an aligned plain-text table. */
export function comparisonText(rows: ComparisonRow[], baseName: string, otherName: string): string {
  const lines = [["Metric", "Stat", baseName, otherName, "Change"]];
  for (const r of rows) {
    lines.push([`${r.tag} (${r.unit})`, r.stat, num(r.base), num(r.other), pct(r)]);
  }
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) =>
    l.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd()
  ).join("\n") + "\n";
}

/** Runs `reprise compare`; returns the exit code. */
export async function compareCommand(args: string[], io: Io): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(compareHelp());
    return ExitCode.OK;
  }
  const parsed = parseOptions(compareOptions, args, io.env);
  if (parsed.positionals.length !== 2) {
    throw new ConfigError(
      `compare needs exactly two artifact directories (base, then other), got ${parsed.positionals.length}`,
    );
  }
  const [a, b] = parsed.positionals;
  // Two repeated-run aggregates: means with intervals, and whether each difference exceeds them.
  const agg = await import("../report/compare_aggregate.ts");
  const [fa, fb] = [await agg.aggregateFile(a), await agg.aggregateFile(b)];
  if (fa !== null && fb !== null) {
    const read = async (p: string) => JSON.parse(await Deno.readTextFile(p)).metrics;
    const rows = agg.compareAggregates(await read(fa), await read(fb));
    io.stdout(
      parsed.values.outputFormat === "json"
        ? JSON.stringify({ base: fa, other: fb, metrics: rows }, null, 2) + "\n"
        : agg.aggregateComparisonText(rows, "base", "other"),
    );
    return ExitCode.OK;
  }
  // Two sweeps: each configuration both ran, compared the same way.
  const sweeps = await import("../report/sweep_data.ts");
  const [sa, sb] = [await sweeps.sweepDirOf(a), await sweeps.sweepDirOf(b)];
  if (sa !== null && sb !== null) {
    const [da, db] = [await sweeps.loadSweep(sa), await sweeps.loadSweep(sb)];
    const cmp = agg.compareSweeps(da.points, db.points);
    io.stdout(
      parsed.values.outputFormat === "json"
        ? JSON.stringify({ base: sa, other: sb, configurations: cmp }, null, 2) + "\n"
        : agg.sweepComparisonText(cmp, "base", "other"),
    );
    return ExitCode.OK;
  }
  try {
    const base = await loadRun(a);
    const other = await loadRun(b);
    const rows = compareRuns(base, other);
    if (parsed.values.outputFormat === "json") {
      io.stdout(
        JSON.stringify(
          {
            base: { dir: base.dir, benchmark_id: base.info.benchmark_id ?? null },
            other: { dir: other.dir, benchmark_id: other.info.benchmark_id ?? null },
            metrics: rows.map((r) => ({
              tag: r.tag,
              unit: r.unit,
              stat: r.stat,
              base: r.base,
              other: r.other,
              change_pct: r.changePct,
              larger_is_better: r.largerIsBetter,
            })),
          },
          null,
          2,
        ) + "\n",
      );
    } else {
      io.stdout(
        comparisonText(
          rows,
          base.name,
          other.name === base.name ? `${other.name} (2)` : other.name,
        ),
      );
    }
    return ExitCode.OK;
  } catch (e) {
    if (!(e instanceof RunDataError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return ExitCode.BAD_DATASET;
  }
}
