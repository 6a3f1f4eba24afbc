/**
 * A long attachment chunked for memory, through the compiled daemon and the real media plugin
 * (pdftotext): a 30-page PDF whose page 27 — far beyond the 20,000 characters memory indexes of
 * the user message — holds a unique fact. The fact is found by memory_search and by the web
 * memory search, labelled with the file and its page; the model brings the page back by id; the
 * short attachment beside it makes no chunks; no chunk is ever a message of the prompt.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { makePdf } from "../harness/media-fixtures.ts";
import { MAX_INDEXED_TEXT_CHARS } from "../../src/protocol/event-bodies.ts";

const TOKEN = "tok-attach-chunks-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const FACT = "The spare key is under the quokkabrine planter";

/** 30 pages of 36 lines (a chunk each); page 27 says FACT in its middle. */
function report(): Uint8Array {
  return makePdf(
    Array.from({ length: 30 }, (_, i) =>
      Array.from({ length: 36 }, (_, l) =>
        i === 26 && l === 15 ? FACT : `Page ${i + 1} line ${l + 1}: quarterly figures were steady and on plan.`,
      ),
    ),
  );
}

type Msg = { role: string; content: unknown };
const text = (m: Msg) =>
  typeof m.content === "string"
    ? m.content
    : ((m.content ?? []) as { text?: string }[]).map((p) => p.text ?? "").join("");

describe("long attachments chunked for memory", () => {
  test("page 27 of a 30-page PDF is found with its page; chunks never reach the prompt", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { env: { HOMED_WEB_TOKEN: TOKEN } });
    const web = await webUrlOf(rig.daemon);
    const up = async (b: Uint8Array, name: string) =>
      (await (await fetch(`${web}api/uploads?name=${name}`, { method: "POST", headers: auth, body: b })).json()) as {
        sha256: string;
      };
    const pdf = await up(report(), "report.pdf");
    const note = await up(new TextEncoder().encode("# Note\n\nBring the umbrella.\n"), "note.md");
    const chat = async (t: string, attachments: { sha256: string; name: string }[] = []) =>
      (
        await fetch(`${web}api/chat`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ conv: "doc-1", text: t, attachments }),
        })
      ).text();

    rig.llm.script([{ text: "Read the report." }]);
    expect(
      await chat("here is the report", [
        { sha256: pdf.sha256, name: "report.pdf" },
        { sha256: note.sha256, name: "note.md" },
      ]),
    ).toContain("Read the report.");
    const sent = (i: number) => (rig.llm.requests.at(i)?.body.messages ?? []) as Msg[];
    const first = sent(0);
    // One user message carries the words and both attachments; the fact lies past what memory
    // indexes of it.
    expect(first.filter((m) => m.role === "user")).toHaveLength(1);
    const said = text(first.at(-1) as Msg);
    expect(said).toContain('[attached document "report.pdf" (application/pdf');
    expect(said.indexOf("quokkabrine")).toBeGreaterThan(MAX_INDEXED_TEXT_CHARS);

    // The model peeks (the snippet shows the page around the words), then brings page 27 back by its id.
    rig.llm.script([
      { toolCalls: [{ name: "memory_search", arguments: { query: "quokkabrine planter" } }] },
      { text: "Looking." },
    ]);
    await chat("where is the spare key?");
    const peek = text(sent(-1).find((m) => m.role === "tool") as Msg);
    const hit =
      /- id (\d+) [^\n]* · attachment report\.pdf · page 27: \[report\.pdf · page 27\] Page 27[^\n]*… [^\n]*the quokkabrine planter/.exec(
        peek,
      );
    if (!hit) throw new Error(`no page 27 in the peek:\n${peek}`);
    rig.llm.script([
      { toolCalls: [{ name: "memory_search", arguments: { ids: [Number(hit?.[1])] } }] },
      { text: "Under the planter." },
    ]);
    expect(await chat("bring that page back")).toContain("Under the planter.");
    const last = sent(-1);
    const brought = text(last.filter((m) => m.role === "tool").at(-1) as Msg);
    expect(brought).toContain("attachment report.pdf · page 27:");
    expect(brought).toContain(FACT);
    // The history the model read holds the three turns' words only: no chunk as a message.
    expect(last.filter((m) => m.role === "user").map((m) => text(m).split("\n")[0])).toEqual([
      "here is the report",
      "where is the spare key?",
      "bring that page back",
    ]);
    for (const m of last) expect(text(m).startsWith("[report.pdf · page")).toBe(false);

    // The web UI's memory search finds the page too.
    const hits = (await (await fetch(`${web}api/memory/search?q=quokkabrine`, { headers: auth })).json()) as {
      role: string;
      text: string;
    }[];
    expect(hits[0]?.role).toBe("attachment report.pdf · page 27");
    expect(hits[0]?.text).toMatch(
      /^\[report\.pdf · page 27\]\nPage 27 line 1[\s\S]*… [\s\S]*The spare key is under the quokkabrine planter/,
    );

    await rig.daemon.stop();
    const db = new Database(join(rig.data, "homed.db"), { readonly: true });
    const rows = db
      .query<{ kind: string; body: string }, []>("SELECT kind, body FROM events WHERE conv = 'doc-1' ORDER BY id")
      .all();
    db.close();
    // Right after the user message, in its turn: one chunk a page of the PDF, none for the note.
    expect(rows[0]?.kind).toBe("user-message");
    const turn = (JSON.parse(rows[0]?.body ?? "{}") as { turn: string }).turn;
    const chunks = rows
      .slice(1, 31)
      .map((r) => ({ kind: r.kind, ...(JSON.parse(r.body) as { turn?: string; sha256?: string; anchor?: string }) }));
    expect(chunks.every((c) => c.kind === "attachment-chunk" && c.turn === turn && c.sha256 === pdf.sha256)).toBe(true);
    expect(chunks.map((c) => c.anchor)).toEqual(Array.from({ length: 30 }, (_, i) => `page ${i + 1}`));
    expect(rows[31]?.kind).not.toBe("attachment-chunk");
    expect(rows.filter((r) => r.kind === "attachment-chunk")).toHaveLength(30);
  }, 120_000);
});
