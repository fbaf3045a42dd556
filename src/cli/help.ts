/** Help text, generated from the option tables so it can never disagree with the parser. */

import type { OptionTable } from "../config/options.ts";

function flagText(spec: OptionTable[string]): string {
  const names = [
    ...(spec.short ? [`-${spec.short}`] : []),
    `--${spec.flag}`,
    ...(spec.aliases ?? []).map((a) => `--${a}`),
  ].join(", ");
  if (spec.kind === "boolean") return `${names}${spec.default === undefined ? "" : ""}`;
  return `${names} ${spec.metavar ?? "VALUE"}`;
}

/**
 * Renders the options of one command, grouped, with defaults, env vars and, when `yamlKeys` is
 * given, the config-file keys that set each option.
 */
export function renderHelp(
  usage: string,
  summary: string,
  table: OptionTable,
  yamlKeys?: (option: string) => string[],
): string {
  const groups = new Map<string, string[][]>();
  let hidden = 0;
  for (const [key, spec] of Object.entries(table)) {
    // AIPerf's flags without their feature here are listed in docs/aiperf-flags.md instead.
    if (spec.status !== undefined && spec.status !== "works") {
      hidden++;
      continue;
    }
    const notes: string[] = [];
    if (spec.default !== undefined && !(Array.isArray(spec.default) && spec.default.length === 0)) {
      notes.push(`default: ${JSON.stringify(spec.default)}`);
    }
    if (spec.env?.length) notes.push(`env: ${spec.env.join(", ")}`);
    const paths = yamlKeys?.(key) ?? [];
    if (paths.length) notes.push(`yaml: ${paths.join(", ")}`);
    const help = notes.length ? `${spec.help} [${notes.join("; ")}]` : spec.help;
    if (!groups.has(spec.group)) groups.set(spec.group, []);
    groups.get(spec.group)!.push([flagText(spec), help]);
  }
  const width = Math.min(
    44,
    Math.max(...[...groups.values()].flat().map(([f]) => f.length)) + 2,
  );
  const lines = [`Usage: ${usage}`, "", summary];
  for (const [group, rows] of groups) {
    lines.push("", `${group}:`);
    for (const [f, h] of rows) {
      lines.push(
        f.length + 2 > width ? `  ${f}\n  ${" ".repeat(width)}${h}` : `  ${f.padEnd(width)}${h}`,
      );
    }
  }
  if (hidden > 0) {
    lines.push(
      "",
      `${hidden} more of AIPerf's flags are accepted (without effect, or refused when they would change the run): see docs/aiperf-flags.md.`,
    );
  }
  return lines.join("\n") + "\n";
}
