/**
 * The Worker entry: holds the conversations, runs the slots it is given, and sends records to
 * the main thread in batches (one message per request would cost more than the request).
 */

/// <reference lib="deno.worker" />

import type { FromWorker, ToWorker } from "./plan.ts";
import type { WorkerDataset } from "./packed.ts";
import type { RequestRecord } from "../record/record.ts";
import { BATCH_SIZE, batchTransfer, RecordPacker } from "./record_batch.ts";
import { InFlight, runSlots } from "./slots.ts";
import { nowNs } from "../record/clock.ts";
import { FlushTimer } from "./flush_timer.ts";
import type { Transport } from "../answer/client.ts";
import { fast, setPlainPaths } from "../util/fast_paths.ts";
import { prepareTransport, warmPhase } from "./preconnect.ts";

let workerId = -1;
let dataset: WorkerDataset | null = null;
let control: Int32Array | null = null;
const inFlight = new InFlight();
const packer = new RecordPacker();
/** The transport of the phase running, whose requests waiting for first bytes hold a batch. */
let transport: Transport | null = null;
/** The next phase's transport, made and connected ahead (`prepare`). */
let prepared: Transport | null = null;
/** When a batch that has not filled leaves. */
const timer = new FlushTimer(flush, () => transport?.waiting?.());

function post(msg: FromWorker, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

function flush(): void {
  timer.cancel();
  if (packer.count === 0) return;
  const batch = packer.take();
  post({ type: "records", workerId, batch }, batchTransfer(batch));
}

function sink(record: RequestRecord): void {
  packer.add(record);
  if (packer.count >= BATCH_SIZE) flush();
  else timer.added();
}

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  try {
    if (msg.type === "init") {
      // The fast paths turned off on the main thread are off here too, before anything runs.
      setPlainPaths(msg.plainPaths);
      workerId = msg.workerId;
      dataset = msg.dataset;
      control = msg.control;
      // The first fetch of a thread pays ~5-10 ms to set up the HTTP machinery; pay it here,
      // with a request that never leaves the process, not on the first measured request.
      await (await fetch("data:,")).arrayBuffer();
      post({ type: "ready", workerId });
    } else if (msg.type === "prepare") {
      prepared?.close();
      prepared = null;
      // The code first, then the connections: they are opened last, just before the phase.
      if (fast("warm-code")) await warmPhase(msg.plan, dataset);
      const made = await prepareTransport(msg.plan, msg.slots, msg.connections);
      prepared = made.transport;
      post({ type: "prepared", workerId, opened: made.opened });
    } else if (msg.type === "run") {
      const made = prepared ?? undefined;
      prepared = null;
      await runSlots({
        transport: made,
        workerId,
        plan: msg.plan,
        slots: msg.slots,
        dataset: dataset!,
        control: control!,
        inFlight,
        sink,
        // The packer copies each record into its batch.
        sinkCopies: true,
        onTransport: (t) => transport = t,
      });
      flush();
      post({ type: "done", workerId });
    } else if (msg.type === "clock") {
      post({ type: "clock", workerId, ns: nowNs() });
    } else if (msg.type === "abort") {
      inFlight.abortAll();
    }
  } catch (e) {
    flush();
    post({ type: "fatal", workerId, message: e instanceof Error ? e.message : String(e) });
  }
};
