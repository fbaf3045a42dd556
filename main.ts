/**
 * reprise: benchmark LLM inference servers. The only place that calls Deno.exit.
 */

import { main } from "./src/cli/main.ts";
import { processIo } from "./src/cli/io.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args, processIo()));
}
