/**
 * The export readers (src/import) on files the test writes, read as `homed import` reads them
 * (a stream of the file's bytes): the current branch of a ChatGPT tree in order, what each
 * format leaves out and counts, Claude's words wherever they are (content blocks, `text`, an
 * attachment's extracted text), a title from the first words when the export has none, JSON
 * lines' roles, speakers, times and refs, bad records named by the line they start on with the
 * rest still read, and the format told by the content. The binary's own use of them is
 * test/cli/import.test.ts and test/import/imported-memory.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { readExport } from "../../src/import/read-export.ts";
import type { ImportFormat, ImportRecord } from "../../src/import/import-record.ts";
import { HomedError } from "../../src/protocol/errors.ts";
import { MAX_IMPORTED_TEXT_CHARS } from "../../src/protocol/import.ts";
import { branchingChatgpt, chatgptConversation, claudeConversation, elementLines, pretty } from "./fixtures.ts";

async function readFile(path: string, format?: ImportFormat) {
  const reading = await readExport(Bun.file(path).stream(), format);
  const records: ImportRecord[] = [];
  for await (const r of reading.records) records.push(r);
  return { format: reading.format, records };
}

async function readText(text: string, format?: ImportFormat) {
  using dir = tempDir();
  const path = join(dir.path, "export.json");
  await Bun.write(path, text);
  return await readFile(path, format);
}

/** The same text cut into chunks of 1–7 bytes, as a slow pipe would deliver it. */
async function readInPieces(text: string, format?: ImportFormat) {
  const bytes = new TextEncoder().encode(text);
  async function* pieces() {
    for (let i = 0, k = 1; i < bytes.length; i += k, k = (k % 7) + 1) yield bytes.slice(i, i + k);
  }
  const reading = await readExport(pieces(), format);
  const records: ImportRecord[] = [];
  for await (const r of reading.records) records.push(r);
  return { format: reading.format, records };
}

const conversations = (records: ImportRecord[]) =>
  records.flatMap((r) => (r.kind === "conversation" ? [r.conversation] : []));
const bad = (records: ImportRecord[]) =>
  records.flatMap((r) => (r.kind === "bad" ? [{ line: r.line, reason: r.reason }] : []));

