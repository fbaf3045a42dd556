/**
 * The main thread yields the CPU to the Workers (util/thread_priority.ts). A priority is a
 * thread's own: each case runs in a process of its own, so that the test runner keeps its own.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { MAIN_THREAD_NICE } from "../../src/util/thread_priority.ts";

const MODULE = fileURLToPath(new URL("../../src/util/thread_priority.ts", import.meta.url));
const FAST = fileURLToPath(new URL("../../src/util/fast_paths.ts", import.meta.url));

/**
 * Runs a script that starts a Worker, calls `yieldToWorkers`, and prints what it returned, the
 * main thread's nice value and the Worker's (which reads its own).
 */
async function run(permissions: string[], plain = false) {
  const script = `
    import { getPriority } from "node:os";
    import { yieldToWorkers } from ${JSON.stringify(MODULE)};
    import { setPlainPaths } from ${JSON.stringify(FAST)};
    if (${plain}) setPlainPaths(["thread-priority"]);
    const w = new Worker(
      "data:text/javascript,import { getPriority } from 'node:os';" +
        "self.onmessage = () => { let p = -1; try { p = getPriority(0); } catch {} postMessage(p); };",
      { type: "module" },
    );
    await new Promise((r) => { w.onmessage = r; w.postMessage(0); });
    const yielded = yieldToWorkers();
    let main = 0;
    try { main = getPriority(0); } catch { main = -1; }
    const worker = await new Promise((r) => { w.onmessage = (e) => r(e.data); w.postMessage(0); });
    w.terminate();
    console.log(JSON.stringify({ yielded, main, worker }));
  `;
  // `deno eval` would grant every permission: the script runs from a file.
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(file, script);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", ...permissions, file],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(file);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout)) as {
    yielded: boolean;
    main: number;
    worker: number;
  };
}

Deno.test({
  name: "thread priority: the main thread goes below the Workers, which keep theirs (Linux)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const r = await run(["--allow-read", "--allow-sys=getPriority,setPriority"]);
    assert.equal(r.yielded, true);
    assert.equal(r.main, MAIN_THREAD_NICE);
    assert.equal(r.worker, 0);
  },
});

Deno.test({
  name:
    "thread priority: without --allow-sys=getPriority,setPriority, or turned off, nothing changes",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // The priority is readable, not settable.
    const denied = await run(["--allow-read", "--allow-sys=getPriority"]);
    assert.deepEqual(denied, { yielded: false, main: 0, worker: 0 });
    const plain = await run(["--allow-read", "--allow-sys=getPriority,setPriority"], true);
    assert.deepEqual(plain, { yielded: false, main: 0, worker: 0 });
  },
});
