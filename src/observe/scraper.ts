/**
 * Scrapes servers' Prometheus `/metrics` on a timer of the main thread (never on a Worker, whose
 * event loop belongs to the requests) and keeps every scrape. An endpoint whose first answer is
 * not Prometheus text (an error status, a refused connection, an HTML page) is reported in one
 * warning line and dropped; the run goes on as if it had not been asked for.
 */

import { nowNs } from "../record/clock.ts";
import { type Family, parseExposition } from "./prometheus.ts";

/** AIPerf's scrape interval. */
export const SCRAPE_INTERVAL_MS = 333;

/** One scrape of one endpoint: when it was answered and what it held. */
export interface Snapshot {
  tNs: bigint;
  families: Map<string, Family>;
}

/** What was collected from one endpoint. */
export interface EndpointScrapes {
  url: string;
  /** False once the endpoint was dropped (its first scrape failed). */
  ok: boolean;
  fetches: number;
  /** Sum of the fetch latencies (ms). */
  latencyMs: number;
  firstFetchNs: bigint | null;
  lastFetchNs: bigint | null;
  snapshots: Snapshot[];
}

/** The endpoints to scrape: the target's `/metrics` (unless off) and the URLs given. */
export function scrapeUrls(
  baseUrl: string,
  given: readonly string[] | undefined,
  off: boolean,
): string[] {
  if (off) return [];
  const urls = [metricsUrl(baseUrl)];
  for (const u of given ?? []) urls.push(metricsUrl(u));
  return [...new Set(urls)];
}

/** `host:port` or a base URL becomes its `/metrics` URL; a URL with a path is kept as given. */
export function metricsUrl(url: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
  const u = new URL(withScheme);
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/metrics";
  return u.toString();
}

/** Scrapes a set of endpoints every `intervalMs` between `start` and `stop`. */
export class ServerMetricsScraper {
  readonly endpoints: EndpointScrapes[];
  #intervalMs: number;
  #warn: (line: string) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #tick: Promise<void> = Promise.resolve();
  /** The scrapes' own connections, closed at `stop`: none is left open after the run. */
  #client: Deno.HttpClient | null = null;
  #started = false;
  #stopped = false;
  startNs: bigint = 0n;
  endNs: bigint = 0n;

  constructor(urls: string[], warn: (line: string) => void, intervalMs = SCRAPE_INTERVAL_MS) {
    this.endpoints = urls.map((url) => ({
      url,
      ok: true,
      fetches: 0,
      latencyMs: 0,
      firstFetchNs: null,
      lastFetchNs: null,
      snapshots: [],
    }));
    this.#warn = warn;
    this.#intervalMs = intervalMs;
  }

  /** Takes the first scrape (the reference of the deltas), then scrapes on the timer. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.startNs = nowNs();
    this.#client = Deno.createHttpClient({});
    await this.#scrapeAll();
    this.#schedule();
  }

  /** Stops the timer and takes a last scrape, so that the deltas cover the whole phase. */
  async stop(): Promise<void> {
    if (!this.#started || this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#tick;
    await this.#scrapeAll();
    this.endNs = nowNs();
    this.#client?.close();
    this.#client = null;
  }

  /** The endpoints still scraped. */
  get active(): EndpointScrapes[] {
    return this.endpoints.filter((e) => e.ok);
  }

  #schedule(): void {
    if (this.#stopped || this.active.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#tick = this.#scrapeAll().then(() => this.#schedule());
    }, this.#intervalMs);
  }

  async #scrapeAll(): Promise<void> {
    await Promise.all(this.active.map((e) => this.#scrape(e)));
  }

  async #scrape(e: EndpointScrapes): Promise<void> {
    const first = e.fetches === 0;
    const t0 = performance.now();
    const sentNs = nowNs();
    let problem: string | null = null;
    let families: Map<string, Family> | null = null;
    try {
      const res = await fetch(e.url, {
        ...(this.#client ? { client: this.#client } : {}),
        signal: AbortSignal.timeout(Math.max(2000, this.#intervalMs * 6)),
      });
      if (!res.ok) {
        await res.body?.cancel();
        problem = `HTTP ${res.status}`;
      } else {
        families = parseExposition(await res.text());
        if (families === null) problem = "not Prometheus text";
      }
    } catch (err) {
      problem = (err as Error).name === "TimeoutError"
        ? "no answer in time"
        : (err as Error).message.split("\n")[0];
    }
    e.fetches++;
    e.latencyMs += performance.now() - t0;
    e.firstFetchNs ??= sentNs;
    e.lastFetchNs = sentNs;
    if (families !== null) e.snapshots.push({ tNs: nowNs(), families });
    else if (first) {
      e.ok = false;
      this.#warn(`warning: no server metrics from ${e.url} (${problem}); not scraping it`);
    }
  }
}
