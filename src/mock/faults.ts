/**
 * The faults the mock can inject, and which one a request gets: chosen for the request alone by
 * its `x-mock-fault` header or a `/fault/<kind>/` path prefix, else drawn from the configured
 * probabilities (`--fault KIND[=P]`, `--error-rate`, `--drop-rate`, `--truncate-rate`) with the
 * mock's seeded generator. docs/mock-server.md describes each kind on the wire.
 */

import { ConfigError } from "../config/parse.ts";

/**
 * Faults made by shaping the `Response` (status, headers, body bytes): both HTTP servers can
 * send them.
 */
export const ANSWER_FAULTS = [
  "http-500",
  "http-429",
  "http-503",
  "http-307",
  "reset-after-head",
  "reset-mid-stream",
  "truncate",
  "stall",
  "invalid-json",
  "event-error",
  "gzip",
  "large-event",
  "non-utf8",
] as const;

/**
 * Faults in the HTTP framing or the connection itself: only the mock's own HTTP/1.1 server
 * (`--http direct`, `wire.ts`) can make them.
 */
export const WIRE_FAULTS = [
  "reset-before-head",
  "close-delimited",
  "http10",
  "chunk-ext",
  "slow-head",
  "dup-content-length",
  "content-length-short",
  "content-length-long",
  "idle-close",
  "close",
  "close-unannounced",
  "reset-reused",
] as const;

/** An answer-level fault. */
export type AnswerFault = typeof ANSWER_FAULTS[number];
/** A wire-level fault. */
export type WireFaultKind = typeof WIRE_FAULTS[number];
/** Any fault kind the mock injects. */
export type FaultKind = AnswerFault | WireFaultKind;

/** Every kind, in the order documented. */
export const FAULT_KINDS: readonly FaultKind[] = [...ANSWER_FAULTS, ...WIRE_FAULTS];

/** Older names still accepted: what `--error-rate`, `--drop-rate`, `--truncate-rate` inject. */
export const FAULT_ALIASES: Record<string, FaultKind> = {
  error: "http-500",
  drop: "reset-after-head",
};

/** The request header that selects a fault for that request alone. */
export const FAULT_HEADER = "x-mock-fault";

/** The path prefix that selects a fault for that request alone: `/fault/<kind>/v1/...`. */
export const FAULT_PREFIX = "/fault/";

const wireSet = new Set<string>(WIRE_FAULTS);
const kindSet = new Set<string>(FAULT_KINDS);

/** Whether `kind` needs the mock's own HTTP server. */
export function isWireFault(kind: FaultKind): kind is WireFaultKind {
  return wireSet.has(kind);
}

/** The kind named `name` (or an alias of it), or null when no kind has that name. */
export function faultKind(name: string): FaultKind | null {
  const n = name.trim().toLowerCase();
  if (kindSet.has(n)) return n as FaultKind;
  return FAULT_ALIASES[n] ?? null;
}

/** One kind and the share of requests that get it. */
export interface FaultShare {
  kind: FaultKind;
  probability: number;
}

/** The options a fault plan is made from. */
export interface FaultRates {
  errorRate: number;
  dropRate: number;
  truncateRate: number;
  /** `KIND[=P]` entries; P defaults to 1. */
  fault?: readonly string[];
}

/**
 * The configured shares, in draw order: `--error-rate`, `--drop-rate`, `--truncate-rate`, then
 * each `--fault` in the order given. Throws a `ConfigError` naming the entry for an unknown kind,
 * a probability outside 0..1, or shares that add up to more than 1.
 */
export function faultShares(rates: FaultRates): FaultShare[] {
  const out: FaultShare[] = [];
  if (rates.errorRate > 0) out.push({ kind: "http-500", probability: rates.errorRate });
  if (rates.dropRate > 0) out.push({ kind: "reset-after-head", probability: rates.dropRate });
  if (rates.truncateRate > 0) out.push({ kind: "truncate", probability: rates.truncateRate });
  for (const entry of rates.fault ?? []) {
    const eq = entry.indexOf("=");
    const name = eq < 0 ? entry : entry.slice(0, eq);
    const kind = faultKind(name);
    if (kind === null) {
      throw new ConfigError(
        `--fault ${JSON.stringify(entry)}: unknown fault kind "${name}" (kinds: ${
          FAULT_KINDS.join(", ")
        })`,
      );
    }
    const p = eq < 0 ? 1 : Number(entry.slice(eq + 1).trim());
    if (!Number.isFinite(p) || p < 0 || p > 1 || (eq >= 0 && entry.slice(eq + 1).trim() === "")) {
      throw new ConfigError(
        `--fault ${JSON.stringify(entry)}: the probability must be a number from 0 to 1`,
      );
    }
    if (p > 0) out.push({ kind, probability: p });
  }
  const total = out.reduce((s, f) => s + f.probability, 0);
  if (total > 1 + 1e-9) {
    throw new ConfigError(
      `fault probabilities add up to ${+total.toFixed(6)}, more than 1 (${
        out.map((f) => `${f.kind}=${f.probability}`).join(", ")
      })`,
    );
  }
  return out;
}

/**
 * Draws one number and maps it onto consecutive ranges, one per share, so each kind has exactly
 * its probability and a probability of 1 makes it certain. Draws nothing when there is no share,
 * so a fault-free server's generator (jitter) is unchanged.
 */
export function drawFault(shares: readonly FaultShare[], random: () => number): FaultKind | null {
  if (shares.length === 0) return null;
  const u = random();
  let edge = 0;
  for (const s of shares) {
    edge += s.probability;
    if (u < edge) return s.kind;
  }
  return null;
}

/** The older three-fault decision, kept for its callers: `--error-rate` and friends only. */
export type Fault = "error" | "drop" | "truncate" | null;

/** {@link drawFault} over the three rates, named as before. */
export function decideFault(rates: FaultRates, random: () => number): Fault {
  const kind = drawFault(faultShares({ ...rates, fault: [] }), random);
  if (kind === "http-500") return "error";
  if (kind === "reset-after-head") return "drop";
  return kind === "truncate" ? "truncate" : null;
}

/** A fault chosen for one request by the request itself, and the path to route it to. */
export interface Selection {
  /** The kind named by the header or the path prefix; null when the request names none. */
  kind: FaultKind | null;
  /** What the request named when it is not a kind (answered 400); null otherwise. */
  unknown: string | null;
  /** The path without the `/fault/<kind>` prefix. */
  path: string;
}

/**
 * Reads the fault a request selects for itself: the `/fault/<kind>/` path prefix first, then the
 * `x-mock-fault` header.
 */
export function selectFault(path: string, header: string | null): Selection {
  let name: string | null = null;
  let rest = path;
  if (path.startsWith(FAULT_PREFIX)) {
    const end = path.indexOf("/", FAULT_PREFIX.length);
    name = path.slice(FAULT_PREFIX.length, end < 0 ? path.length : end);
    rest = end < 0 ? "/" : path.slice(end);
  } else if (header !== null && header.trim() !== "") name = header;
  if (name === null) return { kind: null, unknown: null, path: rest };
  const kind = faultKind(name);
  return { kind, unknown: kind === null ? name : null, path: rest };
}
