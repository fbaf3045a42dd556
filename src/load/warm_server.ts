/**
 * The warm-up's own server, on loopback in the Worker: it answers every request with the same
 * parts, each written on its own. The warm-up then reads through Deno's TCP connections, as the
 * run does: code V8 compiled against the in-memory connections was thrown away at the run's
 * first answers ("wrong map" in the connection's functions, `--trace-deopt`) and compiled again
 * inside the measured time. Only where the sandbox already allows listening on 127.0.0.1.
 */

import { writeAll } from "../util/bytes.ts";

/** A listening warm-up server. */
export interface WarmServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  close(): Promise<void>;
}

const HEAD_END = new Uint8Array([13, 10, 13, 10]);
const decoder = new TextDecoder();

/** Where `needle` starts in `hay[from, to)`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from: number, to: number): number {
  outer: for (let i = from; i + needle.length <= to; i++) {
    for (let k = 0; k < needle.length; k++) if (hay[i + k] !== needle[k]) continue outer;
    return i;
  }
  return -1;
}

/** Whether listening on 127.0.0.1 is allowed without a prompt. */
function mayListen(): boolean {
  try {
    return Deno.permissions.querySync({ name: "net", host: "127.0.0.1" }).state === "granted";
  } catch {
    return false;
  }
}

/** Reads whole requests off `conn` and writes `answer`'s parts for each, until it closes. */
async function serve(conn: Deno.Conn, answer: Uint8Array[]): Promise<void> {
  let buf = new Uint8Array(16 * 1024);
  let have = 0;
  try {
    for (;;) {
      // One request: its head, then as many body bytes as its content-length says.
      let end = -1;
      let need = Infinity;
      while (have < need) {
        if (end === -1) {
          end = indexOf(buf, HEAD_END, 0, have);
          if (end !== -1) {
            const head = decoder.decode(buf.subarray(0, end));
            const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
            need = end + 4 + (length ? Number(length[1]) : 0);
            continue;
          }
        }
        if (have === buf.length) {
          const bigger = new Uint8Array(Math.max(buf.length * 2, need === Infinity ? 0 : need));
          bigger.set(buf.subarray(0, have));
          buf = bigger;
        }
        const n = await conn.read(buf.subarray(have));
        if (n === null) return;
        have += n;
      }
      buf.copyWithin(0, need, have);
      have -= need;
      for (const part of answer) await writeAll(conn, part);
    }
  } catch {
    // The client closed the connection: the warm-up is over.
  } finally {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

/** Starts a server answering with `answer`'s parts; null where listening is not allowed. */
export function startWarmServer(answer: Uint8Array[]): WarmServer | null {
  if (!mayListen()) return null;
  let listener: Deno.TcpListener;
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  } catch {
    return null;
  }
  const served: Promise<void>[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        // Each part goes out as it is written, not held for the last one's acknowledgement.
        conn.setNoDelay(true);
        served.push(serve(conn, answer));
      }
    } catch {
      // Closed.
    }
  })();
  return {
    origin: `http://127.0.0.1:${listener.addr.port}`,
    async close() {
      try {
        listener.close();
      } catch { /* closed already */ }
      await accepting;
      await Promise.all(served);
    },
  };
}
