/**
 * The built-in OpenAI-compatible mock inference server (`reprise mock-server`), used by tests,
 * benchmarks and the demo: realistic wire formats, a token schedule, and injected faults.
 */

import { mockApp, type MockBindings } from "./app.ts";
import { type MockStats, newMockContext } from "./context.ts";
import { FAULT_HEADER, FAULT_PREFIX, selectFault } from "./faults.ts";
import { type MockOptions, resolveMockOptions } from "./options.ts";
import { TimingLog } from "./timing_log.ts";
import { dcgmExposition } from "./dcgm.ts";
import { sglangExposition } from "./metrics_sglang.ts";
import { promptCounter } from "./prompt_count.ts";
import { loadTokenizer } from "./tokens.ts";
import { serveWire, type WireInfo, type WireServer } from "./wire.ts";

export type { MockOptions } from "./options.ts";
export type { MockStats } from "./context.ts";

/** A running mock server. */
export interface MockServer {
  /** Base URL, `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /**
   * Requests received so far (all but `GET /mock/stats`), in total, by URL path, and by injected
   * fault kind: the same JSON `GET /mock/stats` answers.
   */
  stats(): MockStats;
  /**
   * Ends answers still streaming, stops listening, writes what the timing log holds and resolves
   * when the server is down.
   */
  close(): Promise<void>;
}

/** The path of a request URL, without parsing the whole URL (this runs on every request). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

/** Starts a mock server; resolves once it listens. Throws on invalid options. */
export async function startMockServer(opts: MockOptions = {}): Promise<MockServer> {
  const o = resolveMockOptions(opts);
  const tokenizer = await loadTokenizer();
  const countPrompt = await promptCounter(o.tokenizer, o.chatTemplate);
  const timingLog = o.timingLog === undefined ? null : await TimingLog.open(o.timingLog);
  const closing = new AbortController();
  const ctx = newMockContext(o, tokenizer, closing.signal, timingLog);
  ctx.countPrompt = countPrompt;
  const app = mockApp(ctx);
  const startedMs = performance.now();
  const stats = ctx.stats;

  const handle = async (req: Request, arrival: number, info?: WireInfo) => {
    const path = pathOf(req.url);
    if (path === "/mock/stats" && req.method === "GET") return app.fetch(req, { arrival });
    // Scrapes of the server's metrics are not requests of the benchmark: not counted either.
    if (path === "/metrics" && req.method === "GET") {
      const text = ctx.metrics.text("mock-model");
      return new Response(o.metricsFormat === "sglang" ? sglangExposition(text) : text, {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      });
    }
    if (o.dcgm && path === "/dcgm/metrics" && req.method === "GET") {
      const t = (performance.now() - startedMs) / 1000;
      return new Response(dcgmExposition(t, ctx.metrics.running), {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      });
    }
    stats.requests++;
    stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;
    const env: MockBindings = { arrival };
    const header = req.headers.get(FAULT_HEADER);
    if (header !== null || path.startsWith(FAULT_PREFIX)) {
      const selection = selectFault(path, header);
      if (selection.path !== path) {
        const url = new URL(req.url);
        url.pathname = selection.path;
        // Not `new Request(url, req)`: that reads `req.signal`, which Deno.serve warns about.
        req = new Request(url, { method: req.method, headers: req.headers, body: req.body });
      }
      env.selection = selection;
    }
    const res = await app.fetch(req, env);
    if (info) info.fault = env.wire;
    return res;
  };
  // Deno.serve's server has the same two members the mock uses.
  let server: WireServer;
  try {
    server = o.http === "direct"
      ? serveWire(
        { hostname: o.host, port: o.port, headMs: o.faultHeadMs, idleMs: o.faultIdleMs },
        (req, info) => handle(req, info.arrival, info),
      )
      : Deno.serve({
        hostname: o.host,
        port: o.port,
        onListen() {},
        // A dropped answer's failing body lands here; the client already lost the connection.
        onError: () => new Response(null, { status: 500 }),
      }, (req) => handle(req, performance.now()));
  } catch (e) {
    await timingLog?.close();
    throw e;
  }

  const port = server.addr.port;
  const host = server.addr.hostname.includes(":")
    ? `[${server.addr.hostname}]`
    : server.addr.hostname;
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    stats: () => structuredClone(stats),
    close() {
      closed ??= (async () => {
        closing.abort();
        try {
          await server.shutdown();
        } finally {
          await timingLog?.close();
        }
      })();
      return closed;
    },
  };
}
