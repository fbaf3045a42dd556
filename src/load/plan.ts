/** What a Worker is told before it starts: the work, the target, and the limits. */
// Only the messages between the main thread and a Worker; what they carry (the phase plan, the
// planned conversations) is the run plan's, in src/plan/types.ts.

import type { PhasePlan } from "../plan/types.ts";

/** Main → Worker messages. */
export type ToWorker =
  | {
    type: "init";
    workerId: number;
    /** The conversations, their bodies in shared memory: one copy for every Worker. */
    dataset: import("./packed.ts").WorkerDataset;
    control: Int32Array;
    /** The fast paths turned off (`--plain-paths`), as `plainPaths()` on the main thread. */
    plainPaths: string[];
  }
  /**
   * Before the phase's clock starts: make the phase's transport and open `connections`
   * connections ahead (load/preconnect.ts); the next `run` sends on it.
   */
  | { type: "prepare"; plan: PhasePlan; slots: number; connections: number }
  | { type: "run"; plan: PhasePlan; slots: number }
  | { type: "abort" }
  /** Asks for the Worker's clock reading (epoch ns), to check it against the main thread's. */
  | { type: "clock" };

/** Worker → main messages. */
export type FromWorker =
  /** Ready to run. */
  | { type: "ready"; workerId: number }
  | { type: "clock"; workerId: number; ns: bigint }
  /** The phase's transport is made; `opened` connections were opened ahead. */
  | { type: "prepared"; workerId: number; opened: number }
  | { type: "records"; workerId: number; batch: import("./record_batch.ts").RecordBatch }
  | { type: "done"; workerId: number }
  | { type: "fatal"; workerId: number; message: string };
