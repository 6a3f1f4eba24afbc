/**
 * `homed import` into a running daemon (issue 29):
 *   import.turns_s     messages per second of the whole command — spawn to exit: reading the
 *                      file, sending it over the control socket, the daemon's appends and
 *                      indexing — for a generated ChatGPT export of 10,000 turns (200
 *                      conversations of 50 messages, a few branches left behind by edits)
 *   import.recall_ok   1 when a turn of a new conversation, asked about a fact said once in the
 *                      export, sends the model that fact in its note from other conversations
 *                      (the run fails otherwise)
 *   import.again_added messages a second import of the same file adds (0: idempotent)
 * The daemon is dist/homed on a fresh data dir with a fake model (bench/fake-model.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDaemon, HOMED } from "./bench-daemon.ts";
import { startFakeModel } from "./fake-model.ts";
import { report } from "./report.ts";
import { mulberry32 } from "../test/harness/prng.ts";

const CONVERSATIONS = 200;
const MESSAGES = 50;
/** The one fact the recall check asks for: its words appear nowhere else in the export. */
const FACT = { conv: 137, message: 18, text: "My sister named her sailboat Marigold Thunderbird last spring." };
const QUESTION = "What did my sister name her sailboat?";

const WORDS = (
  "garden weather recipe bread oven flour train ticket museum painting guitar lesson chord river " +
  "bridge camera lens budget invoice meeting project deadline email printer laptop battery coffee " +
  "tea kettle bicycle tyre helmet mountain trail jacket winter summer holiday flight hotel beach " +
  "novel chapter author library exam physics chemistry formula garden tomato pepper basil soil " +
  "compost neighbour fence paint ladder kitchen tile plumber heater window curtain sofa lamp " +
  "movie series episode actor song album concert ticket running shoes marathon knee stretch " +
  "doctor appointment vitamin sleep alarm morning evening dinner lunch salad soup noodles rice"
).split(" ");

/** A ChatGPT export as its public description has it: a tree per conversation, `current_node` its visible leaf. */
export function chatgptExport(): { json: string; turns: number } {
  const rand = mulberry32(29);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)] as string;
  const sentence = (n: number) => Array.from({ length: n }, pick).join(" ");
  const convs: unknown[] = [];
  let turns = 0;
  for (let c = 0; c < CONVERSATIONS; c++) {
    const start = 1_700_000_000 + c * 86_400;
    const mapping: Record<string, Record<string, unknown>> = {
      [`r${c}`]: { id: `r${c}`, message: null, parent: null, children: [] },
    };
    let parent = `r${c}`;
    const childrenOf = (id: string) => (mapping[id] as { children: string[] }).children;
    for (let m = 0; m < MESSAGES; m++) {
      const id = `c${c}-m${m}`;
      const role = m % 2 === 0 ? "user" : "assistant";
      const text = c === FACT.conv && m === FACT.message ? FACT.text : `${sentence(8 + Math.floor(rand() * 30))}.`;
      mapping[id] = {
        id,
        parent,
        children: [],
        message: {
          id,
          author: { role },
          create_time: start + m * 30,
          content: { content_type: "text", parts: [text] },
        },
      };
      childrenOf(parent).push(id);
      // Every tenth conversation has a reply regenerated: the old branch stays in the tree, unread.
      if (c % 10 === 0 && m === 11) {
        const old = `${id}-old`;
        mapping[old] = {
          id: old,
          parent,
          children: [],
          message: {
            id: old,
            author: { role },
            create_time: start + m * 30 - 1,
            content: { content_type: "text", parts: [sentence(12)] },
          },
        };
        childrenOf(parent).unshift(old);
      }
      parent = id;
      turns++;
    }
    convs.push({
      id: `bench-${c}`,
      title: `Chat ${c}: ${sentence(3)}`,
      create_time: start,
      mapping,
      current_node: parent,
    });
  }
  return { json: JSON.stringify(convs), turns };
}

export async function runImport(data: string, file: string): Promise<{ added: number; already: number; ms: number }> {
  const t0 = performance.now();
  const proc = Bun.spawn([HOMED, "import", "-data", data, "-json", file], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`homed import exited ${code}: ${err}`);
  const summary = JSON.parse(out) as { added: number; already: number; into: string };
  if (summary.into !== "daemon") throw new Error(`homed import did not go through the daemon: ${out}`);
  return { ...summary, ms };
}

export async function benchImport(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "homed-bench-import-"));
  const model = startFakeModel();
  const daemon = await BenchDaemon.start({ model, web: false });
  try {
    const { json, turns } = chatgptExport();
    const file = join(dir, "conversations.json");
    await Bun.write(file, json);

    const first = await runImport(daemon.data, file);
    if (first.added !== turns) throw new Error(`import added ${first.added} of ${turns} messages`);
    report("import.turns_s", turns / (first.ms / 1000), "turns/s", 0);

    const client = await daemon.connect();
    await client.peer.request("chat.send", { conv: "bench-import-ask", channel: "cli", text: QUESTION });
    const sent = model.lastBody;
    if (!sent.includes("Marigold Thunderbird"))
      throw new Error(`the new conversation's turn did not recall the imported fact; the model was sent:\n${sent}`);
    report("import.recall_ok", 1, "bool", 0);

    const again = await runImport(daemon.data, file);
    report("import.again_added", again.added, "messages", 0);
    if (again.added !== 0 || again.already !== turns)
      throw new Error(`a second import added ${again.added} (already there: ${again.already} of ${turns})`);
  } finally {
    await daemon.stop();
    model.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchImport();
