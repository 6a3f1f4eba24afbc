/**
 * Server-sent events from a fetch response body: each event's `data:` lines joined, as the web
 * plugin's /api/chat and /api/chat/live send them (one JSON object per event). Comments,
 * `event:` and `id:` fields are read past; the stream's end ends the iteration.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const dec = new TextDecoder();
  let buf = "";
  let data: string[] = [];
  for await (const chunk of body) {
    buf += dec.decode(chunk, { stream: true });
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
      if (line === "") {
        if (data.length) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
  }
  if (data.length) yield data.join("\n");
}
