import assert from "node:assert/strict";
import { inWorker, workerModuleUrl, workerReadPath } from "../../src/load/worker_url.ts";

Deno.test("from source the Worker runs worker.ts beside the pool", () => {
  const self = "file:///repo/src/load/worker_url.ts";
  assert.equal(workerModuleUrl(self).href, "file:///repo/src/load/worker.ts");
  assert.equal(workerReadPath(self, false), "/repo/src");
  assert.ok(workerModuleUrl().href.endsWith("/src/load/worker.ts"));
});

Deno.test("bundled, the Worker runs the bundle itself", () => {
  const self = "file:///opt/reprise/dist/reprise.js";
  assert.equal(workerModuleUrl(self).href, self);
  assert.equal(workerReadPath(self, false), "/opt/reprise/dist/reprise.js");
});

Deno.test("a compiled binary or a remote module needs no read permission for Workers", () => {
  assert.equal(
    workerReadPath("file:///tmp/deno-compile-reprise/src/load/worker_url.ts", true),
    null,
  );
  assert.equal(workerReadPath("https://example.com/reprise.js", false), null);
});

Deno.test("inWorker tells the main thread from a Worker", async () => {
  assert.equal(inWorker(), false);
  const src = `import { inWorker } from ${
    JSON.stringify(new URL("../../src/load/worker_url.ts", import.meta.url).href)
  };
self.postMessage(inWorker());`;
  const url = `data:application/javascript,${encodeURIComponent(src)}`;
  const w = new Worker(url, { type: "module" });
  try {
    const answer = await new Promise((resolve, reject) => {
      w.onmessage = (e) => resolve(e.data);
      w.onerror = (e) => {
        e.preventDefault();
        reject(new Error(e.message));
      };
    });
    assert.equal(answer, true);
  } finally {
    w.terminate();
  }
});
