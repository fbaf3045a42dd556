import assert from "node:assert/strict";
import { join } from "node:path";
import {
  binaryName,
  compile,
  compileArgs,
  INCLUDES,
  isDownloadFailure,
  sha256Sums,
  TARGETS,
  V8_FLAGS,
} from "../../scripts/compile.ts";

Deno.test("one binary name per target, .exe on Windows", () => {
  assert.equal(TARGETS.length, 5);
  assert.equal(
    binaryName("1.2.3", "x86_64-unknown-linux-gnu"),
    "reprise-1.2.3-x86_64-unknown-linux-gnu",
  );
  assert.equal(
    binaryName("1.2.3", "x86_64-pc-windows-msvc"),
    "reprise-1.2.3-x86_64-pc-windows-msvc.exe",
  );
});

Deno.test("compile arguments include the Worker module and name target and output", () => {
  const args = compileArgs("aarch64-apple-darwin", "1.2.3", "/out");
  assert.equal(args[0], "compile");
  assert.equal(args.at(-1), "main.ts");
  assert.ok(INCLUDES.includes("src/load/worker.ts"));
  for (const f of INCLUDES) assert.equal(args[args.indexOf(f) - 1], "--include");
  assert.equal(args[args.indexOf("--target") + 1], "aarch64-apple-darwin");
  assert.equal(
    args[args.indexOf("--output") + 1],
    join("/out", "reprise-1.2.3-aarch64-apple-darwin"),
  );
  assert.ok(!args.includes("--allow-all") && !args.includes("-A") && !args.includes("--allow-sys"));
  // The memory setting is baked in, before the entry module.
  assert.ok(args.indexOf(`--v8-flags=${V8_FLAGS}`) > 0);
  assert.ok(args.indexOf(`--v8-flags=${V8_FLAGS}`) < args.indexOf("main.ts"));
});

Deno.test("the demo task and the README run a checkout with the binaries' V8 settings", async () => {
  const root = join(import.meta.dirname!, "..", "..");
  const tasks = JSON.parse(await Deno.readTextFile(join(root, "deno.json"))).tasks;
  assert.ok(tasks.demo.includes(`--v8-flags=${V8_FLAGS} `), tasks.demo);
  const readme = await Deno.readTextFile(join(root, "README.md"));
  assert.ok(readme.includes(`--v8-flags=${V8_FLAGS}\``), "README.md names other V8 flags");
});

Deno.test("a runtime download failure is told from other compile errors", () => {
  assert.ok(isDownloadFailure(
    "error: Writing deno compile executable\nCaused by:\n    0: Setting up base binary.\n    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-aarch64-unknown-linux-gnu.zip): dns error",
  ));
  assert.ok(!isDownloadFailure("error: TS2322 [ERROR]: Type 'string' is not assignable"));
});

Deno.test("SHA256SUMS lines are sha256sum -c format, sorted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "b"), "abc");
    await Deno.writeTextFile(join(dir, "a"), "");
    assert.equal(
      await sha256Sums([join(dir, "b"), join(dir, "a")]),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\n" +
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  b\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("unknown targets and DENORT_BIN with several targets are refused", async () => {
  const lines: string[] = [];
  assert.equal(await compile(["sparc-sun-solaris"], { log: (t) => lines.push(t) }), 2);
  assert.match(lines[0], /unknown target "sparc-sun-solaris"/);
  assert.equal(
    await compile([...TARGETS], { denortBin: "/nope", log: (t) => lines.push(t) }),
    2,
  );
  assert.match(lines[1], /DENORT_BIN is one runtime/);
});

/** The runtime download can only fail the expected way where its host does not resolve. */
// Asked in a subprocess: the test itself may lack the net permission DNS lookups need.
const offline = !(await new Deno.Command(Deno.execPath(), {
  args: ["eval", 'await Deno.resolveDns("dl.deno.land", "A")'],
  stdout: "null",
  stderr: "null",
}).output()).success;

Deno.test({
  name: "without internet access, compile says so in one line and fails",
  ignore: !offline,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const lines: string[] = [];
      const code = await compile(["aarch64-unknown-linux-gnu"], {
        outDir: dir,
        log: (t) => lines.push(t),
      });
      assert.equal(code, 1);
      assert.deepEqual(lines, [
        "error: cannot download the Deno runtime for aarch64-unknown-linux-gnu (no internet access?); set DENORT_BIN to a local denort binary",
      ]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
