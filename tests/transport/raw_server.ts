/** A raw HTTP/1.1 test server over `Deno.listen`, for the client's tests: every byte is the test's. */

/** A raw server: `answer` gets each request's head and body text and writes the reply. */
export function rawServer(
  answer: (conn: Deno.Conn, request: string, n: number) => Promise<boolean>,
) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  let requests = 0;
  const tasks: Promise<void>[] = [];
  const handle = async (conn: Deno.Conn) => {
    const buf = new Uint8Array(65536);
    let got = "";
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        got += new TextDecoder().decode(buf.subarray(0, n));
        const at = got.indexOf("\r\n\r\n");
        if (at === -1) continue;
        const len = Number(/content-length: *(\d+)/i.exec(got)?.[1] ?? 0);
        if (got.length - at - 4 < len) continue;
        const request = got.slice(0, at + 4 + len);
        got = got.slice(at + 4 + len);
        if (!await answer(conn, request, requests++)) break;
      }
    } catch { /* the client went away */ }
    try {
      conn.close();
    } catch { /* closed */ }
  };
  const loop = (async () => {
    for await (const conn of listener) {
      accepted++;
      tasks.push(handle(conn));
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}/v1/chat/completions?x=1`,
    accepted: () => accepted,
    async close() {
      listener.close();
      await loop.catch(() => {});
      await Promise.all(tasks);
    },
  };
}
