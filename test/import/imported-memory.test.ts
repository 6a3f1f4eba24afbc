/**
 * What a person's imported past chats become in a running daemon (the compiled binary, `homed
 * import`, the web API, the fake model over real HTTP): a Claude export's human turns arrive as
 * the person's, with their words wherever the export put them (`text`, `content` blocks, a
 * pasted or attached file's `extracted_content`), so a later question recalls the person's own
 * turn; every imported conversation is listed by its title, never by its id; and chats from 2024
 * are cold by their original times, so "Distill now" distills them while the log keeps every
 * word with its original time.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { type AgentRig, startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { chatgptConversation, pretty } from "./fixtures.ts";
import { transcriptAt } from "../harness/transcript.ts";

type Listed = { id: string; title: string; channel: string };
type Summary = { added: number; already: number; leftOut: Record<string, number>; bad: number };

const at = (iso: string) => Date.parse(iso);

/**
 * A Claude export as claude.ai writes one: the person's words in `content` with `text` empty, in
 * `text` beside content blocks that hold no words, and — a long paste — only in an attachment's
 * `extracted_content`, the message's own text empty. One conversation has no name; one was
 * renamed from claude.ai.
 */
function claudeBooks(): unknown[] {
  const msg = (
    uuid: string,
    sender: string,
    time: string,
    text: string,
    content: unknown[] | undefined,
    extra: Record<string, unknown> = {},
  ) => ({
    uuid,
    text,
    ...(content ? { content } : {}),
    sender,
    created_at: time,
    updated_at: time,
    attachments: [],
    files: [],
    ...extra,
  });
  return [
    {
      uuid: "0b1d7c1e-reading",
      name: "",
      summary: "",
      created_at: "2024-03-01T10:00:00.000Z",
      updated_at: "2024-03-01T10:06:00.000Z",
      account: { uuid: "acct" },
      chat_messages: [
        msg("h1", "human", "2024-03-01T10:00:00.000Z", "", [{ type: "text", text: "" }], {
          attachments: [
            {
              file_name: "",
              file_size: 160,
              file_type: "txt",
              extracted_content:
                "My reading list, ranked. The book I love the most is Piranesi by Susanna Clarke; second comes Middlemarch.",
            },
          ],
        }),
        msg("a1", "assistant", "2024-03-01T10:00:09.000Z", "", [
          { type: "text", text: "What a list! That novel at the top is a quiet, strange book, and a loved one." },
        ]),
        msg("h2", "human", "2024-03-01T10:05:00.000Z", "I reread it every winter on my Kobo.", [
          { type: "image", file_uuid: "img-1" },
        ]),
        msg("a2", "assistant", "2024-03-01T10:05:07.000Z", "A winter ritual, then.", [
          { type: "text", text: "A winter ritual, then." },
        ]),
      ],
    },
    {
      uuid: "5e2a9f00-garden",
      name: "Tomato beds",
      created_at: "2024-04-02T08:00:00.000Z",
      updated_at: "2024-04-02T08:01:00.000Z",
      chat_messages: [
        msg("h3", "human", "2024-04-02T08:00:00.000Z", "", [
          { type: "text", text: "My tomato beds run along the south fence of the allotment." },
        ]),
        msg("a3", "assistant", "2024-04-02T08:00:05.000Z", "Good sun there.", undefined),
      ],
    },
    {
      // Only a photo from the person (no words, nothing extracted): the assistant's reply is all there is.
      uuid: "77aa0c3d-heron",
      name: "",
      created_at: "2024-05-05T07:00:00.000Z",
      updated_at: "2024-05-05T07:00:30.000Z",
      chat_messages: [
        msg("h4", "human", "2024-05-05T07:00:00.000Z", "", [], {
          files: [{ file_name: "IMG_2291.jpg" }],
        }),
        msg("a4", "assistant", "2024-05-05T07:00:20.000Z", "That is a grey heron standing in the reeds.", undefined),
      ],
    },
  ];
}

