/**
 * The SSE parser over hand-made byte streams: line endings, multi-line data, comments, and the
 * same events whatever the chunking — including splits inside CRLF and inside UTF-8 characters.
 */
import { describe, expect, test } from "bun:test";
import { parseSse, type SseEvent } from "../../src/shared/sse.ts";

const enc = new TextEncoder();

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks[i++];
      if (next === undefined) c.close();
      else c.enqueue(typeof next === "string" ? enc.encode(next) : next);
    },
  });
}

async function parse(chunks: (string | Uint8Array)[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of parseSse(streamOf(chunks))) out.push(ev);
  return out;
}

describe("parseSse", () => {
  test("data-only events and named events", async () => {
    expect(await parse(['data: {"a":1}\n\n', "event: ping\ndata: {}\n\n"])).toEqual([
      { data: '{"a":1}' },
      { event: "ping", data: "{}" },
    ]);
  });

  test("LF, CRLF and CR line endings", async () => {
    expect(await parse(["data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r\n\n"])).toEqual([
      { data: "a" },
      { data: "b" },
      { data: "c" },
      { data: "d" },
    ]);
  });

  test("multi-line data is joined with newlines", async () => {
    expect(await parse(["data: line 1\ndata: line 2\ndata:\ndata: line 4\n\n"])).toEqual([
      { data: "line 1\nline 2\n\nline 4" },
    ]);
  });

  test("comments, unknown fields and a block without data dispatch nothing", async () => {
    expect(await parse([": keep-alive\n\nid: 7\nretry: 1000\n\nevent: lonely\n\ndata: real\n\n"])).toEqual([
      { data: "real" },
    ]);
  });

  test("one leading space is stripped from a value, not more; no space is fine", async () => {
    expect(await parse(["data:x\n\ndata:  two spaces\n\ndata\n\n"])).toEqual([
      { data: "x" },
      { data: " two spaces" },
      { data: "" },
    ]);
  });

  test("event name resets between events", async () => {
    expect(await parse(["event: a\ndata: 1\n\ndata: 2\n\n"])).toEqual([{ event: "a", data: "1" }, { data: "2" }]);
  });

  test("a final event without the trailing blank line is dispatched", async () => {
    expect(await parse(["data: first\n\ndata: last"])).toEqual([{ data: "first" }, { data: "last" }]);
    expect(await parse(["event: e\ndata: last\n"])).toEqual([{ event: "e", data: "last" }]);
    expect(await parse(["data: last\r"])).toEqual([{ data: "last" }]);
  });

  test("a leading byte-order mark is ignored", async () => {
    expect(await parse(["\uFEFFdata: x\n\n"])).toEqual([{ data: "x" }]);
  });

  test("the same events whatever the chunk boundaries (every split, every byte)", async () => {
    const text =
      'event: message_start\r\ndata: {"t":"héllo 🌍"}\r\n\r\n: comment\n\ndata: a\rdata: b\r\rdata: [DONE]\n\n';
    const bytes = enc.encode(text);
    const expected = await parse([text]);
    expect(expected).toEqual([
      { event: "message_start", data: '{"t":"héllo 🌍"}' },
      { data: "a\nb" },
      { data: "[DONE]" },
    ]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect({ cut, events: await parse([bytes.slice(0, cut), bytes.slice(cut)]) }).toEqual({ cut, events: expected });
    }
    expect(await parse([...bytes].map((b) => new Uint8Array([b])))).toEqual(expected);
  });

  test("a CR at the end of one chunk and LF at the start of the next are one line end", async () => {
    expect(await parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([{ data: "a\nb" }]);
  });

  test("a read error propagates to the caller", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode("data: ok\n\n"));
        c.error(new Error("connection reset"));
      },
    });
    const seen: SseEvent[] = [];
    let error: unknown;
    try {
      for await (const ev of parseSse(stream)) seen.push(ev);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("connection reset");
  });

  test("an event past the size limit throws instead of growing without bound", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(enc.encode(`data: ${"x".repeat(40)}\ndata: `));
      },
      cancel() {
        cancelled = true;
      },
    });
    let error: unknown;
    try {
      for await (const _ of parseSse(stream, 1000)) throw new Error("no event was expected");
    } catch (err) {
      error = err;
    }
    expect((error as Error).message).toBe("SSE event longer than 1000 characters");
    expect(cancelled).toBe(true);
  });

  test("leaving the loop early cancels the source stream", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(enc.encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const ev of parseSse(stream)) {
      expect(ev.data).toBe("tick");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
