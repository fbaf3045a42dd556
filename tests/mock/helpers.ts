/** Test helpers for the mock server: a timed SSE reader over fetch. */

/** One SSE event with the client-side time its bytes arrived (`performance.now()` ms). */
export interface TimedEvent {
  event: string;
  data: string;
  at: number;
}

/** Reads an SSE body to its end, stamping each event with the arrival of the read holding it. */
export async function readSse(res: Response): Promise<TimedEvent[]> {
  const events: TimedEvent[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const at = performance.now();
    buf += value;
    let cut: number;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const packet = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = "";
      const data: string[] = [];
      for (const line of packet.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
      }
      events.push({ event, data: data.join("\n"), at });
    }
  }
  if (buf.trim() !== "") throw new Error(`SSE body ended inside an event: ${JSON.stringify(buf)}`);
  return events;
}

/** POSTs JSON to the mock. */
export function post(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** The JSON payloads of `data:` events, without the final `[DONE]`. */
export function payloads(events: TimedEvent[]): Record<string, unknown>[] {
  return events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data));
}
