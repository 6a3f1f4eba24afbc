/**
 * A web UI turn started the way the page starts one (POST /api/chat, SSE back), with its events
 * gathered as they come: for suites that watch a web turn from elsewhere.
 */
import { expect } from "bun:test";
import { poll } from "./poll.ts";

export async function webTurn(url: string, conv: string, text: string) {
  const res = await fetch(`${url}api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-homed": "1" },
    body: JSON.stringify({ conv, text }),
  });
  expect(res.status).toBe(200);
  const events: Record<string, unknown>[] = [];
  const done = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of res.body as ReadableStream<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = frame
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trim())
          .join("\n");
        if (data) events.push(JSON.parse(data) as Record<string, unknown>);
      }
    }
  })();
  const stream = await poll(
    async () => events.find((e) => e.type === "stream")?.stream as string | undefined,
    (s) => typeof s === "string",
    { timeoutMs: 10_000, intervalMs: 20, what: "the web turn's stream id" },
  );
  return { events, done, stream: stream as string };
}
