/**
 * The import graph of `src/`, read with `deno info --json`: no import cycles between files, and no
 * import from a folder to one above it in the data flow (docs/architecture.md has the layers).
 */

import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const toFileUrl = pathToFileURL;

const ROOT = join(import.meta.dirname!, "..", "..");
const SRC = join(ROOT, "src");

/**
 * Each folder of `src/` and its layer: a file may import from its own folder and from folders of
 * a lower layer, never from one of its own layer or above.
 */
export const LAYERS: Record<string, number> = {
  "util": 0,
  "version.ts": 0,
  "record": 1,
  "config": 2,
  "tokenizer": 2,
  "endpoints": 3,
  "transport": 3,
  "answer": 4,
  "dataset": 4,
  "metrics": 5,
  "plan": 5,
  "load": 6,
  "observe": 7,
  "export": 7,
  "sweep": 7,
  "report": 8,
  "api": 8,
  "mock": 8,
  "cli": 9,
};

async function srcFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...await srcFiles(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier?: string }; type?: { specifier?: string } }[];
}

/** Every `src/` file and the `src/` files it imports (code or type), by path under `src/`. */
async function importGraph(): Promise<Map<string, Set<string>>> {
  const files = await srcFiles(SRC);
  const entry = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import ${JSON.stringify(toFileUrl(f).href)};`).join("\n"),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", join(ROOT, "deno.json"), entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    const prefix = toFileUrl(SRC).href + "/";
    const graph = new Map<string, Set<string>>();
    for (const m of info.modules) {
      if (!m.specifier.startsWith(prefix)) continue;
      const deps = new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const s of [d.code?.specifier, d.type?.specifier]) {
          if (s?.startsWith(prefix)) deps.add(s.slice(prefix.length));
        }
      }
      graph.set(m.specifier.slice(prefix.length), deps);
    }
    for (const f of files) assert.ok(graph.has(relative(SRC, f)), `deno info missed ${f}`);
    return graph;
  } finally {
    await Deno.remove(entry);
  }
}

const graph = await importGraph();

Deno.test("every src/ folder has a layer", () => {
  const folders = new Set([...graph.keys()].map((f) => f.split("/")[0]));
  const unknown = [...folders].filter((f) => !(f in LAYERS));
  assert.deepEqual(unknown, [], "give these folders a layer in LAYERS and docs/architecture.md");
});

Deno.test("no src/ file imports from its own layer or a higher one, but for its own folder", () => {
  const wrong: string[] = [];
  for (const [from, deps] of graph) {
    const a = from.split("/")[0];
    for (const to of deps) {
      const b = to.split("/")[0];
      if (a !== b && LAYERS[b] >= LAYERS[a]) {
        wrong.push(`${from} (${a}, layer ${LAYERS[a]}) -> ${to} (${b}, layer ${LAYERS[b]})`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("the src/ import graph has no cycle", () => {
  // Tarjan's strongly connected components; any component of more than one file is a cycle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || graph.get(v)?.has(v)) cycles.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  assert.deepEqual(cycles, []);
});

Deno.test("no src/ file is over 700 lines, but generated data", async () => {
  const GENERATED = new Set(["tokenizer/o200k_data.ts", "answer/sse_scan_wasm.ts"]);
  const long: string[] = [];
  for (const f of graph.keys()) {
    if (GENERATED.has(f)) continue;
    const lines = (await Deno.readTextFile(join(SRC, f))).split("\n").length;
    if (lines > 700) long.push(`${f}: ${lines} lines`);
  }
  assert.deepEqual(long, []);
});
