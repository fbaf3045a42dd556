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

/** One scrape of one endpoint: when it was sent and answered, and what it held. */
export interface Snapshot {
  tNs: bigint;
  /** When the scrape's request was sent (epoch ns). */
  sentNs: bigint;
  families: Map<string, Family>;
}

/** How a scraper treats its endpoints. */
export interface ScraperOptions {
  /** Milliseconds between scrapes (AIPerf's 333 by default). */
  intervalMs?: number;
  /** Endpoints dropped in silence when their first scrape fails (defaults tried on chance). */
  quiet?: ReadonlySet<string>;
  /** Headers sent with every scrape (an exporter behind authentication). */
  headers?: Record<string, string>;
  /** What the warning calls the endpoints (`server metrics`, `GPU telemetry`). */
  what?: string;
  /** Try TensorRT-LLM's `/prometheus/metrics` when `/metrics` is no Prometheus text (default). */
  prometheusFallback?: boolean;
}

/** What was collected from one endpoint. */
export interface EndpointScrapes {
  /** The URL scraped, without credentials. */
  url: string;
  /** Basic credentials the given URL held (`user:pass@`), sent as a header, never shown. */
  authorization?: string;
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

/**
 * A URL without its `user:pass@` (which `fetch` refuses), and those credentials as a Basic
 * `Authorization` header.
 */
export function withoutCredentials(url: string): { url: string; authorization?: string } {
  const u = new URL(url);
  if (u.username === "" && u.password === "") return { url };
  const token = btoa(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`);
  u.username = "";
  u.password = "";
  return { url: u.toString(), authorization: `Basic ${token}` };
}

/**
 * The `/prometheus/metrics` beside a URL ending in `/metrics` (TensorRT-LLM's Prometheus path);
 * null for other URLs and for that path itself.
 */
export function prometheusAlternative(url: string): string | null {
  const u = new URL(url);
  if (!u.pathname.endsWith("/metrics") || u.pathname.endsWith("/prometheus/metrics")) return null;
  u.pathname = u.pathname.slice(0, -"/metrics".length) + "/prometheus/metrics";
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
  /** The profiling phase's bounds (epoch ns): its reference scrape and its last scrape. */
  profileStartNs: bigint | null = null;
  profileEndNs: bigint | null = null;
  #quiet: ReadonlySet<string>;
  #headers: Record<string, string>;
  #what: string;
  #fallback: boolean;

  constructor(
    urls: string[],
    warn: (line: string) => void,
    options: number | ScraperOptions = {},
  ) {
    const o = typeof options === "number" ? { intervalMs: options } : options;
    const intervalMs = o.intervalMs ?? SCRAPE_INTERVAL_MS;
    this.#quiet = o.quiet ?? new Set();
    this.#headers = o.headers ?? {};
    this.#what = o.what ?? "server metrics";
    this.#fallback = o.prometheusFallback ?? true;
    this.endpoints = urls.map((given) => ({
      ...withoutCredentials(given),
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

  /**
   * Marks the start of the profiling phase with a scrape of its own: the reference of the
   * phase's deltas, so that warmup stays apart. Starts scraping when not started yet.
   */
  async beginProfiling(): Promise<void> {
    if (!this.#started) await this.start();
    else await this.#scrapeNow();
    this.profileStartNs = nowNs();
  }

  /** Marks the end of the profiling phase after a last scrape of it. */
  async endProfiling(): Promise<void> {
    if (!this.#started || this.#stopped) return;
    await this.#scrapeNow();
    this.profileEndNs = nowNs();
  }

  /** One scrape now, after any scrape in flight. */
  async #scrapeNow(): Promise<void> {
    await this.#tick;
    this.#tick = this.#scrapeAll();
    await this.#tick;
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
    let [families, problem] = await this.#fetch(e.url, e.authorization);
    // TensorRT-LLM answers `/metrics` with JSON iteration stats and serves Prometheus text at
    // `/prometheus/metrics`: tried once, as AIPerf does, and kept when it answers.
    const alt = first && families === null && this.#fallback ? prometheusAlternative(e.url) : null;
    if (alt !== null) {
      const [altFamilies] = await this.#fetch(alt, e.authorization);
      if (altFamilies !== null) {
        e.url = alt;
        families = altFamilies;
      }
    }
    e.fetches++;
    e.latencyMs += performance.now() - t0;
    e.firstFetchNs ??= sentNs;
    e.lastFetchNs = sentNs;
    if (families !== null) e.snapshots.push({ tNs: nowNs(), sentNs, families });
    else if (first) {
      e.ok = false;
      if (!this.#quiet.has(e.url)) {
        this.#warn(`warning: no ${this.#what} from ${e.url} (${problem}); not scraping it`);
      }
    }
  }

  /** One fetch: the families, or null and what went wrong. */
  async #fetch(
    url: string,
    authorization: string | undefined,
  ): Promise<[Map<string, Family> | null, string]> {
    try {
      const res = await fetch(url, {
        ...(this.#client ? { client: this.#client } : {}),
        headers: authorization ? { ...this.#headers, authorization } : this.#headers,
        signal: AbortSignal.timeout(Math.max(2000, this.#intervalMs * 6)),
      });
      if (!res.ok) {
        await res.body?.cancel();
        return [null, `HTTP ${res.status}`];
      }
      // A JSON answer is not read: it cannot be Prometheus text.
      if (/json/i.test(res.headers.get("content-type") ?? "")) {
        await res.body?.cancel();
        return [null, "JSON, not Prometheus text"];
      }
      const families = parseExposition(await res.text());
      return families === null ? [null, "not Prometheus text"] : [families, ""];
    } catch (err) {
      return [
        null,
        (err as Error).name === "TimeoutError"
          ? "no answer in time"
          : (err as Error).message.split("\n")[0],
      ];
    }
  }
}