/** A ChatGPT export: one titled conversation, one whose title is null and whose person sent only a picture. */
function chatgptTitles(): unknown[] {
  const t = at("2024-02-10T12:00:00Z") / 1000;
  return [
    chatgptConversation(
      "cg-bike",
      "Bike repair",
      t,
      [
        { id: "r", parent: null },
        { id: "u", parent: "r", role: "user", text: ["My bike's rear derailleur skips on the 3rd gear."], time: t + 5 },
        { id: "a", parent: "u", role: "assistant", text: ["Check the cable tension first."], time: t + 9 },
      ],
      "a",
    ),
    {
      ...chatgptConversation(
        "cg-untitled",
        "",
        t + 100,
        [
          { id: "r", parent: null },
          {
            id: "u",
            parent: "r",
            role: "user",
            contentType: "multimodal_text",
            text: [{ content_type: "image_asset_pointer", asset_pointer: "file-service://y" }],
            time: t + 101,
          },
          { id: "a", parent: "u", role: "assistant", text: ["A kingfisher on a branch."], time: t + 110 },
        ],
        "a",
      ),
      title: null,
    },
    // The assistant spoke first, and twice in a row later: each reply is a turn's one reply.
    chatgptConversation(
      "cg-notes",
      "Reading notes",
      t + 200,
      [
        { id: "r", parent: null },
        { id: "a0", parent: "r", role: "assistant", text: ["Welcome back to your reading notes."], time: t + 201 },
        { id: "u", parent: "a0", role: "user", text: ["Note: finished Middlemarch in February."], time: t + 202 },
        { id: "a1", parent: "u", role: "assistant", text: ["Noted."], time: t + 203 },
        { id: "a2", parent: "a1", role: "assistant", text: ["Shall I add it to the list?"], time: t + 204 },
      ],
      "a2",
    ),
  ];
}

async function importFile(data: string, file: string): Promise<Summary> {
  const r = await run([HOMED, "import", file, "-data", data, "-json"]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout) as Summary;
}

const quiet = { warn: () => {}, debug: () => {} };

/** The messages of the model's last request. */
const lastAsked = (rig: AgentRig) =>
  ((rig.llm.requests.at(-1)?.body ?? { messages: [] }) as { messages: { role: string; content: string | null }[] })
    .messages;

