import assert from "node:assert/strict";
import {
  collectSecrets,
  isSensitiveHeader,
  MIN_SECRET_LENGTH,
  redactArgs,
  redactConfig,
  REDACTED,
  redactedCommandLine,
  redactHeaders,
  redactHeaderString,
  redactText,
  redactUrl,
  targetSecrets,
  urlCredentials,
} from "../../src/config/redact.ts";

const R = REDACTED;

Deno.test("redactArgs: --api-key", async (t) => {
  await t.step("separate value", () => {
    assert.deepEqual(redactArgs(["profile", "--api-key", "sk-123", "-m", "x"]), [
      "profile",
      "--api-key",
      R,
      "-m",
      "x",
    ]);
  });
  await t.step("= form", () => {
    assert.deepEqual(redactArgs(["--api-key=sk-123"]), [`--api-key=${R}`]);
  });
  await t.step("value that looks like a flag is still redacted", () => {
    assert.deepEqual(redactArgs(["--api-key", "-secret-", "--model", "m"]), [
      "--api-key",
      R,
      "--model",
      "m",
    ]);
  });
  await t.step("api-key-like flags that are not the key are kept", () => {
    assert.deepEqual(redactArgs(["--output-tokens-mean", "100"]), ["--output-tokens-mean", "100"]);
  });
});

Deno.test("redactArgs: sensitive headers", async (t) => {
  const cases: [string[], string[]][] = [
    [["-H", "Authorization: Bearer abc"], ["-H", `Authorization: ${R}`]],
    [["-H", "Authorization:Bearer abc"], ["-H", `Authorization:${R}`]],
    [["--header", "authorization: Basic dXNlcjpwYXNz"], ["--header", `authorization: ${R}`]],
    [["--header=X-Api-Key:abc"], [`--header=X-Api-Key:${R}`]],
    [["-H=X-Api-Key:abc"], [`-H=X-Api-Key:${R}`]],
    [["-HX-Api-Key:abc"], [`-HX-Api-Key:${R}`]],
    [["--header", "api-key=abc"], ["--header", `api-key=${R}`]],
    [["-H", "OCP-APIM-Subscription-Key: k1"], ["-H", `OCP-APIM-Subscription-Key: ${R}`]],
    [["-H", "x-goog-api-key: g"], ["-H", `x-goog-api-key: ${R}`]],
    [["-H", "X-Functions-Key: f"], ["-H", `X-Functions-Key: ${R}`]],
    [["-H", "aeg-sas-key: s"], ["-H", `aeg-sas-key: ${R}`]],
    [["-H", "X-Amz-Security-Token: t"], ["-H", `X-Amz-Security-Token: ${R}`]],
    [["-H", "Proxy-Authorization: Basic p"], ["-H", `Proxy-Authorization: ${R}`]],
    // Unquoted in a shell: the value arrives as several words.
    [["-H", "Authorization:", "Bearer", "abc", "-m", "x"], [
      "-H",
      `Authorization:${R}`,
      R,
      R,
      "-m",
      "x",
    ]],
    [["-H", "Authorization: Bearer", "abc"], ["-H", `Authorization: ${R}`, R]],
  ];
  for (const [input, expected] of cases) {
    await t.step(input.join(" "), () => assert.deepEqual(redactArgs(input), expected));
  }

  await t.step("JSON header form", () => {
    const out = redactArgs(["-H", '{"Authorization":"Bearer abc","X-Trace":"keep"}']);
    assert.equal(out[0], "-H");
    assert.deepEqual(JSON.parse(out[1]), { Authorization: R, "X-Trace": "keep" });
    assert.ok(!out[1].includes("abc"));
  });
  await t.step("JSON header form with = and broken JSON", () => {
    const out = redactArgs(['--header={"x-api-key": "abc", ']);
    assert.ok(!out[0].includes("abc"), out[0]);
  });
  await t.step("headers whose names only resemble sensitive ones are kept", () => {
    const input = [
      "-H",
      "X-Authorization-Mode: strict",
      "-H",
      "X-Api-Key-Id: 42",
      "--header",
      "Authorizations: many",
      "-H",
      "my-api-key: 7",
      "-H",
      "X-User-Email:alice@example.com",
    ];
    assert.deepEqual(redactArgs(input), input);
  });
  await t.step("non-sensitive JSON headers are returned as written", () => {
    const input = ["-H", '{ "X-Trace": "1" }'];
    assert.deepEqual(redactArgs(input), input);
  });
});

