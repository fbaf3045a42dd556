import assert from "node:assert/strict";
import { mockServerOptions, profileOptions } from "../../src/config/options.ts";
import { ConfigError, parseOptions, suggestFlag } from "../../src/config/parse.ts";
import { renderHelp } from "../../src/cli/help.ts";

Deno.test("defaults apply when nothing is given", () => {
  const { values, given } = parseOptions(profileOptions, []);
  assert.deepEqual(values.url, ["localhost:8000"]);
  assert.equal(values.endpointType, "chat");
  assert.equal(values.concurrency, 1);
  assert.equal(values.streaming, false);
  assert.deepEqual(values.header, []);
  assert.equal(values.requestCount, undefined);
  assert.equal(given.size, 0);
});

Deno.test("long, short, alias and = forms all set the same option", () => {
  const a = parseOptions(profileOptions, [
    "-m",
    "x",
    "--num-requests=5",
    "-H",
    "A: 1",
    "--header",
    "B: 2",
  ]);
  assert.equal(a.values.model, "x");
  assert.equal(a.values.requestCount, 5);
  assert.deepEqual(a.values.header, ["A: 1", "B: 2"]);
  const b = parseOptions(profileOptions, ["--model-names", "y", "--streaming", "--no-streaming"]);
  assert.equal(b.values.model, "y");
  assert.equal(b.values.streaming, false);
});

Deno.test("invalid values name the flag, what was expected and what was given", () => {
  assert.throws(
    () => parseOptions(profileOptions, ["--concurrency", "abc"]),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message === '--concurrency must be a positive integer, got "abc"',
  );
  assert.throws(
    () => parseOptions(profileOptions, ["--concurrency", "0"]),
    /positive integer, got "0"/,
  );
  assert.throws(() => parseOptions(profileOptions, ["--concurrency", "1.5"]), /positive integer/);
  assert.throws(
    () => parseOptions(profileOptions, ["--dataset-sampling-strategy", "zigzag"]),
    /one of sequential, random, shuffle, got "zigzag"/,
  );
  assert.throws(() => parseOptions(profileOptions, ["--model"]), /--model needs a value/);
});

Deno.test("unknown flags suggest the nearest known flag", () => {
  assert.throws(
    () => parseOptions(profileOptions, ["--concurency", "3"]),
    /Unknown option --concurency; did you mean --concurrency\?/,
  );
  assert.equal(suggestFlag(profileOptions, "--streming"), "--streaming");
  assert.equal(suggestFlag(profileOptions, "--zzzzzzzzzzzz"), undefined);
});

Deno.test("environment variables fill options the command line leaves unset", () => {
  const env = (n: string) => (n === "REPRISE_API_KEY" ? "sk-env" : undefined);
  assert.equal(parseOptions(profileOptions, [], env).values.apiKey, "sk-env");
  assert.equal(parseOptions(profileOptions, ["--api-key", "sk-cli"], env).values.apiKey, "sk-cli");
});

Deno.test("a secret's invalid value is not echoed in the error", () => {
  assert.throws(
    () => parseOptions(profileOptions, ["--api-key="]),
    (e: Error) => !e.message.includes("sk-") && /--api-key/.test(e.message),
  );
});

Deno.test("help is generated from the option table", () => {
  const text = renderHelp("reprise mock-server", "summary", mockServerOptions);
  for (const spec of Object.values(mockServerOptions)) {
    assert.ok(text.includes(`--${spec.flag}`), `help lacks --${spec.flag}`);
  }
  assert.match(text, /default: 8000/);
  const profile = renderHelp("reprise profile", "s", profileOptions);
  assert.match(profile, /-m, --model, --model-names NAME/);
  assert.match(profile, /env: REPRISE_API_KEY/);
});

Deno.test("a negative count is judged as a value, not taken for a flag", () => {
  for (const args of [["--concurrency", "-5"], ["--concurrency=-5"], ["--request-count", "-1"]]) {
    assert.throws(
      () => parseOptions(profileOptions, args),
      (e: unknown) =>
        e instanceof ConfigError && /must be a positive integer, got "-\d"/.test(e.message) &&
        !e.message.includes("needs a value"),
      args.join(" "),
    );
  }
  // After `--`, a negative number is a positional.
  assert.deepEqual(parseOptions(profileOptions, ["--", "--concurrency", "-5"]).positionals, [
    "--concurrency",
    "-5",
  ]);
});

Deno.test("headers: CR, LF or NUL in a value, or a name that is not a token, is refused", () => {
  const bad: [string[], RegExp][] = [
    [["-H", "X-A: a\r\nX-Injected: 1"], /^--header header "X-A" contains a carriage return/],
    [["-H", "X-A: a\nb"], /contains a line feed \(LF\)/],
    [["-H", "X-A: a\0b"], /contains a NUL byte/],
    [["-H", '{"X-A": "a\\nb"}'], /header "X-A" contains a line feed/],
    [["-H", "X A: b"], /the header's name contains " ": a header name is letters, digits/],
    [["-H", "X-A: b", "-H", "X(B): c"], /header 2's name contains "\("/],
    [
      ["-H", "no colon here"],
      /--header must be `Name: value` or a JSON object: the header has no ":"/,
    ],
    [["-H", '{"Authorization": "Bearer sk-sec'], /the header is not valid JSON/],
    [["--api-key", "sk-a\nb"], /^--api-key contains a line feed/],
  ];
  for (const [args, re] of bad) {
    assert.throws(
      () => parseOptions(profileOptions, args),
      (e: unknown) =>
        e instanceof ConfigError && re.test(e.message) && !e.message.includes("\n") &&
        !e.message.includes("sk-"),
      JSON.stringify(args),
    );
  }
  const ok = parseOptions(profileOptions, ["-H", "X-Trace_id.1: a b:c", "-H", '{"A":"1"}']);
  assert.deepEqual(ok.values.header, ["X-Trace_id.1: a b:c", '{"A":"1"}']);
});