describe("imported chats in the daemon", () => {
  test("a Claude export's human turns are the person's, with their full text, and recalled as theirs", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const file = join(dir.path, "conversations.json");
    writeFileSync(file, pretty(claudeBooks()));
    const summary = await importFile(dir.path, file);
    // Only the photo-only message has no words; the others are all there.
    expect(summary).toMatchObject({ added: 7, bad: 0, leftOut: { empty: 1 } });

    const web = await webUrlOf(rig.daemon);
    const items = await transcriptAt(web, "claude-0b1d7c1e-reading");
    expect(items.map((i) => [i.type, i.ts])).toEqual([
      ["turn-start", at("2024-03-01T10:00:00.000Z")],
      ["done", at("2024-03-01T10:00:09.000Z")],
      ["turn-start", at("2024-03-01T10:05:00.000Z")],
      ["done", at("2024-03-01T10:05:07.000Z")],
    ]);
    expect(items[0]?.text).toContain("The book I love the most is Piranesi by Susanna Clarke");
    expect(items[2]?.text).toBe("I reread it every winter on my Kobo.");

    rig.llm.script([{ text: "Piranesi." }]);
    const r = await rig.chat("Which book do I love the most?", { conv: "later" });
    expect(r.exitCode).toBe(0);
    const note = lastAsked(rig).find(
      (m) => m.role === "system" && (m.content ?? "").startsWith("From your other conversations"),
    );
    // The person's own turn, as the person's: not only the assistant's answer to it.
    expect(note?.content ?? "").toMatch(
      /^- \[2024-03-01 10:00 UTC · [^\]]*\] user: \[attached document\]\nits text:\nMy reading list, ranked\. The book I love the most is Piranesi/m,
    );

    // Continued, an imported chat's turns come back into its context as the person's and the assistant's.
    rig.llm.script([{ text: "Basil." }]);
    expect((await rig.chat("What should I plant beside them?", { conv: "claude-5e2a9f00-garden" })).exitCode).toBe(0);
    const history = lastAsked(rig).filter((m) => m.role !== "system");
    expect(history.map((m) => [m.role, m.content])).toEqual([
      ["user", "My tomato beds run along the south fence of the allotment."],
      ["assistant", "Good sun there."],
      ["user", "What should I plant beside them?"],
    ]);
  }, 60_000);

  test("JSON lines' tool calls are logged as a turn logs them, a page's text marked; an attached document's text is the person's", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const file = join(dir.path, "history.jsonl");
    const lines = [
      {
        conv: "trip",
        role: "user",
        text: "When does the ferry leave?",
        time: "2024-06-01T10:00:00Z",
        id: "u1",
        attachments: [{ name: "plan.txt", text: "Day one: the Seixal boatyard at noon." }],
      },
      {
        conv: "trip",
        role: "tool",
        name: "fetch_url",
        arguments: { url: "https://ferry.example/times" },
        text: "Ferries to Cacilhas leave every twenty minutes.",
        time: "2024-06-01T10:00:02Z",
        id: "t1",
        untrusted: true,
      },
      {
        conv: "trip",
        role: "tool",
        name: "notes_search",
        arguments: { query: "ferry" },
        text: "- Tagus crossing: bring the bikes.",
        time: "2024-06-01T10:00:03Z",
        id: "t2",
      },
      { conv: "trip", role: "assistant", text: "Every twenty minutes.", time: "2024-06-01T10:00:05Z", id: "a1" },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n"));
    expect(await importFile(dir.path, file)).toMatchObject({ added: 4, bad: 0 });

    const web = await webUrlOf(rig.daemon);
    const items = await transcriptAt(web, "trip");
    expect(items.map((i) => [i.type, i.ts, i.untrusted])).toEqual([
      ["turn-start", at("2024-06-01T10:00:00Z"), false],
      ["tool-call", at("2024-06-01T10:00:02Z"), false],
      ["tool-result", at("2024-06-01T10:00:02Z"), true],
      ["tool-call", at("2024-06-01T10:00:03Z"), false],
      ["tool-result", at("2024-06-01T10:00:03Z"), false],
      ["done", at("2024-06-01T10:00:05Z"), false],
    ]);
    expect(items[0]?.text).toContain("Day one: the Seixal boatyard at noon.");
    expect(items[1]?.text).toBe('{"url":"https://ferry.example/times"}');
    expect(items[2]?.text).toBe("Ferries to Cacilhas leave every twenty minutes.");

    // A tool's result is memory, as a live one is: found by its own words — and a fetched page's,
    // marked, only where untrusted text may be recalled (not the memory page's trusted scope).
    const search = async (q: string) =>
      (await (await fetch(`${web}/api/memory/search?q=${encodeURIComponent(q)}`)).json()) as {
        role: string;
        untrusted: boolean;
      }[];
    expect((await search("Tagus crossing")).find((h) => h.role.startsWith("tool"))).toEqual(
      expect.objectContaining({ role: "tool notes_search", untrusted: false }),
    );
    expect((await search("Cacilhas")).filter((h) => h.role.startsWith("tool"))).toEqual([]);

    // Continued, the turn comes back as the person's message and the reply: no tool message
    // without the call that asked for it (every provider refuses one).
    rig.llm.script([{ text: "At noon." }]);
    expect((await rig.chat("When do we meet at the boatyard?", { conv: "trip" })).exitCode).toBe(0);
    const history = lastAsked(rig).filter((m) => m.role !== "system");
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(history[0]?.content).toContain("Seixal boatyard");
  }, 60_000);

  test("imported conversations are listed by their titles, never by their ids", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const claude = join(dir.path, "claude.json");
    writeFileSync(claude, pretty(claudeBooks()));
    const chatgpt = join(dir.path, "chatgpt.json");
    writeFileSync(chatgpt, pretty(chatgptTitles()));
    await importFile(dir.path, claude);
    await importFile(dir.path, chatgpt);

    const web = await webUrlOf(rig.daemon);
    const list = (await (await fetch(`${web}/api/conversations`)).json()) as Listed[];
    const titles = Object.fromEntries(list.filter((c) => c.channel === "import").map((c) => [c.id, c.title]));
    expect(titles).toEqual({
      "claude-0b1d7c1e-reading": expect.stringMatching(/^My reading list, ranked\. The book/),
      "claude-5e2a9f00-garden": "Tomato beds",
      "claude-77aa0c3d-heron": expect.stringMatching(/^That is a grey heron/),
      "chatgpt-cg-bike": "Bike repair",
      "chatgpt-cg-untitled": "A kingfisher on a branch.",
      "chatgpt-cg-notes": "Reading notes",
    });
    // The memory page's search names an imported conversation by its title too.
    const hits = (await (await fetch(`${web}/api/memory/search?q=${encodeURIComponent("bike repair")}`)).json()) as {
      conv: string;
      title?: string;
    }[];
    const bike = hits.find((h) => h.conv === "chatgpt-cg-bike");
    expect(bike?.title).toBe("Bike repair");
    // What waiter and the control socket list: the same titles.
    const c = await connectUnixRpc(rig.daemon.socket, quiet);
    try {
      const listed = (await c.peer.request("conversations.list", {})) as Listed[];
      for (const conv of listed.filter((x) => x.channel === "import"))
        expect(conv.title).toBe(titles[conv.id] as string);
    } finally {
      c.close();
    }
  }, 60_000);

  test("chats from 2024 are cold by their original times: Distill now distills them, the log keeps them", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const file = join(dir.path, "conversations.json");
    writeFileSync(file, pretty(chatgptTitles()));
    expect((await importFile(dir.path, file)).added).toBe(7);
    const web = await webUrlOf(rig.daemon);
    const before = await transcriptAt(web, "chatgpt-cg-bike");
    const said = before.find((i) => i.type === "turn-start");
    expect(said?.text).toBe("My bike's rear derailleur skips on the 3rd gear.");

    const asked = rig.llm.requests.length;
    rig.llm.script([
      {
        text: JSON.stringify({
          facts: [{ subject: "user's bike", predicate: "skips on", object: "the 3rd gear", source: said?.id }],
        }),
      },
    ]);
    const post = (path: string) =>
      fetch(`${web}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-homed": "1" },
        body: "{}",
      });
    const runNow = await post("/api/facts/distill");
    expect(runNow.status).toBe(200);
    // Every imported exchange is a turn old enough (2024) and never used: all are distilled. The
    // turns: bike (person, reply), the untitled one (its reply), notes (greeting | person, reply | reply).
    expect(await runNow.json()).toEqual(expect.objectContaining({ turns: 5, events: 7, facts: 1, stopped: "" }));
    const input = JSON.stringify(rig.llm.requests[asked]?.body);
    expect(input).toContain("My bike's rear derailleur skips on the 3rd gear.");
    expect(input).toContain("A kingfisher on a branch.");

    const facts = (await (await fetch(`${web}/api/facts`)).json()) as {
      facts: { object: { label: string }; validFrom: number; sources: { conv: string; ts: number }[] }[];
    };
    const t = at("2024-02-10T12:00:05Z");
    expect(facts.facts.map((f) => [f.object.label, f.validFrom, f.sources.map((s) => [s.conv, s.ts])])).toEqual([
      ["the 3rd gear", t, [["chatgpt-cg-bike", t]]],
    ]);
    // The log keeps every word at its original time; a second run finds nothing left.
    expect(await transcriptAt(web, "chatgpt-cg-bike")).toEqual(before);
    expect(((await (await post("/api/facts/distill")).json()) as { turns: number }).turns).toBe(0);
  }, 60_000);
});