Deno.test("redactArgs: URL userinfo", async (t) => {
  await t.step("--url value", () => {
    assert.deepEqual(redactArgs(["--url", "http://user:pass@host:8000/v1"]), [
      "--url",
      `http://${R}@host:8000/v1`,
    ]);
  });
  await t.step("-u and = forms", () => {
    assert.deepEqual(redactArgs(["-u", "https://tok@h/x?y=1"]), ["-u", `https://${R}@h/x?y=1`]);
    assert.deepEqual(redactArgs(["--url=http://a:b@h"]), [`--url=http://${R}@h`]);
  });
  await t.step("several values after --url, with and without scheme", () => {
    assert.deepEqual(redactArgs(["--url", "http://a:b@h1", "c:d@h2", "h3", "-m", "x"]), [
      "--url",
      `http://${R}@h1`,
      `${R}@h2`,
      "h3",
      "-m",
      "x",
    ]);
  });
  await t.step("scheme-less userinfo outside --url is left alone", () => {
    const input = ["--model", "org:model@rev"];
    assert.deepEqual(redactArgs(input), input);
  });
  await t.step("stray scheme URL anywhere", () => {
    assert.deepEqual(redactArgs(["--otel-url=grpc://u:p@c:4317", "--x", "http://a:b@h"]), [
      `--otel-url=grpc://${R}@c:4317`,
      "--x",
      `http://${R}@h`,
    ]);
  });
  await t.step("an @ in a path is not userinfo", () => {
    const input = ["--url", "http://host/users@example.com"];
    assert.deepEqual(redactArgs(input), input);
  });
  await t.step("plain arguments untouched", () => {
    const input = ["profile", "-m", "Qwen/Qwen3-0.6B", "--concurrency", "4", "--streaming"];
    assert.deepEqual(redactArgs(input), input);
  });
  await t.step("the input array is not modified", () => {
    const input = ["--api-key", "k"];
    redactArgs(input);
    assert.deepEqual(input, ["--api-key", "k"]);
  });
});

Deno.test("redactUrl", () => {
  assert.equal(redactUrl("http://u:p@h/v1"), `http://${R}@h/v1`);
  assert.equal(redactUrl("postgresql://u:p@db:5432/x"), `postgresql://${R}@db:5432/x`);
  assert.equal(redactUrl("u:p@h:80"), `${R}@h:80`);
  assert.equal(redactUrl("http://h/v1"), "http://h/v1");
  assert.equal(redactUrl("http://h/?key=abc&n=1"), `http://h/?key=${R}&n=1`);
  assert.equal(redactUrl("http://h/?api_key=abc"), `http://h/?api_key=${R}`);
  assert.equal(redactUrl("http://h/?token_count=3&monkey=1"), "http://h/?token_count=3&monkey=1");
  assert.equal(
    redactUrl("http://h/users@x.com?email=a@b.com"),
    "http://h/users@x.com?email=a@b.com",
  );
});

Deno.test("urlCredentials", async (t) => {
  await t.step("user and password become Basic auth", () => {
    const r = urlCredentials("http://alice:s3cret@host:8000/v1");
    assert.equal(r.url, "http://host:8000/v1");
    assert.equal(r.authorization, `Basic ${btoa("alice:s3cret")}`);
  });
  await t.step("percent-escapes are decoded, UTF-8 encoded", () => {
    const r = urlCredentials("https://b%C3%B6b:p%40ss@h");
    assert.equal(r.url, "https://h");
    const bytes = Uint8Array.from(atob(r.authorization!.slice(6)), (c) => c.charCodeAt(0));
    assert.equal(new TextDecoder().decode(bytes), "böb:p@ss");
  });
  await t.step("user only", () => {
    const r = urlCredentials("http://token@h/x");
    assert.equal(r.url, "http://h/x");
    assert.equal(r.authorization, `Basic ${btoa("token:")}`);
  });
  await t.step("no credentials: unchanged", () => {
    assert.deepEqual(urlCredentials("http://h/x@y"), { url: "http://h/x@y" });
    assert.deepEqual(urlCredentials("localhost:8000"), { url: "localhost:8000" });
  });
  await t.step("scheme-less", () => {
    const r = urlCredentials("a:b@localhost:8000");
    assert.equal(r.url, "localhost:8000");
    assert.equal(r.authorization, `Basic ${btoa("a:b")}`);
  });
  await t.step("the stripped URL is accepted by fetch's URL parser", () => {
    const r = urlCredentials("http://a:b@127.0.0.1:1/v1");
    const u = new URL(r.url);
    assert.equal(u.username, "");
    assert.equal(u.password, "");
  });
});

