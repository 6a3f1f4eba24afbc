/**
 * A Server-Sent-Events parser (the WHATWG "event stream interpretation", minus `id`/`retry`,
 * which no LLM API uses). Bytes may be split anywhere — inside a line, between CR and LF, inside
 * a multi-byte UTF-8 character — so decoding is streaming and line splitting keeps state.
 */

/** Far above any real chunk (a whole tool call's arguments arrive in pieces), far below trouble. */
export const DEFAULT_MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** One dispatched event: `event` is the last `event:` field, `data` the `data:` lines joined by "\n". */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Yield every event of `stream` in order. Comments (`:` lines) and fields other than `event` and
 * `data` are ignored; a block without any `data:` line dispatches nothing (as in browsers). A final
 * event that lacks its terminating blank line is still dispatched: a provider that closes right
 * after its last `data:` line has said what it meant.
 *
 * Read errors of `stream` propagate to the caller unchanged. An event (or an unfinished line)
 * longer than `maxEventChars` throws instead of growing without bound. Leaving the loop early
 * cancels the stream, which releases the connection.
 */
export async function* parseSse(
  stream: ReadableStream<Uint8Array>,
  maxEventChars = DEFAULT_MAX_EVENT_CHARS,
): AsyncGenerator<SseEvent> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let first = true;
  // Set when a chunk ended in CR: an LF at the start of the next chunk belongs to that line end.
  let skipLf = false;
  let event: string | undefined;
  let data: string[] = [];
  let dataChars = 0;
  let finished = false;

  function* line(text: string): Generator<SseEvent> {
    if (text === "") {
      if (data.length > 0) yield event === undefined ? { data: data.join("\n") } : { event, data: data.join("\n") };
      event = undefined;
      data = [];
      dataChars = 0;
      return;
    }
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      data.push(value);
      dataChars += value.length + 1;
    } else if (field === "event") event = value;
  }

  // Scans with an index and slices the buffer once per chunk, so a large chunk of many short
  // lines costs linear time.
  function* drain(): Generator<SseEvent> {
    let pos = 0;
    if (skipLf && buffer.length > 0) {
      if (buffer[0] === "\n") pos = 1;
      skipLf = false;
    }
    for (;;) {
      let end = pos;
      while (end < buffer.length && buffer[end] !== "\r" && buffer[end] !== "\n") end++;
      if (end >= buffer.length) break;
      const text = buffer.slice(pos, end);
      if (buffer[end] === "\r") {
        if (end + 1 >= buffer.length) skipLf = true;
        pos = buffer[end + 1] === "\n" ? end + 2 : end + 1;
      } else pos = end + 1;
      yield* line(text);
    }
    buffer = buffer.slice(pos);
  }

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (first && buffer.length > 0) {
        if (buffer.startsWith("\uFEFF")) buffer = buffer.slice(1);
        first = false;
      }
      yield* drain();
      if (buffer.length + dataChars > maxEventChars)
        throw new Error(`SSE event longer than ${maxEventChars} characters`);
    }
    finished = true;
    buffer += decoder.decode();
    yield* drain();
    if (buffer !== "") yield* line(buffer);
    yield* line("");
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
