import assert from "node:assert/strict";
import { netHost, requirePermission } from "../../src/cli/permissions.ts";
import { permissionHint } from "../../src/cli/main.ts";

Deno.test("netHost names host:port as --allow-net does, default ports filled in", () => {
  assert.equal(netHost("http://127.0.0.1:8000/v1"), "127.0.0.1:8000");
  assert.equal(netHost("http://example.com"), "example.com:80");
  assert.equal(netHost("https://example.com/x"), "example.com:443");
});

Deno.test("a granted permission passes; its error names the flag to add", () => {
  // The test runner is granted net for 127.0.0.1.
  requirePermission({ name: "net", host: "127.0.0.1:1" }, "127.0.0.1:1");
  const e = new Deno.errors.NotCapable('Requires net access to "10.1.2.3:9"');
  assert.match(permissionHint(e.message), /add --allow-net=10\.1\.2\.3:9$/);
});