Deno.test("redactHeaders and redactHeaderString", () => {
  assert.deepEqual(
    redactHeaders({ Authorization: "Bearer x", "X-API-KEY": "k", "X-Api-Key-Id": "1", A: "b" }),
    { Authorization: R, "X-API-KEY": R, "X-Api-Key-Id": "1", A: "b" },
  );
  assert.equal(
    redactHeaderString("Content-Type: application/json"),
    "Content-Type: application/json",
  );
  assert.equal(redactHeaderString("api-key:x"), `api-key:${R}`);
  assert.ok(isSensitiveHeader(" AUTHORIZATION "));
  assert.ok(!isSensitiveHeader("authorization-hint"));
});

Deno.test("redactText", async (t) => {
  await t.step("known secrets anywhere, also percent-encoded", () => {
    const out = redactText("key sk/123 then sk%2F123 and sk/123.", ["sk/123"]);
    assert.equal(out, `key ${R} then ${R} and ${R}.`);
  });
  await t.step("longer secrets first", () => {
    assert.equal(redactText("abcdef", ["abc", "abcdef"]), R);
  });
  await t.step("empty secrets ignored", () => {
    assert.equal(redactText("hello", [""]), "hello");
  });
  await t.step("patterns without known values", () => {
    const cases: [string, string][] = [
      ["Authorization: Bearer abc.def", `Authorization: Bearer ${R}`],
      ['{"authorization":"Basic Zm9v"}', `{"authorization":"Basic ${R}"}`],
      ["{'X-Api-Key': 'k1', 'a': 1}", `{'X-Api-Key': '${R}', 'a': 1}`],
      ["fetch http://u:p@h/v1 failed", `fetch http://${R}@h/v1 failed`],
      ["GET /v1?api_key=abc&x=1", `GET /v1?api_key=${R}&x=1`],
      ["cmd --api-key sk-1 -m x", `cmd --api-key ${R} -m x`],
      ["cmd --api-key=sk-1 -m x", `cmd --api-key=${R} -m x`],
      ["password=hunter2 done", `password=${R} done`],
    ];
    for (const [input, expected] of cases) assert.equal(redactText(input, []), expected, input);
  });
  await t.step("ordinary text is kept", () => {
    const s = "authorization failed for model x; X-Api-Key-Id: 3; max_tokens=5";
    assert.equal(redactText(s, []), s);
  });
});

Deno.test("redactConfig", async (t) => {
  const config = {
    model: "m",
    api_key: "sk-1",
    endpoint: {
      apiKey: "sk-2",
      url: "http://u:p@h:8000",
      urls: ["http://a:b@h1", "c:d@h2"],
      headers: { Authorization: "Bearer x", "X-Trace": "1" },
    },
    header: ["X-Api-Key:abc", "Accept: text/plain"],
    header_pairs: { headers: [["api-key", "z"], ["A", "b"]] },
    otel_url: "grpc://o:p@c",
    note: "see https://tok@example.com",
    nested: [{ api_key: "sk-3", x: 1 }],
    count: 3,
    flag: true,
    nothing: null,
  };
  const out = redactConfig(config);
  await t.step("keys dropped and values redacted", () => {
    assert.deepEqual(out, {
      model: "m",
      endpoint: {
        url: `http://${R}@h:8000`,
        urls: [`http://${R}@h1`, `${R}@h2`],
        headers: { Authorization: R, "X-Trace": "1" },
      },
      header: [`X-Api-Key:${R}`, "Accept: text/plain"],
      header_pairs: { headers: [["api-key", R], ["A", "b"]] },
      otel_url: `grpc://${R}@c`,
      note: `see https://${R}@example.com`,
      nested: [{ x: 1 }],
      count: 3,
      flag: true,
      nothing: null,
    });
  });
  await t.step("no secret survives in the JSON", () => {
    const json = JSON.stringify(out);
    for (
      const s of ["sk-1", "sk-2", "sk-3", "Bearer x", "abc", '"z"', "u:p", "a:b", "c:d", "o:p"]
    ) {
      assert.ok(!json.includes(s), s);
    }
  });
  await t.step("input unchanged", () => {
    assert.equal(config.api_key, "sk-1");
    assert.equal(config.endpoint.headers.Authorization, "Bearer x");
  });
});

