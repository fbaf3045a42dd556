/** What a Worker is told before it starts: the work, the target, and the limits. */

import type { Phase } from "./record.ts";

/** A conversation as Workers hold it: the session id and the body of each turn. */
export interface PlannedConversation {
  sessionId: string;
  bodies: string[];
  /** Per turn: ms to wait after the previous answer before sending (absent = 0). */
  delaysMs?: number[];
}

/** The parameters of one phase, identical for every Worker. */
export interface PhasePlan {
  phase: Phase;
  /** Full request URL. */
  url: string;
  /** Headers sent with every request (auth, content type, user headers). */
  headers: Record<string, string>;
  endpointType: string;
  streaming: boolean;
  timeoutMs: number;
  /** Stop issuing after this many requests. */
  requestLimit: number;
  /** Start at most this many conversations. */
  conversationLimit: number;
  sampling: "sequential" | "random" | "shuffle";
  seed: number;
}

/** Main → Worker messages. */
export type ToWorker =
  | {
    type: "init";
    workerId: number;
    conversations: PlannedConversation[];
    control: Int32Array;
  }
  | { type: "run"; plan: PhasePlan; slots: number }
  | { type: "abort" };

/** Worker → main messages. */
export type FromWorker =
  | { type: "ready"; workerId: number }
  | { type: "records"; workerId: number; records: import("./record.ts").RequestRecord[] }
  | { type: "done"; workerId: number }
  | { type: "fatal"; workerId: number; message: string };
