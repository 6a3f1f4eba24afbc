/**
 * Server-Sent Events, the one reader of them: a model provider's stream (src/llm), the web
 * plugin's turn streams as waiter's remote link (src/client) and the page (plugins/web/ui) read
 * them. Parsed by eventsource-parser (the WHATWG "event stream interpretation": LF, CR and CRLF
 * line ends split anywhere, a leading BOM, comments). This wrapper adds what a stream needs
 * beyond the parser: streaming UTF-8 decoding
 * (a multi-byte character may be split between chunks), a bound on one event's size, a final
 * event that lacks its blank line, and releasing the connection when the reader stops early.
 */
import { createParser } from "eventsource-parser";

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
  const ready: SseEvent[] = [];
  let tooLong = false;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: (e) => ready.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }),
    onError: (err) => {
      if (err.type === "max-buffer-size-exceeded") tooLong = true;
    },
  });
  const take = (chunk: string): SseEvent[] => {
    parser.feed(chunk);
    if (tooLong) throw new Error(`SSE event longer than ${maxEventChars} characters`);
    return ready.splice(0);
  };
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* take(decoder.decode(value, { stream: true }));
    }
    finished = true;
    // Ending the last line and the last event dispatches an event the provider left open;
    // after a complete stream the extra line ends are blank lines, which dispatch nothing.
    yield* take(`${decoder.decode()}\n\n`);
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
