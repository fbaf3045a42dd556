/**
 * Checks, before a run starts, the permissions its Workers will need. A Worker denied a
 * permission fails deep inside the run (a failed record per request, or Deno's own trace on
 * stderr); checked here, it is one clear line naming the flag to add and exit code 5.
 */

import { workerReadPath } from "../load/worker_url.ts";

/** `host:port` of a URL, with the scheme's default port filled in, as `--allow-net` names it. */
export function netHost(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.hostname}:${port}`;
}

/**
 * Throws `Deno.errors.NotCapable` (mapped to exit code 5 by the CLI) when `desc` is not granted.
 * On a terminal Deno asks the user; elsewhere an ungranted permission is denied at once.
 */
export function requirePermission(desc: Deno.PermissionDescriptor, what: string): void {
  let state = Deno.permissions.querySync(desc).state;
  if (state === "prompt") state = Deno.permissions.requestSync(desc).state;
  if (state !== "granted") {
    throw new Deno.errors.NotCapable(`Requires ${desc.name} access to "${what}"`);
  }
}

/** The permissions a profile run against `baseUrl` needs beyond those the CLI already used. */
export function checkRunPermissions(baseUrl: string): void {
  const host = netHost(baseUrl);
  requirePermission({ name: "net", host }, host);
  const code = workerReadPath();
  if (code) requirePermission({ name: "read", path: code }, code);
}
