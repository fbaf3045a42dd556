/**
 * A minimal forwarding HTTP proxy for `bench:load --proxy`: it takes absolute-form requests
 * (`POST http://host:port/path HTTP/1.1`), sends each to its server in origin form over one
 * upstream connection per client connection (kept alive as the client's is), and pipes the
 * answers back byte for byte; `CONNECT host:port` opens a tunnel. Not a proxy to use elsewhere:
 * no header is changed, a request's body is found by its Content-Length only.
 *
 *   deno run -A bench/forward_proxy.ts   (prints "port N" once listening; SIGTERM ends it)
 */

const enc = new TextEncoder();
const dec = new TextDecoder();
const HEAD_END = enc.encode("\r\n\r\n");

function indexOf(buf: Uint8Array, end: number, pat: Uint8Array): number {
  outer: for (let i = 0; i + pat.length <= end; i++) {
    for (let k = 0; k < pat.length; k++) if (buf[i + k] !== pat[k]) continue outer;
    return i;
  }
  return -1;
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

async function pipe(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(65536);
  try {
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      await writeAll(to, buf.subarray(0, n));
    }
  } catch { /* either side closed */ }
  try {
    to.close();
  } catch { /* closed */ }
}

async function handle(client: Deno.Conn): Promise<void> {
  let buf = new Uint8Array(65536);
  let len = 0;
  let upstream: Deno.TcpConn | null = null;
  try {
    for (;;) {
      if (len === buf.length) {
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
      const n = await client.read(buf.subarray(len));
      if (n === null) break;
      len += n;
      for (;;) {
        const at = indexOf(buf, len, HEAD_END);
        if (at < 0) break;
        const head = dec.decode(buf.subarray(0, at));
        const lineEnd = head.indexOf("\r\n");
        const line = lineEnd < 0 ? head : head.slice(0, lineEnd);
        const [method, target, version] = line.split(" ");
        if (method === "CONNECT") {
          const [host, port] = target.split(":");
          const tunnel = await Deno.connect({ hostname: host, port: Number(port) });
          await writeAll(client, enc.encode("HTTP/1.1 200 Connection established\r\n\r\n"));
          const rest = buf.slice(at + 4, len);
          if (rest.length > 0) await writeAll(tunnel, rest);
          await Promise.all([pipe(client, tunnel), pipe(tunnel, client)]);
          return;
        }
        const bodyLen = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (len < at + 4 + bodyLen) break;
        const url = new URL(target);
        if (upstream === null) {
          upstream = await Deno.connect({ hostname: url.hostname, port: Number(url.port || 80) });
          upstream.setNoDelay(true);
          pipe(upstream, client);
        }
        const rewritten = enc.encode(
          `${method} ${url.pathname}${url.search} ${version}${head.slice(lineEnd)}\r\n\r\n`,
        );
        await writeAll(upstream, rewritten);
        await writeAll(upstream, buf.subarray(at + 4, at + 4 + bodyLen));
        buf.copyWithin(0, at + 4 + bodyLen, len);
        len -= at + 4 + bodyLen;
      }
    }
  } catch { /* either side went away */ }
  try {
    client.close();
  } catch { /* closed */ }
  try {
    upstream?.close();
  } catch { /* closed */ }
}

const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
console.log(`port ${listener.addr.port}`);
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
for await (const conn of listener) {
  (conn as Deno.TcpConn).setNoDelay(true);
  handle(conn);
}
