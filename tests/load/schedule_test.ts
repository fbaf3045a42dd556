import assert from "node:assert/strict";
import { startMockServer } from "../../src/mock/server.ts";
import { createControl, Ctl, UNCAPPED } from "../../src/load/control.ts";
import { fixedTiming } from "../../src/plan/phases.ts";
import type { PhasePlan, PlannedConversation } from "../../src/plan/types.ts";
import type { RequestRecord } from "../../src/record/record.ts";
import { InFlight, runSlots } from "../../src/load/slots.ts";
import { packConversations } from "../../src/load/packed.ts";
import type { LoadConfig } from "../../src/plan/phases.ts";

const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });

function conv(id: string, timestampsMs?: number[], turns = 1): PlannedConversation {
  return { sessionId: id, bodies: new Array(turns).fill(body), timestampsMs };
}

/**
 * Runs one phase in this thread (no Worker) and returns its records, and the response times of
 * each as the sink saw them.
 */
async function run(
  url: string,
  conversations: PlannedConversation[],
  plan: Partial<PhasePlan>,
  cap = UNCAPPED,
  { slots = 1, sinkCopies = false, inFlight = new InFlight() } = {},
): Promise<{ records: RequestRecord[]; seen: number[][]; startNs: bigint }> {
  const control = createControl(1);
  Atomics.store(control, Ctl.CAP, cap);
  const startEpochMs = performance.timeOrigin + performance.now() + 20;
  const records: RequestRecord[] = [];
  const seen: number[][] = [];
  await runSlots({
    workerId: 0,
    slots,
    dataset: packConversations(conversations),
    control,
    inFlight,
    sink: (r) => {
      records.push(r);
      seen.push([...r.responseNs]);
    },
    sinkCopies,
    plan: {
      phase: "profiling",
      url: `${url}/v1/chat/completions`,
      headers: { "Content-Type": "application/json" },
      endpointType: "chat",
      streaming: false,
      timeoutMs: 10_000,
      requestLimit: 1000,
      conversationLimit: conversations.length,
      sampling: "sequential",
      seed: 1,
      startEpochMs,
      ...plan,
    },
  });
  return { records, seen, startNs: BigInt(Math.round(startEpochMs * 1000)) * 1000n };
}

/** Intended send time of a record, ms after the phase start (to the µs). */
const offsetMs = (r: RequestRecord, startNs: bigint) =>
  Math.round(Number(r.intendedStartNs! - startNs) / 1000) / 1000;

Deno.test("a fixed schedule sends each conversation at its timestamp, in timestamp order", async () => {
  const server = await startMockServer({ outputTokens: 2 });
  try {
    const conversations = [
      conv("c", [1090]),
      conv("a", [1000]),
      conv("d", [5000]), // outside the end offset
      conv("b", [1040]),
    ];
    const cfg = {
      fixedScheduleAutoOffset: true,
      fixedScheduleEndOffset: 2000,
    } as LoadConfig;
    const { turns, ...timing } = fixedTiming(cfg, conversations);
    assert.equal(turns, 3);
    assert.deepEqual(timing.order, [1, 3, 0]);
    assert.deepEqual(timing.offsetsMs, [0, 40, 90]);
    const { records, startNs } = await run(server.url, conversations, {
      timing,
      conversationLimit: 3,
    });
    assert.deepEqual(records.map((r) => r.conversationId), ["a", "b", "c"]);
    // The intended time is the recorded one, exactly (µs rounding aside).
    for (const r of records) {
      assert.ok(Math.abs(offsetMs(r, startNs) - timing.offsetsMs[r.sessionNum]) < 0.002);
      // Never sent before its time.
      assert.ok(r.startNs >= r.intendedStartNs!, "sent early");
      assert.equal(r.error, null);
    }
  } finally {
    await server.close();
  }
});

Deno.test("at a concurrency cap a request waits, and keeps its scheduled time as intended", async () => {
  const server = await startMockServer({ ttftMs: 40, outputTokens: 1 });
  try {
    const conversations = [conv("a"), conv("b"), conv("c")];
    const { records, startNs } = await run(server.url, conversations, {
      timing: {
        mode: "rate",
        schedule: { rate: 100, pattern: "constant", smoothness: 1, rampMs: 0, seed: 1 },
      },
      maxConcurrency: 1,
    }, 1);
    assert.equal(records.length, 3);
    records.sort((x, y) => x.sessionNum - y.sessionNum);
    records.forEach((r, i) => assert.ok(Math.abs(offsetMs(r, startNs) - 10 * i) < 0.002));
    for (let i = 1; i < records.length; i++) {
      const prevEnd = records[i - 1].startNs + BigInt(Math.round(records[i - 1].endNs));
      // Sent only after the one holding the single place finished: the wait shows as lag.
      assert.ok(records[i].startNs >= prevEnd, `request ${i} overlapped the previous one`);
      assert.ok(records[i].startNs - records[i].intendedStartNs! > 20_000_000n);
    }
  } finally {
    await server.close();
  }
});

