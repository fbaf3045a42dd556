import assert from "node:assert/strict";
import { FD_RESERVE, fdLimitWarning, softFdLimit } from "../../src/plan/fd_limit.ts";

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 4096                 files
Max locked memory         8388608              8388608              bytes
`;

Deno.test("the soft open-file limit is read from /proc/self/limits; a missing file is no limit", () => {
  assert.equal(softFdLimit(LIMITS), 1024);
  assert.equal(softFdLimit(null), null);
  assert.equal(softFdLimit(LIMITS.replace("1024 ", "unlimited")), null);
  assert.equal(softFdLimit("garbage"), null);
});

Deno.test("a concurrency above the soft fd limit gets a one-line warning with the fix", () => {
  const w = fdLimitWarning(2000, LIMITS);
  assert.ok(w !== null);
  assert.equal(w.split("\n").length, 1);
  assert.match(w, /--concurrency 2000/);
  assert.match(w, /soft limit of 1024/);
  assert.match(w, /ulimit -n/);
  assert.equal(fdLimitWarning(1024 - FD_RESERVE, LIMITS), null);
  assert.equal(fdLimitWarning(2000, null), null);
});
