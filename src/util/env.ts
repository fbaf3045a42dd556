/**
 * Reading the process's environment without ever prompting: a variable reprise has no
 * `--allow-env` for reads as unset, as does one whose permission would need a prompt.
 */

/** A variable's value; undefined when unset, not permitted or unreadable. */
export function readEnv(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