Deno.test("request cancellation aborts the chosen share after the delay, recorded as 499", async () => {
  const server = await startMockServer({ ttftMs: 2000, outputTokens: 1 });
  try {
    const conversations = [conv("a"), conv("b"), conv("c"), conv("d")];
    const { records } = await run(server.url, conversations, {
      cancelPercent: 100,
      cancelDelayMs: 50,
    }, 4);
    // One slot, closed loop: four requests each cancelled 50 ms in.
    assert.equal(records.length, 4);
    for (const r of records) {
      assert.equal(r.cancelled, true);
      assert.equal(r.error?.code, 499);
      assert.ok(r.endNs >= 45e6 && r.endNs < 1500e6, `ended at ${r.endNs / 1e6} ms`);
    }
  } finally {
    await server.close();
  }
});

Deno.test("after a cancelled request, the slot's next request runs to its end", async () => {
  const server = await startMockServer({ ttftMs: 150, outputTokens: 1 });
  try {
    const conversations = Array.from({ length: 8 }, (_, i) => conv(`c${i}`));
    const { records } = await run(server.url, conversations, {
      cancelPercent: 50,
      cancelDelayMs: 30,
    }, 8);
    assert.equal(records.length, 8);
    records.sort((x, y) => x.sessionNum - y.sessionNum);
    const cancelled = records.filter((r) => r.cancelled);
    const kept = records.filter((r) => !r.cancelled);
    // One slot, closed loop: the seed picks a mix, and both kinds follow each other.
    assert.ok(cancelled.length > 0 && kept.length > 0, `${cancelled.length} cancelled`);
    assert.ok(records.some((r, i) => i > 0 && records[i - 1].cancelled && !r.cancelled));
    for (const r of cancelled) assert.ok(r.endNs >= 25e6 && r.endNs < 140e6);
    for (const r of kept) {
      assert.equal(r.error, null);
      assert.ok(r.endNs >= 145e6, `ended at ${r.endNs / 1e6} ms`);
    }
  } finally {
    await server.close();
  }
});

Deno.test("aborting all in flight cancels every request, own controllers too; later ones run", async () => {
  const server = await startMockServer({ ttftMs: 400, outputTokens: 1 });
  try {
    const inFlight = new InFlight();
    const convs = (n: number) => Array.from({ length: n }, (_, i) => conv(`c${i}`));
    // Four slots: two requests on the shared signal, two with controllers of their own (their
    // planned cancellation comes long after).
    const aborted = run(server.url, convs(4), { cancelPercent: 50, cancelDelayMs: 5000 }, 4, {
      slots: 4,
      inFlight,
    });
    await new Promise((r) => setTimeout(r, 150));
    inFlight.abortAll();
    const { records } = await aborted;
    assert.equal(records.length, 4);
    for (const r of records) {
      assert.equal(r.cancelled, true);
      assert.equal(r.error?.code, 499);
      assert.ok(r.endNs < 350e6, `ended at ${r.endNs / 1e6} ms`);
    }
    // The next phase, under the same Worker's InFlight, runs to its end.
    const next = await run(server.url, convs(4), {}, 4, { slots: 4, inFlight });
    assert.equal(next.records.length, 4);
    for (const r of next.records) assert.equal(r.error, null);
  } finally {
    await server.close();
  }
});

Deno.test("later turns honour their delay scaled by the session delay ratio", async () => {
  const server = await startMockServer({ outputTokens: 1 });
  try {
    const c: PlannedConversation = { sessionId: "s", bodies: [body, body], delaysMs: [0, 100] };
    const { records } = await run(server.url, [c], { delayRatio: 0.5 }, 1);
    assert.equal(records.length, 2);
    const [a, b] = records;
    const gapMs = Number(b.startNs - (a.startNs + BigInt(Math.round(a.endNs)))) / 1e6;
    assert.ok(gapMs >= 49, `second turn ${gapMs} ms after the first answer`);
    // Intended = end of the previous answer + the scaled delay, so the lag is the client's only.
    assert.ok(b.intendedStartNs! >= a.startNs + BigInt(Math.round(a.endNs)) + 49_000_000n);
  } finally {
    await server.close();
  }
});

Deno.test("response times: reused after a copying sink, kept for a sink that keeps records", async () => {
  const server = await startMockServer({ outputTokens: 5, itlMs: 5 });
  const streamed = JSON.stringify({ ...JSON.parse(body), stream: true });
  const conversations = Array.from({ length: 40 }, (_, i) => ({
    sessionId: `c${i}`,
    bodies: [streamed],
  }));
  /**
   * Offsets (ns) from the request's start, in order, as the mock sends them: due 5 ms apart from
   * the request's arrival and never early, so the last is at least 20 ms in (a first token read
   * late may narrow the span between first and last, not move the last one earlier).
   */
  const own = (t: number[]) =>
    t.length === 5 && t[0] > 0 && t.every((x, i) => i === 0 || x >= t[i - 1]) &&
    t[4] >= 20e6 && t[4] < 1e9;
  try {
    const plan = { streaming: true };
    // A sink that copies (the Worker's batch packer): each record's own times, when it sees them.
    const copied = await run(server.url, conversations, plan, UNCAPPED, {
      slots: 4,
      sinkCopies: true,
    });
    assert.equal(copied.seen.length, 40);
    for (const t of copied.seen) assert.ok(own(t), `${t}`);
    // A sink that keeps records: their times stay theirs after later requests ran.
    const { records, seen } = await run(server.url, conversations, plan, UNCAPPED, { slots: 4 });
    assert.deepEqual(records.map((r) => [...r.responseNs]), seen);
    for (const t of seen) assert.ok(own(t), `${t}`);
  } finally {
    await server.close();
  }
});
