/** Reading files that may be absent. */

/**
 * A file's text, or null when it does not exist: for the artifacts and caches that are optional.
 * Any other failure (a permission, a directory in the way) is thrown, never taken for absence.
 */
export async function readTextIfExists(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}
