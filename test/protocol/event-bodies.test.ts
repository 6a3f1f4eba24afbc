/**
 * Stored event bodies: what a writer builds with `eventOf` reads back through the one reader,
 * and a body that is not what its kind says is null for every reader alike (history, memory's
 * index and the transcript all go through `readEventBody`).
 */
import { describe, expect, test } from "bun:test";
import { eventOf, readBodyOf, readEventBody } from "../../src/protocol/event-bodies.ts";
import { eventText } from "../../src/memory/event-text.ts";

const stored = (e: { kind: string; body: unknown }) => [e.kind, JSON.stringify(e.body)] as const;

describe("event bodies", () => {
  test("a body written with eventOf reads back as written, defaults applied", () => {
    const out = eventOf("model-output", { turn: "t1", iteration: 1, text: "hi", failed: false });
    expect(readEventBody(...stored(out))).toEqual({
      kind: "model-output",
      body: { turn: "t1", iteration: 1, text: "hi", toolCalls: [], failed: false, discarded: false },
    });
    const res = eventOf("tool-result", { turn: null, callId: "c", name: "clock", status: "ok", content: "noon" });
    expect(readBodyOf("tool-result", JSON.stringify(res.body))).toEqual(res.body);
  });

  test("a known kind whose body does not match, or text that is not JSON, reads as null", () => {
    expect(readEventBody("user-message", JSON.stringify({ turn: "t", text: 5 }))).toBeNull();
    expect(readEventBody("agent-reply", JSON.stringify({ text: "no fromModel" }))).toBeNull();
    expect(readEventBody("user-message", "{not json")).toBeNull();
    expect(readBodyOf("recall-turn", JSON.stringify({ text: "no id" }))).toBeNull();
    expect(eventText("user-message", JSON.stringify({ text: 5 }))).toBeNull();
  });

  test("a kind homed does not write offers its turn and text", () => {
    expect(readEventBody("note", JSON.stringify({ turn: "t", text: "remember the milk", extra: 1 }))).toEqual({
      kind: "other",
      body: { turn: "t", text: "remember the milk", extra: 1 },
    });
    expect(eventText("note", JSON.stringify({ text: "remember the milk" }))).toBe("remember the milk");
    expect(eventText("note", JSON.stringify({ title: "no text" }))).toBeNull();
  });

  test("memory indexes a tool result's name and at most MAX_INDEXED_TEXT_CHARS of its content", () => {
    const long = eventOf("tool-result", { callId: "c", name: "read", status: "ok", content: "x".repeat(50_000) });
    expect(eventText(...stored(long))).toBe(`read\n${"x".repeat(20_000)}`);
    expect(eventText(...stored(eventOf("agent-reply", { text: "from the model", fromModel: true })))).toBeNull();
    expect(eventText(...stored(eventOf("agent-reply", { text: "Not processed.", fromModel: false })))).toBe(
      "Not processed.",
    );
  });
});