describe("ChatGPT export", () => {
  test("only the current branch, in order, with the ids, times and title; the rest left out and counted", async () => {
    const { format, records } = await readText(pretty([branchingChatgpt()]));
    expect(format).toBe("chatgpt");
    expect(records.length).toBe(1);
    const r = records[0] as Extract<ImportRecord, { kind: "conversation" }>;
    expect(r.kind).toBe("conversation");
    expect(r.line).toBe(2);
    const t = 1_700_000_000_000;
    expect(r.conversation).toEqual({
      conv: "chatgpt-conv-branch",
      title: "Kayak trip planning",
      messages: [
        { role: "user", text: "Where should I kayak in June, near Oslo?", ref: "msg-u1", time: t + 30_000 },
        {
          role: "assistant",
          text: "Try the Oslofjord islands.\nBring a spray skirt.",
          ref: "msg-a1",
          time: t + 50_000,
        },
        // No create_time of its own: the conversation's.
        { role: "user", text: "Is this boat fine?", ref: "msg-u2", time: t },
        { role: "assistant", text: "Yes, a sea kayak is fine.", ref: "msg-a2", time: t + 70_000 },
      ],
    });
    expect(r.left).toEqual({
      system: 1,
      tool: 2, // the browser call and its result
      hidden: 1,
      "content thoughts": 1,
      empty: 1,
      "non-text parts": 1, // the photo beside "Is this boat fine?"
      "on other branches": 3, // the first wording and its answer, the regenerated reply
    });
  });

  test("without a current_node the newest child is followed from the root; conversation_id stands in for id", async () => {
    const c = chatgptConversation(
      "",
      "Old export",
      1_600_000_000,
      [
        { id: "root", parent: null },
        { id: "u", parent: "root", role: "user", text: ["first question"] },
        { id: "a-old", parent: "u", role: "assistant", text: ["first answer"] },
        { id: "a-new", parent: "u", role: "assistant", text: ["regenerated answer"] },
      ],
      null,
    );
    c.id = undefined;
    c.conversation_id = "legacy-1";
    const [conv] = conversations((await readText(pretty([c]))).records);
    expect(conv?.conv).toBe("chatgpt-legacy-1");
    expect(conv?.messages.map((m) => m.text)).toEqual(["first question", "regenerated answer"]);
  });

  test("a bad conversation is reported at the line it starts on and skipped whole; the others are read", async () => {
    const good1 = chatgptConversation(
      "g1",
      "one",
      1,
      [
        { id: "r", parent: null },
        { id: "u", parent: "r", role: "user", text: ["hello one"] },
      ],
      "u",
    );
    const noMapping = { id: "bad1", title: "no mapping", create_time: 1 };
    // One readable message, then one whose author is not an object: the conversation goes whole.
    const halfBad = chatgptConversation(
      "bad2",
      "half",
      1,
      [
        { id: "r", parent: null },
        { id: "u", parent: "r", role: "user", text: ["this must not be imported"] },
        { id: "a", parent: "u", role: "assistant", text: ["x"], extra: { author: "assistant" } },
      ],
      "a",
    );
    const loop = chatgptConversation(
      "bad3",
      "loop",
      1,
      [
        { id: "x", parent: "y", role: "user", text: ["a"] },
        { id: "y", parent: "x", role: "user", text: ["b"] },
      ],
      "x",
    );
    const good2 = chatgptConversation(
      "g2",
      "two",
      1,
      [
        { id: "r", parent: null },
        { id: "u", parent: "r", role: "user", text: ["hello two"] },
      ],
      "u",
    );
    const text = pretty([good1, noMapping, halfBad, loop, good2]);
    const lines = elementLines(text);
    const { records } = await readText(text);
    expect(conversations(records).map((c) => c.conv)).toEqual(["chatgpt-g1", "chatgpt-g2"]);
    expect(bad(records)).toEqual([
      { line: lines[1] as number, reason: expect.stringContaining("mapping") },
      { line: lines[2] as number, reason: expect.stringContaining("mapping.a.message.author") },
      { line: lines[3] as number, reason: expect.stringContaining("circle") },
    ]);
    expect(JSON.stringify(records)).not.toContain("this must not be imported");
  });

  test("an element that is not JSON is skipped and the next one read; a file cut short says so", async () => {
    const a = chatgptConversation(
      "a",
      "a",
      1,
      [
        { id: "r", parent: null },
        { id: "u", parent: "r", role: "user", text: ["a"] },
      ],
      "u",
    );
    const b = chatgptConversation(
      "b",
      "b",
      1,
      [
        { id: "r", parent: null },
        { id: "u", parent: "r", role: "user", text: ["b"] },
      ],
      "u",
    );
    const text = `[\n${JSON.stringify(a)},\n{"id": oops, "mapping": {}},\n${JSON.stringify(b)},\n${JSON.stringify(b).slice(0, 40)}`;
    const { records } = await readText(text);
    expect(conversations(records).map((c) => c.conv)).toEqual(["chatgpt-a", "chatgpt-b"]);
    expect(bad(records)).toEqual([
      { line: 3, reason: expect.stringContaining("not JSON") },
      { line: 5, reason: expect.stringContaining("does not end") },
    ]);
  });

  test("read in pieces of a few bytes, the same records come out", async () => {
    const text = `\uFEFF${pretty([branchingChatgpt(), { id: "x", mapping: 3 }, branchingChatgpt()])}`;
    const whole = await readText(text);
    const pieces = await readInPieces(text);
    expect(pieces).toEqual(whole);
    expect(whole.records.map((r) => r.kind)).toEqual(["conversation", "bad", "conversation"]);
  });
});

