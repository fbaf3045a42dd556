import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { parseOptions } from "../../src/config/parse.ts";
import type { Dataset } from "../../src/dataset/types.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";
import { planRun, type RunPlan } from "../../src/plan/run_plan.ts";
import { BodyStore, bodyText } from "../../src/util/body_store.ts";

/** The plan of `profile <args>` over `data`. */
function plan(args: string[], { data }: { data: Dataset }): RunPlan {
  const parsed = parseOptions(profileOptions, ["--url", "127.0.0.1:9", ...args]);
  const config = parsed.values;
  return planRun({
    config,
    dataset: data,
    endpoint: getEndpoint(config.endpointType),
    target: { url: "http://127.0.0.1:9/v1/chat/completions", headers: {} },
    given: parsed.given as ReadonlySet<string>,
    cores: 2,
    env: () => undefined,
  });
}

Deno.test("a stored body stays stored in the plan unless streaming changes it", () => {
  const store = new BodyStore(64);
  const data: Dataset = {
    type: "synthetic",
    source: "synthetic",
    conversations: [{
      sessionId: "a",
      turns: [
        storedTurn(store, '{"messages":[],"stream":true}'),
        storedTurn(store, '{"messages":[]}'),
      ],
    }],
  };
  const [plain] = plan([], { data }).conversations;
  assert.deepEqual(plain.bodies, [
    data.conversations[0].turns[0].stored,
    data.conversations[0].turns[1].stored,
  ]);
  const [streamed] = plan(["--streaming"], { data }).conversations;
  // The first already streams: it is sent from the store; the second gets "stream":true added.
  assert.equal(streamed.bodies[0], data.conversations[0].turns[0].stored);
  assert.equal(streamed.bodies[1], '{"messages":[],"stream":true}');
});

function storedTurn(store: BodyStore, text: string) {
  const stored = store.add(text);
  return {
    stored,
    get body() {
      return bodyText(stored);
    },
  };
}
