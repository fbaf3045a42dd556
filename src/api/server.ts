/** Serving the API app over HTTP with `Deno.serve`. */

import { createApiApp } from "./app.ts";
import type { ApiSource } from "./types.ts";

/** A running API server. */
export interface ApiServer {
  /** Base URL, e.g. `http://127.0.0.1:9097`. */
  url: string;
  /** The bound port (the real one when 0 was asked for). */
  port: number;
  /** Stops accepting connections and waits for open requests to finish. Safe to call twice. */
  close(): Promise<void>;
}

/** Options of `startApiServer`. */
export interface ApiServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  source: ApiSource;
  /** Origins allowed by CORS; CORS is off when empty or absent. */
  corsOrigins?: string[];
  /** The run's secret values, replaced in every answer (`ApiAppOptions.secrets`). */
  secrets?: string[];
}

/**
 * Starts the API on `host:port` and resolves once it listens. Rejects with a clear message when
 * the address cannot be bound (in use, not permitted, unknown host).
 */
export function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const closing = new AbortController();
  const app = createApiApp(opts.source, {
    corsOrigins: opts.corsOrigins,
    secrets: opts.secrets,
    signal: closing.signal,
  });
  const where = `${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${opts.port}`;
  return new Promise<ApiServer>((resolve, reject) => {
    let server: Deno.HttpServer<Deno.NetAddr>;
    try {
      server = Deno.serve(
        {
          hostname: opts.host,
          port: opts.port,
          // Given so that Deno does not print its own "Listening on" line.
          onListen: (addr) => {
            const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
            let shut: Promise<void> | null = null;
            resolve({
              url: `http://${host}:${addr.port}`,
              port: addr.port,
              // Open event streams end first: shutting down waits for every answer to end.
              close: () => {
                closing.abort();
                return shut ??= server.shutdown();
              },
            });
          },
        },
        app.fetch,
      );
    } catch (err) {
      const reason = err instanceof Deno.errors.AddrInUse
        ? "the address is already in use"
        : err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable
        ? "permission denied (is --allow-net given for it?)"
        : err instanceof Error
        ? err.message
        : String(err);
      reject(new Error(`Cannot start the API server on ${where}: ${reason}`));
    }
  });
}