describe("Claude export", () => {
  test("content blocks' text, else the text field; other blocks and empty messages counted", async () => {
    const { format, records } = await readText(pretty([claudeConversation()]));
    expect(format).toBe("claude");
    const r = records[0] as Extract<ImportRecord, { kind: "conversation" }>;
    expect(r.conversation).toEqual({
      conv: "claude-c-uuid-1",
      title: "Sourdough starter",
      messages: [
        {
          role: "user",
          text: "My starter smells like acetone, is it dead?",
          ref: "m1",
          time: Date.parse("2024-05-01T08:00:05.000Z"),
        },
        {
          role: "assistant",
          text: "No, it is hungry.\n\nFeed it twice a day.",
          ref: "m2",
          time: Date.parse("2024-05-01T08:00:09.000Z"),
        },
        { role: "user", text: "Thanks, naming it Bubbles.", ref: "m3", time: Date.parse("2024-05-01T08:01:00.000Z") },
      ],
    });
    expect(r.left).toEqual({ "non-text parts": 2, empty: 1 });
  });

  test("the person's words wherever the export put them, attachments' text after them; a title from the first words", async () => {
    const human = (uuid: string, extra: Record<string, unknown>) => ({
      uuid,
      sender: "human",
      created_at: "2024-05-02T08:00:00.000Z",
      text: "",
      ...extra,
    });
    const c = {
      uuid: "c-uuid-words",
      name: "  ",
      created_at: "2024-05-02T08:00:00.000Z",
      chat_messages: [
        // A paste: no words of its own, the pasted text an attachment without a name.
        human("p", {
          content: [{ type: "text", text: "" }],
          attachments: [
            { file_name: "", file_type: "txt", file_size: 40, extracted_content: "Favourite book: Piranesi." },
          ],
        }),
        // Words in `text`; the blocks only a picture.
        human("t", {
          text: "And this is my cat.",
          content: [{ type: "image", file_uuid: "f" }],
          files: [{ file_name: "cat.jpg" }],
        }),
        // Words and an attached document; an attachment nothing was read from is counted.
        human("d", {
          content: [{ type: "text", text: "Summarise my notes." }],
          attachments: [
            { file_name: "notes.md", extracted_content: "Dentist on the 4th." },
            { file_name: "scan.pdf", extracted_content: "" },
          ],
        }),
        // More text than a message may hold: cut, not a bad conversation.
        human("big", { attachments: [{ file_name: "book.txt", extracted_content: "word ".repeat(250_000) }] }),
      ],
    };
    const { records } = await readText(pretty([c]));
    const r = records[0] as Extract<ImportRecord, { kind: "conversation" }>;
    expect(r.kind).toBe("conversation");
    const texts = r.conversation.messages.map((m) => [
      m.role,
      m.text.length > 100 ? `${m.text.slice(0, 45)}…` : m.text,
    ]);
    expect(texts).toEqual([
      ["user", "[attached document]\nits text:\nFavourite book: Piranesi."],
      ["user", "And this is my cat."],
      ["user", 'Summarise my notes.\n\n[attached document "notes.md"]\nits text:\nDentist on the 4th.'],
      ["user", '[attached document "book.txt"]\nits text:\nword…'],
    ]);
    expect(r.conversation.messages[3]?.text.length).toBe(MAX_IMPORTED_TEXT_CHARS);
    expect(r.left).toEqual({ "non-text parts": 3 }); // the picture block, cat.jpg, scan.pdf
    // No name: titled by what the person said first (not by the header of the paste).
    expect(r.conversation.title).toBe("Favourite book: Piranesi.");
  });

  test("without a title and without the person's words, the assistant's first words are the title", async () => {
    const c = claudeConversation();
    c.name = "";
    const onlyReplies = {
      ...c,
      chat_messages: (c.chat_messages as { sender: string }[]).filter((m) => m.sender === "assistant"),
    };
    const [named, unnamed] = conversations((await readText(pretty([{ ...c, name: null }, onlyReplies]))).records);
    expect(named?.title).toBe("My starter smells like acetone, is it dead?");
    expect(unnamed?.title).toBe("No, it is hungry. Feed it twice a day.");
    const g = branchingChatgpt();
    g.title = null;
    const [untitled] = conversations((await readText(pretty([g]))).records);
    expect(untitled?.title).toBe("Where should I kayak in June, near Oslo?");
  });

  test("a message with a time that is no time makes its conversation bad", async () => {
    const c = claudeConversation();
    (c.chat_messages as { created_at: string }[])[2]!.created_at = "yesterday-ish";
    const { records } = await readText(pretty([c]));
    expect(bad(records)).toEqual([{ line: 2, reason: expect.stringContaining("chat_messages.2.created_at") }]);
  });
});

