import assert from "node:assert/strict";
import { profileOptions } from "../../src/config/options.ts";
import { parseOptions } from "../../src/config/parse.ts";
import { buildTarget, parseHeaders } from "../../src/cli/target.ts";
import { runDirName } from "../../src/plan/run_plan.ts";
import { getEndpoint } from "../../src/endpoints/mod.ts";

const chat = getEndpoint("chat");
const config = (args: string[]) => parseOptions(profileOptions, args).values;

Deno.test("a URL without a scheme gets http:// and the endpoint's path", () => {
  const t = buildTarget(config(["-u", "localhost:8000"]), chat);
  assert.equal(t.url, "http://localhost:8000/v1/chat/completions");
  assert.equal(t.baseUrl, "http://localhost:8000");
  const custom = buildTarget(config(["-u", "https://h/", "--endpoint", "v2/chat"]), chat);
  assert.equal(custom.url, "https://h/v2/chat");
});

Deno.test("credentials in the URL become a Basic Authorization header", () => {
  const t = buildTarget(config(["-u", "http://user:pw@127.0.0.1:9/"]), chat);
  assert.equal(t.url, "http://127.0.0.1:9/v1/chat/completions");
  assert.equal(t.headers.Authorization, `Basic ${btoa("user:pw")}`);
  assert.ok(
    t.secrets.includes(btoa("user:pw")),
    "the encoded credentials are scrubbed from output",
  );
});

Deno.test("--api-key and -H set headers; -H wins over defaults case-insensitively", () => {
  const t = buildTarget(
    config(["--api-key", "sk-1", "-H", "content-type: text/plain", "-H", '{"X-A":"b"}']),
    chat,
  );
  assert.equal(t.headers.Authorization, "Bearer sk-1");
  assert.equal(t.headers["content-type"], "text/plain");
  assert.equal(t.headers["Content-Type"], undefined);
  assert.equal(t.headers["X-A"], "b");
  assert.ok(t.secrets.includes("sk-1"));
});

Deno.test("bad headers are clear errors", () => {
  assert.throws(() => parseHeaders(["no-colon"]), /--header must be `key:value` or a JSON object/);
  assert.throws(() => parseHeaders(["{bad"]), /--header "\{bad" is not valid JSON/);
  assert.throws(() => parseHeaders(["[1]"]), /--header must be `key:value`/);
  assert.throws(() => parseHeaders(['{"a": 1']), /not valid JSON/);
  assert.throws(() => parseHeaders(['{"a": [1]}', "x"]), /--header must be `key:value`/);
});

Deno.test("run directory names follow AIPerf's scheme", () => {
  assert.equal(
    runDirName("Qwen/Qwen3-0.6B", "chat", 10),
    "Qwen_Qwen3-0.6B-openai-chat-concurrency10",
  );
  assert.equal(runDirName("m", "chat", 1, 2.5), "m-openai-chat-request_rate2.5");
});

Deno.test("TGI streams on /generate_stream; raw uses the URL as given", () => {
  const tgi = getEndpoint("huggingface_generate");
  assert.equal(buildTarget(config(["-u", "h:1"]), tgi).url, "http://h:1/generate");
  assert.equal(
    buildTarget(config(["-u", "h:1", "--streaming"]), tgi).url,
    "http://h:1/generate_stream",
  );
  const raw = getEndpoint("raw");
  assert.equal(
    buildTarget(config(["-u", "http://h:1/custom/infer?x=1", "--streaming"]), raw).url,
    "http://h:1/custom/infer?x=1",
  );
  // Embeddings cannot stream: --streaming keeps the one path they have.
  assert.equal(
    buildTarget(config(["-u", "h:1", "--streaming"]), getEndpoint("embeddings")).url,
    "http://h:1/v1/embeddings",
  );
});
