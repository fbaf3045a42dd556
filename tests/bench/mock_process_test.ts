/** What the load bench reads of the mock server's process. */
import assert from "node:assert/strict";
import { hasChrt, stealShare } from "../../bench/mock_process.ts";

const MODULE = new URL("../../bench/mock_process.ts", import.meta.url).href;

/**
 * Runs `code` with `processCpuSeconds`, `machineTicks` and `stealShare` in scope in a process of
 * its own with every permission, as the bench runs (Deno reads /proc files only with all of them);
 * returns what it prints.
 */
async function withAll(code: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "-A",
      "--no-config",
      `import { machineTicks, processCpuSeconds, stealShare } from "${MODULE}";\n${code}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return text;
}

Deno.test({
  name: "processCpuSeconds: a process's CPU time grows with the work it does",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const [before, after] = JSON.parse(
      await withAll(`
        const before = processCpuSeconds(Deno.pid);
        // Busy for 150 ms of CPU time (more than a clock tick of /proc's times), as getrusage
        // counts it: a loaded machine stretches the wall time, not the CPU time.
        const { cpuUsage } = await import("node:process");
        const cpu0 = cpuUsage();
        const until = performance.now() + 60_000;
        let x = 0;
        while (performance.now() < until) {
          for (let i = 0; i < 1e5; i++) x += Math.sqrt(x + 1);
          const used = cpuUsage(cpu0);
          if (used.user + used.system >= 150_000) break;
        }
        console.log(JSON.stringify([before, processCpuSeconds(Deno.pid), x > 0]));
      `),
    );
    assert.ok(typeof before === "number" && before >= 0, String(before));
    assert.ok(after - before >= 0.1, `${before} then ${after}`);
  },
});

Deno.test("processCpuSeconds: null for a process that does not exist", async () => {
  // Above the largest pid Linux hands out (2^22).
  assert.equal(await withAll(`console.log(String(processCpuSeconds(2 ** 23)));`), "null");
});

Deno.test({
  name:
    "startMockProcess: idle runs the mock under the idle scheduling policy, lowest at nice 19, and it answers",
  ignore: Deno.build.os !== "linux" || !hasChrt(),
  async fn() {
    const policies = JSON.parse(
      await withAll(`
        import { niceness, schedulingPolicy, startMockProcess } from "${MODULE}";
        const out = [];
        for (const opts of [{ idle: true }, { lowest: true }, {}]) {
          const mock = await startMockProcess([], opts);
          try {
            const res = await fetch(mock.url + "/v1/models");
            await res.body?.cancel();
            out.push([schedulingPolicy(mock.pid), niceness(mock.pid), res.status]);
          } finally {
            await mock.stop();
          }
        }
        console.log(JSON.stringify(out));
      `),
    );
    // 5: SCHED_IDLE; 0: SCHED_OTHER, the default.
    assert.deepEqual(policies, [[5, 0, 200], [0, 19, 200], [0, 0, 200]]);
  },
});

Deno.test({
  name: "keepAwake: a busy loop per CPU, on that CPU, under the idle policy, gone once stopped",
  ignore: Deno.build.os !== "linux" || !hasChrt(),
  async fn() {
    const [during, after] = JSON.parse(
      await withAll(`
        import { allowedCpus, keepAwake, schedulingPolicy } from "${MODULE}";
        const cpus = Math.min(2, navigator.hardwareConcurrency);
        const loops = keepAwake(cpus);
        // Until each has executed its loop (the pid is taskset's until then).
        const until = performance.now() + 5000;
        const seen = () => loops.pids.map((pid) => [allowedCpus(pid), schedulingPolicy(pid)]);
        while (seen().some(([, p]) => p !== 5) && performance.now() < until) {
          await new Promise((r) => setTimeout(r, 20));
        }
        const during = seen();
        await loops.stop();
        console.log(JSON.stringify([during, loops.pids.map((pid) => schedulingPolicy(pid))]));
      `),
    );
    const cpus = Math.min(2, navigator.hardwareConcurrency);
    assert.deepEqual(during, Array.from({ length: cpus }, (_, cpu) => [String(cpu), 5]));
    assert.deepEqual(after, Array.from({ length: cpus }, () => null));
  },
});

Deno.test("stealShare: the host's steal as a share of the machine's time between two readings", () => {
  assert.equal(stealShare({ total: 1000, steal: 10 }, { total: 1400, steal: 30 }), 0.05);
  assert.equal(stealShare({ total: 1000, steal: 10 }, { total: 1000, steal: 10 }), null);
  assert.equal(stealShare(null, { total: 1, steal: 0 }), null);
});

Deno.test({
  name: "machineTicks: /proc/stat's time grows, and its steal is part of it",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const [before, after, share] = JSON.parse(
      await withAll(`
        const before = machineTicks();
        // Two ticks of USER_HZ at least, on every CPU.
        await new Promise((r) => setTimeout(r, 50));
        const after = machineTicks();
        console.log(JSON.stringify([before, after, stealShare(before, after)]));
      `),
    );
    assert.ok(before !== null && after !== null);
    assert.ok(after.total > before.total, `${before.total} -> ${after.total}`);
    assert.ok(after.steal >= before.steal && after.steal <= after.total);
    assert.ok(share >= 0 && share <= 1, String(share));
  },
});
