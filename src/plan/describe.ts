/**
 * The plan in words, for `--verbose`: what will be sent where, and when each phase ends. Read
 * from the phases the load runs, so it says what the run does (a duration-bounded run has no
 * request total).
 */

import { NO_LIMIT, type PhaseSpec } from "./phases.ts";
import type { RunPlan } from "./run_plan.ts";
import { redactUrl } from "../config/redact.ts";

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** How a phase starts its conversations. */
function timingText(spec: PhaseSpec): string {
  const p = spec.plan.prefillConcurrency;
  const prefill = p === undefined
    ? ""
    : `, at most ${p} waiting for a first token${
      spec.plan.prefillRampMs ? ` (ramped over ${seconds(spec.plan.prefillRampMs)})` : ""
    }`;
  return timingCore(spec) + prefill;
}

/** How a phase starts its conversations, without its prefill cap. */
function timingCore(spec: PhaseSpec): string {
  const t = spec.plan.timing ?? { mode: "concurrency" };
  const cap = spec.plan.maxConcurrency;
  const ramp = spec.plan.concurrencyRampMs
    ? `, ramped over ${seconds(spec.plan.concurrencyRampMs)}`
    : "";
  if (t.mode === "concurrency") return `concurrency ${cap ?? spec.slots}${ramp}`;
  const capped = cap === undefined ? "" : `, at most ${cap} in flight${ramp}`;
  if (t.mode === "users") {
    return `user-centric: ${plural(t.users, "user")}, each turn ${
      seconds(t.gapMs)
    } after the user's previous one (${
      Number((t.users / (t.gapMs / 1000)).toFixed(3))
    } requests/s)${capped}`;
  }
  if (t.mode === "rate" && t.schedule.series) {
    const pts = t.schedule.series.map(([ms, r]) => `${r}/s at ${seconds(ms)}`).join(", ");
    return `rate series (${t.schedule.pattern}): ${pts}${capped}`;
  }
  if (t.mode === "rate") {
    const r = t.schedule;
    const rampText = r.rampMs > 0 ? ` reached over ${seconds(r.rampMs)}` : "";
    return `${r.rate} requests/s (${r.pattern})${rampText}${capped}`;
  }
  return `fixed schedule of ${plural(t.order.length, "conversation")}${capped}`;
}

/** When a phase stops issuing. */
function limitText(spec: PhaseSpec): string {
  const { requestLimit, conversationLimit } = spec.plan;
  const parts: string[] = [];
  if (requestLimit < NO_LIMIT) parts.push(`at most ${plural(requestLimit, "request")}`);
  if (conversationLimit < NO_LIMIT) {
    parts.push(`at most ${plural(conversationLimit, "conversation")}`);
  }
  if (spec.durationMs !== undefined) {
    parts.push(`for ${seconds(spec.durationMs)} (then ${seconds(spec.graceMs)} grace)`);
  }
  return parts.length === 0 ? "until stopped" : parts.join(", ");
}

/** One line for a phase: its timing and its limits. */
export function phaseLine(spec: PhaseSpec): string {
  return `${spec.plan.phase}: ${timingText(spec)}; ${limitText(spec)}`;
}

/**
 * The plan's `--verbose` lines. `url` is the request URL as it may be shown (secrets redacted
 * by the caller).
 */
export function describePlan(plan: RunPlan, url: string): string {
  const lines = [
    `plan: ${plural(plan.conversations.length, "conversation")} (${
      plural(plan.totalTurns, "turn")
    }) from ${plan.dataset.type} ${plan.dataset.source}; to ${url} on ${
      plural(plan.workers, "Worker")
    }, transport ${plan.transport}, ${
      plan.streaming ? "streaming" : "not streaming"
    }; sampling ${plan.sampling}, seed ${plan.seed}; artifacts ${plan.runDir}`,
    ...plan.phases.map((p) => `plan: ${phaseLine(p)}`),
  ];
  const base = plan.base;
  const proxies = base.proxies;
  if (proxies) {
    const via = (scheme: string, proxy: string | undefined) =>
      `${scheme}:// ${proxy ? `through ${redactUrl(proxy)}` : "direct"}`;
    lines.push(
      `plan: proxy: ${via("http", proxies.http)}, ${via("https", proxies.https)}${
        proxies.noProxy ? `; no_proxy ${proxies.noProxy}` : ""
      }`,
    );
  }
  if (base.urls && base.urls.length > 1) {
    lines.push(`plan: ${base.urls.length} URLs, round robin (first shown above)`);
  }
  if (base.reuse && base.reuse !== "pooled") {
    lines.push(
      `plan: connections: ${
        base.reuse === "never" ? "a new one per request" : "one per conversation"
      }`,
    );
  }
  if (base.sessionHeader && base.sessionHeader !== "X-Correlation-ID") {
    lines.push(`plan: conversation id sent in ${base.sessionHeader}`);
  }
  const ep = base.endpointOptions;
  if (ep?.videoPollMs !== undefined) {
    lines.push(
      `plan: video jobs polled every ${ep.videoPollMs} ms${
        ep.downloadVideoContent ? ", each video downloaded" : ""
      }`,
    );
  }
  if (plan.plainPaths.length > 0) lines.push(`plan: plain paths ${plan.plainPaths.join(", ")}`);
  const shard = plan.shard;
  if (shard !== null) {
    lines.push(
      `plan: shard ${shard.index} of ${shard.count}: sessions ${shard.index}, ${
        shard.index + shard.count
      }, ${shard.index + 2 * shard.count}, … of the global plan (limits above are this shard's)`,
    );
  }
  if (plan.startAtMs !== null) {
    lines.push(`plan: profiling starts at ${new Date(plan.startAtMs).toISOString()}`);
  }
  return lines.join("\n") + "\n";
}
