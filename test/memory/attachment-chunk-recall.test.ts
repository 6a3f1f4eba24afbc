/**
 * A long attachment's chunks in the turn that carries it, on a real store through
 * ConversationContext (what the agent calls): the turn's messages are the same with or without
 * chunks (never a chunk message), and when the turn is too large to come back whole, cold recall
 * quotes the page that matches — labelled with the file and page — not the message's start.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { Store } from "../../src/store/store.ts";
import { Memory } from "../../src/memory/memory.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { ConversationContext } from "../../src/memory/context.ts";
import { eventText } from "../../src/memory/event-text.ts";
import { attachmentChunkEvents } from "../../src/memory/attachment-chunks.ts";
import type { Attachment } from "../../src/protocol/attachments.ts";

function report(): Attachment {
  let text = "";
  const anchors: { label: string; offset: number }[] = [];
  for (let p = 1; p <= 30; p++) {
    anchors.push({ label: `page ${p}`, offset: text.length });
    const lines = Array.from({ length: 40 }, (_, l) =>
      p === 27 && l === 20
        ? "The boathouse key hangs on the quokkabrine hook."
        : `Page ${p} line ${l}: figures steady.`,
    );
    text += `${lines.join("\n")}\n\n`;
  }
  return { sha256: "c".repeat(64), mime: "application/pdf", bytes: 1, kind: "file", name: "report.pdf", text, anchors };
}

function turn(store: Store, memory: Memory, id: string, text: string, reply: string, files: Attachment[] = []) {
  store.beginTurn(id, "c", "test");
  const add = (kind: string, actor: string, body: unknown) => {
    const r = store.append({ conv: "c", actor, kind, body });
    const t = eventText(kind, JSON.stringify(body));
    if (t !== null) memory.add(r.id);
  };
  add("user-message", "user", { turn: id, text, ...(files.length ? { attachments: files } : {}) });
  for (const c of attachmentChunkEvents(id, files)) add(c.event.kind, "user", c.event.body);
  add("model-output", "agent", { turn: id, text: reply });
  add("agent-reply", "agent", { turn: id, text: reply, fromModel: true });
}

describe("attachment chunks in context", () => {
  test("chunks are no messages; a turn too large to come back lends the matching page", async () => {
    using dir = tempDir();
    const store = Store.open(join(dir.path, "homed.db"));
    const memory = new Memory(store, new Tokenizer());
    turn(store, memory, "t0", "here is the report", "Read it.", [report()]);
    for (let i = 1; i < 30; i++) turn(store, memory, `t${i}`, `chat about sailing boats ${i}`, `sailing ${i}`);

    const whole = await new ConversationContext(store, null).assemble({ conv: "c", input: "", budgetTokens: 1e9 });
    const t0 = whole.history.filter((e) => e.item.turn === "t0").map((e) => e.message);
    expect(t0.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(t0[0]?.content).toContain("quokkabrine");
    expect(whole.history).toHaveLength(60);

    const ctx = new ConversationContext(store, memory, 2);
    await ctx.assemble({ conv: "c", input: "sailing boats", budgetTokens: 100 });
    const r = await ctx.assemble({ conv: "c", input: "where is the quokkabrine hook?", budgetTokens: 400 });
    expect(r.history.some((e) => e.item.turn === "t0")).toBe(false);
    const note = r.recalledNote?.message.content ?? "";
    expect(note).toContain("- attachment report.pdf · pages 27–28: Page 27 line 0");
    expect(note).toContain("The boathouse key hangs on the quokkabrine hook.");
    store.close();
  });
});
