/**
 * A tiny chat-completions server for dataset tests: it records every body it receives, with its
 * session id and arrival time, and answers `answer <n>` (streamed in two chunks when asked),
 * holding each answer open for `holdMs` so a test can tell "after the answer" from "after the
 * first byte".
 */

/** One request as the server saw it. */
export interface Captured {
  session: string;
  body: string;
  /** performance.now() when the request arrived. */
  arrived: number;
  /** performance.now() when the last byte of the answer was handed to the connection. */
  finished: number;
  /** The answer text sent back. */
  answer: string;
}

/** A running capture server. */
export interface CaptureServer {
  /** `127.0.0.1:<port>`, as `--url` takes it. */
  hostPort: string;
  captured: Captured[];
  /** Bodies grouped by session id, in arrival order. */
  bySession(): Map<string, string[]>;
  close(): Promise<void>;
}

const enc = new TextEncoder();

/** Starts the server on 127.0.0.1, port 0. */
export function startCaptureServer(opts: { holdMs?: number } = {}): CaptureServer {
  const hold = opts.holdMs ?? 0;
  const captured: Captured[] = [];
  let n = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.method !== "POST") return Response.json({ data: [{ id: "m" }] });
    const body = await req.text();
    const rec: Captured = {
      session: req.headers.get("x-correlation-id") ?? "",
      body,
      arrived: performance.now(),
      finished: 0,
      answer: `answer ${n++}`,
    };
    captured.push(rec);
    let stream = false;
    try {
      stream = JSON.parse(body).stream === true;
    } catch { /* a body that is not JSON is answered without streaming */ }
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    if (!stream) {
      await new Promise((r) => setTimeout(r, hold));
      rec.finished = performance.now();
      return Response.json({
        choices: [{ index: 0, message: { role: "assistant", content: rec.answer } }],
        usage,
      });
    }
    const [a, b] = rec.answer.split(" ");
    const chunk = (text: string) =>
      enc.encode(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`,
      );
    const out = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(chunk(a + " "));
        await new Promise((r) => setTimeout(r, hold));
        c.enqueue(chunk(b));
        c.enqueue(enc.encode("data: [DONE]\n\n"));
        rec.finished = performance.now();
        c.close();
      },
    });
    return new Response(out, { headers: { "content-type": "text/event-stream" } });
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    hostPort: `127.0.0.1:${addr.port}`,
    captured,
    bySession() {
      const m = new Map<string, string[]>();
      for (const c of captured) {
        const list = m.get(c.session) ?? [];
        list.push(c.body);
        m.set(c.session, list);
      }
      return m;
    },
    close: () => server.shutdown(),
  };
}
