/**
 * Every `aiperf profile` flag of the reference inventory (aiperf-features.md §1.2) parses, and
 * docs/aiperf-flags.md is what the option table generates. The inventory lives beside the
 * repository (`../shared/reference/`, or REPRISE_AIPERF_REFERENCE); without it the inventory
 * tests are skipped with a message.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../../src/config/profile_config.ts";
import { profileOptions } from "../../src/config/options.ts";
import { statusOf } from "../../src/config/options/spec.ts";
import {
  aiperfSpellings,
  DOC_PATH,
  optionFor,
  renderAiperfFlags,
} from "../../scripts/gen_aiperf_flags.ts";
import { REFERENCE } from "../_reference.ts";

// The inventory in the shared reference (tests/_reference.ts), or a copy named by the environment.
const REFERENCES = [
  Deno.env.get("REPRISE_AIPERF_REFERENCE"),
  join(REFERENCE, "aiperf-features.md"),
].filter((p): p is string => p !== undefined);
async function readReference(): Promise<string | null> {
  for (const path of REFERENCES) {
    const text = await Deno.readTextFile(path).catch(() => null);
    if (text !== null) return text;
  }
  return null;
}
const markdown = await readReference();
if (markdown === null) {
  console.warn(
    `skipping the AIPerf flag inventory tests: none of ${REFERENCES.join(", ")} is there`,
  );
}

/**
 * The flags of §1.2, read out of the markdown: every backticked span that starts with a dash,
 * its `/`-separated spellings (`-m/--model/--model-names`; `--profile-export-prefix/-file` is
 * `--profile-export-file`), without values and wildcards.
 */
function flagsOfSection(md: string): string[] {
  const start = md.indexOf("### 1.2");
  const rest = md.slice(start);
  const end = rest.search(/\n---\n|\n## 2\./);
  const section = end < 0 ? rest : rest.slice(0, end);
  const flags: string[] = [];
  for (const m of section.matchAll(/`([^`]+)`/g)) {
    const head = m[1].trim().split(/\s+/)[0];
    if (!head.startsWith("-")) continue;
    let prev = "";
    for (const part of head.split("/")) {
      let name = part;
      if (/^-[a-z]{2,}/.test(part) && part !== "-vv" && prev.startsWith("--")) {
        name = prev.replace(/-[a-z]+$/, "") + part;
      }
      if (!/^-{1,2}[a-zA-Z][a-zA-Z0-9-]*$/.test(name)) continue;
      if (!flags.includes(name)) flags.push(name);
      prev = name;
    }
  }
  return flags;
}

/** A command line giving `flag` a value its option takes (none for a boolean or `-vv`). */
function candidates(flag: string): string[][] {
  const spec = optionFor(profileOptions, flag);
  if (!spec || spec.kind === "boolean" || flag === "-vv" || flag.startsWith("--no-")) {
    return [[flag]];
  }
  const values: string[] = [];
  type Enumish = { options?: string[]; unwrap?: () => Enumish };
  const schema = spec.schema as Enumish;
  const choices = schema.options ?? schema.unwrap?.().options;
  if (choices?.length) values.push(choices[0]);
  if (spec.default !== undefined) {
    values.push(
      Array.isArray(spec.default) ? String(spec.default[0] ?? "x") : String(spec.default),
    );
  }
  values.push("1", "2", "128/128", "x", "request_latency:250", "http://localhost:8000");
  return values.map((v) => [flag, v]);
}

Deno.test({
  name: "the reference's flag list is read out of the markdown",
  ignore: markdown === null,
  fn() {
    const flags = flagsOfSection(markdown!);
    assert.ok(flags.length > 200, `only ${flags.length} flags found`);
    for (
      const f of ["-m", "--model-names", "--profile-export-file", "-vv", "--no-server-metrics"]
    ) {
      assert.ok(flags.includes(f), f);
    }
  },
});

Deno.test({
  name: "every aiperf profile flag of the reference parses (but those added elsewhere)",
  ignore: markdown === null,
  fn() {
    const failures: string[] = [];
    for (const flag of flagsOfSection(markdown!)) {
      const errors: string[] = [];
      const ok = candidates(flag).some((args) => {
        try {
          parseConfig(["profile", ...args]);
          return true;
        } catch (e) {
          errors.push((e as Error).message);
          return false;
        }
      });
      if (!ok) failures.push(`${flag}: ${errors[0]}`);
    }
    assert.deepEqual(failures, []);
  },
});

Deno.test({
  name: "docs/aiperf-flags.md lists every flag of the reference",
  ignore: markdown === null,
  fn() {
    const listed = aiperfSpellings();
    const absent = flagsOfSection(markdown!).filter((f) => !listed.has(f));
    assert.deepEqual(absent, []);
  },
});

Deno.test("docs/aiperf-flags.md is what the option table generates", async () => {
  const current = await Deno.readTextFile(DOC_PATH);
  assert.ok(
    current === renderAiperfFlags(),
    "docs/aiperf-flags.md is stale: run deno run -A scripts/gen_aiperf_flags.ts",
  );
});

Deno.test("every AIPerf flag of the reference is in the option table", () => {
  const missing = [...aiperfSpellings()].filter((f) => !optionFor(profileOptions, f));
  assert.deepEqual(missing, []);
});

Deno.test("a flag without its feature says why, and its default passes its own schema", () => {
  for (const [key, spec] of Object.entries(profileOptions)) {
    if (statusOf(spec) !== "works") assert.ok(spec.why && spec.why.length > 10, key);
    if (spec.default !== undefined) assert.ok(spec.schema.safeParse(spec.default).success, key);
  }
});

Deno.test("AIPerf's spellings of values and flags parse as AIPerf means them", () => {
  const v = parseConfig([
    "profile",
    "--model-names",
    "m",
    "--ui-type",
    "none",
    "--num-requests",
    "5",
    "--output-artifact-dir",
    "out",
    "-vv",
    "--transport",
    "http",
    "--server-metrics",
    "--profile-export-file",
    "foo.json",
  ]).values;
  assert.equal(v.model, "m");
  assert.equal(v.ui, "none");
  assert.equal(v.requestCount, 5);
  assert.equal(v.artifactDir, "out");
  assert.equal(v.extraVerbose, true);
  assert.equal(v.transport, "auto");
  assert.deepEqual(v.serverMetrics, []);
  assert.equal(v.profileExportPrefix, "foo.json");
  // A list flag of AIPerf's takes every value up to the next flag.
  const urls = parseConfig(["--server-metrics", "http://a/metrics", "http://b/metrics", "-m", "x"]);
  assert.deepEqual(urls.values.serverMetrics, ["http://a/metrics", "http://b/metrics"]);
  assert.deepEqual(urls.positionals, []);
  assert.deepEqual(
    parseConfig(["--server-metrics-formats", "json", "jsonl"]).values.serverMetricsFormats,
    ["json", "jsonl"],
  );
  assert.equal(parseConfig(["--ui", "progress"]).values.ui, "simple");
  assert.equal(parseConfig(["--log-level", "debug"]).values.logLevel, "DEBUG");
  assert.throws(() => parseConfig(["--log-level", "LOUD"]), /--log-level must be one of TRACE/);
});

Deno.test("a comma list for a flag that is not sweepable is refused, naming the sweep", () => {
  assert.throws(
    () => parseConfig(["profile", "--warmup-request-count", "10,20,30"]),
    /--warmup-request-count must be a positive integer, got "10,20,30" \(a comma list is a parameter sweep, which this flag does not take\)/,
  );
});
