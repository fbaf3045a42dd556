/** The Live API options of `profile`. */

import { z } from "zod";
import { opt } from "./spec.ts";

/**
 * The Live API options of `profile`: the HTTP API serving a run's live metrics.
 * Keys are the config field names.
 */
export const liveApiOptions = {
  apiPort: opt({
    flag: "api-port",
    env: ["REPRISE_API_PORT", "AIPERF_API_SERVER_PORT"],
    kind: "number",
    schema: z.number().int().min(0).max(65535),
    expect: "a port number from 0 to 65535",
    group: "Live API",
    help: "Serve the run's live API and Prometheus /metrics on this port (0 picks a free one).",
    metavar: "PORT",
  }),
  apiHost: opt({
    flag: "api-host",
    env: ["REPRISE_API_HOST", "AIPERF_API_SERVER_HOST"],
    kind: "string",
    schema: z.string().min(1),
    expect: "a host name or address",
    default: "127.0.0.1",
    group: "Live API",
    help: "Address the live API binds.",
    metavar: "HOST",
  }),
  apiLingerSeconds: opt({
    flag: "api-linger-seconds",
    kind: "number",
    schema: z.number().nonnegative(),
    expect: "a non-negative number of seconds",
    default: 5,
    group: "Live API",
    help: "Keep the live API up this long after the run so scrapers can read the final results.",
    metavar: "S",
  }),
  statsInterval: opt({
    flag: "stats-interval",
    kind: "number",
    schema: z.number().positive(),
    expect: "a positive number of seconds",
    default: 1,
    group: "Live API",
    help: "How often live metrics (API, /metrics) are recomputed.",
    metavar: "S",
  }),
} as const;
