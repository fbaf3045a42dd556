import assert from "node:assert/strict";
import { parseExtraInputs } from "../../src/config/extra_inputs.ts";
import { ConfigError } from "../../src/config/parse.ts";

Deno.test("key:value pairs take JSON values where they parse, text otherwise", () => {
  const x = parseExtraInputs([
    "ignore_eos:true",
    "min_tokens: 5",
    "stop:end of text",
    'logit_bias:{"50256":-100}',
    "url:http://h:1/x",
  ]);
  assert.deepEqual(x.body, {
    ignore_eos: true,
    min_tokens: 5,
    stop: "end of text",
    logit_bias: { "50256": -100 },
    url: "http://h:1/x",
  });
  assert.equal(x.responseField, undefined);
});

Deno.test("a JSON object merges its fields; later values win", () => {
  const x = parseExtraInputs(['{"a":1,"b":{"c":2}}', "a:3"]);
  assert.deepEqual(x.body, { a: 3, b: { c: 2 } });
});

Deno.test("response_field is a setting kept as written, not a body field", () => {
  const x = parseExtraInputs(["response_field:[0].generated_text", "temperature:0"]);
  assert.equal(x.responseField, "[0].generated_text");
  assert.deepEqual(x.body, { temperature: 0 });
  assert.equal(parseExtraInputs(['{"response_field":"a.b"}']).responseField, "a.b");
});

Deno.test("bad values are ConfigErrors naming the problem", () => {
  assert.throws(() => parseExtraInputs(["novalue"]), ConfigError);
  assert.throws(() => parseExtraInputs([":x"]), /key:value/);
  assert.throws(() => parseExtraInputs(["{bad json"]), /not valid JSON/);
  assert.throws(() => parseExtraInputs(['{"response_field":3}']), /JMESPath/);
});
