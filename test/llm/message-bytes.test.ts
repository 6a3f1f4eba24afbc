/**
 * MessageBytes: whatever the requests before it, a request's bytes are exactly its messages'
 * JSON written afresh; and a history that only grew is not written again.
 */
import { describe, expect, test } from "bun:test";
import { MessageBytes, sameMessage } from "../../src/llm/message-bytes.ts";
import type { ChatMessage } from "../../src/llm/types.ts";
import { mulberry32 } from "../harness/prng.ts";

const wire = (m: ChatMessage) => JSON.stringify(m);
const expected = (msgs: readonly ChatMessage[]) => `{"messages":[${msgs.map(wire).join(",")}]}`;
const text = (b: Uint8Array) => new TextDecoder().decode(b);

function counting() {
  let calls = 0;
  const mb = new MessageBytes<ChatMessage>(
    (m) => {
      calls++;
      return wire(m);
    },
    sameMessage,
    3,
  );
  return {
    encode: (msgs: readonly ChatMessage[]) => text(mb.encode(msgs, '{"messages":[', "]}")),
    calls: () => calls,
  };
}

describe("MessageBytes", () => {
  test("a history that grew is written once: only the new messages and none of the old", () => {
    const c = counting();
    const history: ChatMessage[] = [];
    for (let i = 0; i < 500; i++)
      history.push(i % 2 ? { role: "assistant", content: `answer ${i} — ok` } : { role: "user", content: `问题 ${i}` });
    const system = () => ({ role: "system", content: "You are homed." }) as ChatMessage;
    expect(c.encode([system(), ...history])).toBe(expected([system(), ...history]));
    expect(c.calls()).toBe(501);
    history.push({ role: "user", content: "next" }, { role: "assistant", content: "reply" });
    // A system prompt made again (a new, equal object) is not written again either.
    expect(c.encode([system(), ...history])).toBe(expected([system(), ...history]));
    expect(c.calls()).toBe(503);
  });

  test("a changed message, an inserted note and a turn pruned from the middle are written anew, the rest reused", () => {
    const c = counting();
    const h: ChatMessage[] = Array.from({ length: 100 }, (_, i) => ({ role: "user", content: `m${i}` }));
    const sys: ChatMessage = { role: "system", content: "a" };
    c.encode([sys, ...h]);
    const before = c.calls();
    const note: ChatMessage = { role: "system", content: "[recalled] m3" };
    const pruned = [...h.slice(0, 40), ...h.slice(60)];
    const now = [{ role: "system", content: "b" } as ChatMessage, note, ...pruned];
    expect(c.encode(now)).toBe(expected(now));
    // The new system prompt and the note, plus at most a few around the pruned gap.
    expect(c.calls() - before).toBeLessThanOrEqual(2 + 5);
  });

  test("any sequence of requests, several conversations interleaved: the bytes are always the messages' own", () => {
    const c = counting();
    const rand = mulberry32(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
    const make = (i: number): ChatMessage =>
      pick([
        { role: "user", content: `u${i} ${"x".repeat(Math.floor(rand() * 20))}` },
        { role: "assistant", content: `a${i}`, toolCalls: [{ id: `c${i}`, name: "t", arguments: "{}" }] },
        { role: "tool", toolCallId: `c${i}`, name: "t", content: `r${i}` },
        { role: "assistant", content: `é${i}` },
      ]);
    const convs: ChatMessage[][] = [[], [], [], [], []];
    let n = 0;
    for (let step = 0; step < 400; step++) {
      const conv = pick(convs);
      const op = rand();
      if (op < 0.5) for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) conv.push(make(n++));
      else if (op < 0.6 && conv.length > 4) conv.splice(Math.floor(rand() * conv.length), 1 + Math.floor(rand() * 12));
      else if (op < 0.7 && conv.length > 0) conv[Math.floor(rand() * conv.length)] = make(n++);
      else if (op < 0.8) conv.splice(Math.floor(rand() * (conv.length + 1)), 0, make(n++));
      else if (op < 0.85) conv.reverse();
      const sent = [{ role: "system", content: pick(["s", "s", "t"]) } as ChatMessage, ...conv];
      expect(c.encode(sent)).toBe(expected(sent));
    }
    expect(c.encode([])).toBe(expected([]));
  });
});
