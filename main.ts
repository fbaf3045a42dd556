/**
 * reprise: benchmark LLM inference servers. The only place that calls Deno.exit.
 */

import { main } from "./src/cli/main.ts";
import { processIo } from "./src/cli/io.ts";
import { inWorker } from "./src/load/worker_url.ts";

if (inWorker()) {
  // The one-file bundle is also the Worker module (see src/load/worker_url.ts).
  await import("./src/load/worker.ts");
} else if (import.meta.main) {
  Deno.exit(await main(Deno.args, processIo(Deno.exit)));
}
