/** Record builders shared by the metrics and export tests. */

import type { RequestRecord } from "../../src/record/record.ts";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";

/** A successful request with defaults; override any field. */
export function record(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    phase: "profiling",
    workerId: 0,
    sessionNum: 0,
    conversationIndex: 0,
    conversationId: "session-0",
    turnIndex: 0,
    requestId: "req-0",
    correlationId: "corr-0",
    intendedStartNs: null,
    startNs: 1_762_551_534_797_067_827n,
    ackNs: 1_000_000,
    endNs: 50_000_000,
    responseNs: [],
    responseReasoning: [],
    outputText: "",
    reasoningText: "",
    usage: null,
    httpStatus: 200,
    error: null,
    cancelled: false,
    ...over,
  };
}

/** A tokenizer counting space-separated words, so expected counts are easy to see. */
export const wordTokenizer: Tokenizer = {
  name: "words",
  count: (t) => t.split(" ").filter((w) => w !== "").length,
};