Deno.test("collectSecrets feeds redactText", () => {
  const config = {
    api_key: "sk-live-1",
    url: "http://alice:pw%21zz@h",
    headers: ["Authorization: Bearer tok-9", "Accept: x"],
    extra: { "X-Api-Key": "xk-123" },
    model: "org:model@rev",
  };
  const secrets = collectSecrets(config);
  for (const s of ["sk-live-1", "alice:pw%21zz", "pw!zz", "tok-9", "Bearer tok-9", "xk-123"]) {
    assert.ok(secrets.includes(s), s);
  }
  assert.ok(!secrets.includes("org:model"));
  assert.ok(!secrets.includes("x"));
  const basic = btoa("alice:pw!zz");
  const log = `sent sk-live-1 with tok-9 and Basic ${basic} pw!zz xk-123`;
  const out = redactText(log, secrets);
  for (const s of ["sk-live-1", "tok-9", basic, "pw!zz", "xk-123"]) {
    assert.ok(!out.includes(s), out);
  }
});

Deno.test("redactedCommandLine quotes for a shell and redacts", () => {
  const line = redactedCommandLine([
    "profile",
    "-m",
    "Qwen/Qwen3-0.6B",
    "--api-key",
    "sk-1",
    "-H",
    "Authorization: Bearer x",
    "--extra-inputs",
    '{"a": "it\'s"}',
    "",
  ]);
  assert.equal(
    line,
    `reprise profile -m Qwen/Qwen3-0.6B --api-key '${R}' -H 'Authorization: ${R}' ` +
      `--extra-inputs '{"a": "it'\\''s"}' ''`,
  );
  assert.equal(redactedCommandLine(["--url", "http://a:b@h"], "x"), `x --url 'http://${R}@h'`);
});

Deno.test("targetSecrets: every form of every secret the target holds", () => {
  const secrets = targetSecrets({
    apiKey: "sk-key-1",
    url: "http://alice:pw%21zz@h:1/v1",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Basic ${btoa("bob:hunter22")}`,
      Cookie: "session=abcdef",
      "X-Custom-Token": "tok-123",
    },
  });
  for (
    const s of [
      "sk-key-1",
      "Bearer sk-key-1",
      "alice:pw%21zz",
      "pw!zz",
      btoa("alice:pw!zz"),
      `Basic ${btoa("alice:pw!zz")}`,
      btoa("bob:hunter22"),
      "bob:hunter22",
      "hunter22",
      "session=abcdef",
      "tok-123",
    ]
  ) assert.ok(secrets.includes(s), s);
  assert.ok(!secrets.includes("application/json"));
  // Longest first, so a secret inside another is never left half-replaced.
  for (let i = 1; i < secrets.length; i++) {
    assert.ok(secrets[i - 1].length >= secrets[i].length);
  }
});

Deno.test("secrets shorter than MIN_SECRET_LENGTH are not searched for by value", () => {
  const secrets = targetSecrets({ apiKey: "abc", url: "http://u:p@h" });
  assert.ok(!secrets.includes("abc") && !secrets.includes("p"));
  assert.ok(secrets.includes("Bearer abc") && secrets.includes(btoa("u:p")));
  assert.equal(MIN_SECRET_LENGTH, 4);
  const text = "a plain sentence about tabs and caps";
  assert.equal(redactText(text, ["abc", "a", "p"]), text);
  assert.equal(redactText("got Bearer abc", secrets), `got ${R}`);
});

Deno.test("a message cut inside a secret has the cut part redacted", () => {
  const key = "sk-0123456789abcdef";
  const cut = `Incorrect API key provided: ${key.slice(0, 9)}…`;
  assert.equal(redactText(cut, [key]), `Incorrect API key provided: ${R}…`);
  // Fewer than MIN_SECRET_LENGTH characters of it are kept: they say nothing of the key.
  assert.equal(redactText("x sk-…", [key]), "x sk-…");
  assert.equal(redactText("the end…", [key]), "the end…");
});