describe("JSON lines", () => {
  const lines = [
    { conv: "trip", role: "user", text: "We leave for Lisbon on the 3rd.", time: "2024-06-01T10:00:00Z", id: "t1" },
    { conv: "trip", role: "assistant", text: "Noted: Lisbon on the 3rd.", time: 1717236060 },
    { conv: "book-club", speaker: "Maria", text: "Next month we read Pessoa.", time: 1717236120000, session: 4 },
    { conv: "book-club", speaker: "assistant", text: "I will remind you." },
  ];

  test("roles, speakers, times in three forms, sessions; refs from the id or a stable hash of the line", async () => {
    const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n\n`;
    const first = await readText(text);
    expect(first.format).toBe("jsonl");
    const msgs = conversations(first.records).map((c) => ({ conv: c.conv, ...c.messages[0] }));
    expect(msgs).toEqual([
      { conv: "trip", role: "user", text: lines[0]!.text, time: Date.parse("2024-06-01T10:00:00Z"), ref: "t1" },
      {
        conv: "trip",
        role: "assistant",
        text: lines[1]!.text,
        time: 1717236060_000,
        ref: expect.stringMatching(/^line:[0-9a-f]{32}$/),
      },
      {
        conv: "book-club",
        role: "user",
        speaker: "Maria",
        text: lines[2]!.text,
        time: 1717236120000,
        session: 4,
        ref: expect.stringMatching(/^line:/),
      },
      { conv: "book-club", role: "assistant", text: lines[3]!.text, ref: expect.stringMatching(/^line:/) },
    ]);
    // The same file read again gives the same refs: importing it twice adds nothing.
    expect(conversations((await readText(text)).records)).toEqual(conversations(first.records));
  });

  test("bad lines are named by their number and skipped; the others are read", async () => {
    const text = [
      JSON.stringify(lines[0]),
      "{not json",
      JSON.stringify({ conv: "trip", text: "who said it?" }),
      JSON.stringify({ conv: "trip", role: "robot", text: "beep" }),
      "",
      JSON.stringify({ conv: "trip", role: "user", text: "when?", time: "someday" }),
      JSON.stringify({ conv: "plugin:notes", role: "user", text: "into a plugin's records" }),
      JSON.stringify({ conv: "trip", role: "user", text: "   " }),
      JSON.stringify(lines[1]),
    ].join("\n");
    const { records } = await readText(text);
    expect(bad(records)).toEqual([
      { line: 2, reason: expect.stringContaining("not JSON") },
      { line: 3, reason: "role or speaker: missing" },
      { line: 4, reason: 'role: must be "user", "assistant" or "tool"' },
      { line: 6, reason: 'time: not a time: "someday"' },
      { line: 7, reason: expect.stringContaining('may not start with "plugin:"') },
    ]);
    const read = records.filter((r) => r.kind === "conversation");
    expect(read.map((r) => r.line)).toEqual([1, 8, 9]);
    expect(read.map((r) => (r.kind === "conversation" ? r.conversation.messages.length : -1))).toEqual([1, 0, 1]);
  });

  test("a tool line is the assistant's call and what it returned; attached documents' text follows a message's words", async () => {
    const text = [
      {
        conv: "trip",
        role: "user",
        text: "Check the ferry times.",
        id: "u1",
        attachments: [{ name: "plan.txt", text: "Day 1: Lisbon." }],
      },
      {
        conv: "trip",
        role: "tool",
        name: "fetch_url",
        arguments: { url: "https://ferry.example" },
        text: "08:10, 09:40",
        id: "t1",
        untrusted: true,
      },
      {
        conv: "trip",
        role: "tool",
        name: "notes_add",
        arguments: '{"text":"ferry"}',
        status: "error",
        text: "",
        id: "t2",
      },
      { conv: "trip", role: "assistant", text: "The first ferry is at 08:10.", id: "a1" },
      { conv: "trip", role: "user", text: "", id: "u2", attachments: [{ text: "only a document" }] },
      { conv: "trip", role: "tool", text: "no name", id: "t3" },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    const { records } = await readText(text);
    expect(bad(records)).toEqual([{ line: 6, reason: 'name: a line of role "tool" names its tool' }]);
    expect(conversations(records).flatMap((c) => c.messages)).toEqual([
      {
        role: "user",
        text: 'Check the ferry times.\n\n[attached document "plan.txt"]\nits text:\nDay 1: Lisbon.',
        ref: "u1",
      },
      {
        role: "tool",
        tool: { name: "fetch_url", arguments: '{"url":"https://ferry.example"}' },
        text: "08:10, 09:40",
        ref: "t1",
        mark: "imported, from an untrusted source (line 2)",
      },
      // A call that returned nothing is kept: it was made.
      {
        role: "tool",
        tool: { name: "notes_add", arguments: '{"text":"ferry"}', status: "error" },
        text: "",
        ref: "t2",
      },
      { role: "assistant", text: "The first ferry is at 08:10.", ref: "a1" },
      { role: "user", text: "[attached document]\nits text:\nonly a document", ref: "u2" },
    ]);
  });
});

describe("format", () => {
  test("told by the content, or forced; an unknown shape is refused with a way out", async () => {
    expect((await readText(pretty([claudeConversation(), branchingChatgpt()]))).format).toBe("claude");
    expect((await readText("")).format).toBeNull();
    expect((await readText("[]")).records).toEqual([]);
    // A bad first element does not decide: the next readable one does.
    const mixed = await readText(`[\n{"broken": },\n${JSON.stringify(branchingChatgpt())}\n]`);
    expect(mixed.format).toBe("chatgpt");
    expect(mixed.records.map((r) => r.kind)).toEqual(["bad", "conversation"]);
    // Forced: a Claude conversation read as ChatGPT's is a bad record, not a guess.
    const forced = await readText(pretty([claudeConversation()]), "chatgpt");
    expect(forced.format).toBe("chatgpt");
    expect(bad(forced.records)).toEqual([{ line: 2, reason: expect.stringContaining("mapping") }]);

    for (const text of ['[{"hello": 1}]', "hello", "42"]) {
      const err = await readText(text).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HomedError);
      expect((err as HomedError).code).toBe("invalid_params");
    }
    const notArray = await readText('{"conv": "x", "role": "user", "text": "hi"}', "claude").catch((e: unknown) => e);
    expect((notArray as HomedError).message).toContain("not a JSON array");
  });
});

describe("homed's own export", () => {
  const conversation = { id: "page", title: "A page" };
  const expected = [
    { role: "user" as const, text: "what does my page say?", time: 1_000, ref: "homed:1" },
    { role: "assistant" as const, text: "It says hello.", time: 4_000, ref: "homed:4" },
  ];

  test("the transcript's events (today's export) read as the person's messages and the replies; tools left out", async () => {
    const events = [
      {
        id: 1,
        ts: 1_000,
        untrusted: false,
        event: { type: "turn-start", turn: "t", conv: "page", text: "what does my page say?" },
      },
      {
        id: 2,
        ts: 2_000,
        untrusted: false,
        event: { type: "tool-call", callId: "c", name: "fetch_url", arguments: "{}" },
      },
      {
        id: 3,
        ts: 3_000,
        untrusted: true,
        event: { type: "tool-result", callId: "c", name: "fetch_url", status: "ok", content: "hello" },
      },
      {
        id: 5,
        ts: 3_500,
        untrusted: false,
        event: { type: "context", messages: 0, recalled: false, across: false, tokens: 9, window: 9 },
      },
      {
        id: 4,
        ts: 4_000,
        untrusted: false,
        event: { type: "done", result: { text: "It says hello.", stopReason: "done" } },
      },
    ];
    const { format, records } = await readText(JSON.stringify({ conversation, exportedAt: 5_000, events }));
    expect(format).toBe("homed");
    const r = records[0] as Extract<ImportRecord, { kind: "conversation" }>;
    expect(r.conversation.messages).toEqual(expected);
    expect(r.left).toEqual({ tool: 2 });
  });

  test("an export from before (the transcript's lines) reads the same", async () => {
    const messages = [
      { id: 1, ts: 1_000, kind: "user", text: "what does my page say?", untrusted: false },
      { id: 2, ts: 2_000, kind: "tool-call", text: "{}", untrusted: false },
      { id: 3, ts: 3_000, kind: "tool-result", text: "hello", untrusted: true },
      { id: 4, ts: 4_000, kind: "assistant", text: "It says hello.", untrusted: false },
    ];
    const { records } = await readText(JSON.stringify({ conversation, exportedAt: 5_000, messages }));
    const r = records[0] as Extract<ImportRecord, { kind: "conversation" }>;
    expect(r.conversation.messages).toEqual(expected);
    expect(r.left).toEqual({ tool: 2 });
  });
});
