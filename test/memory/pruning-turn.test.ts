/**
 * The original's failure, replayed through the real daemon: a 50k window with 10k kept for the
 * reply (budget 40000), 5800-token messages and replies, 20 turns in a row. Every turn must
 * succeed, every context sent to the model must fit, pruning must free space each time (cold
 * memory grows, nothing is lost), and the early turn that matters must still be recalled for the
 * question about it. With a 1M window nothing is pruned.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { estimateTokens } from "../../src/memory/tokens.ts";

const TOPICS = [
  "astronomy telescope nebula orbit comet",
  "baking sourdough flour oven crust",
  "sailing harbour mast wind knots",
  "chess opening gambit endgame rook",
  "gardening compost tomato seedling mulch",
  "cycling gears saddle climb descent",
  "jazz saxophone chord improvisation swing",
];

/** About `tokens` tokens of text on one topic (four characters a token). */
function filler(topic: string, tokens: number, salt: number): string {
  const words = topic.split(" ");
  let s = "";
  for (let i = 0; s.length < tokens * 4 - 8; i++)
    s += `${words[(i * 7 + salt) % words.length]}${i % 11 === 0 ? "." : ""} `;
  return s.slice(0, tokens * 4);
}

const quiet = { warn: () => {}, debug: () => {} };

async function peek(socket: string, conv: string, text: string) {
  const c = await connectUnixRpc(socket, quiet);
  try {
    return (await c.peer.request("memory.peek", { conv, text, k: 3 })) as {
      l1: number;
      l2: number;
      candidates: { id: number; score: number; preview: string }[];
    };
  } finally {
    c.close();
  }
}

describe("pruning under a tight budget", () => {
  test("50k window, 40000 budget, 5800-token events, 20 turns: fits every time, frees space, recalls the early fact", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), "[llm]\ncontext_window = 50000\nmax_output_tokens = 10000\n");
    await using rig = await startAgentRig(dir.path, { plugin: false });
    // startAgentRig sets the provider at run time without a window: set it again with one.
    const c = await connectUnixRpc(rig.daemon.socket, quiet);
    await c.peer.request("llm.set", {
      provider: "openai",
      baseURL: rig.llm.url,
      model: "test-model",
      contextWindow: 50000,
      maxOutputTokens: 10000,
    });
    c.close();
    // The reply keeps an eighth of the window (src/agent/turn.ts outputReserve).
    const budget = 50000 - 50000 / 8;
    let lastL2 = -1;
    let moved = 0;
    for (let turn = 1; turn <= 20; turn++) {
      const fact = turn === 1 ? "Remember this: my gym locker code is 4471, locker number 88. " : "";
      const input = fact + filler(TOPICS[turn % TOPICS.length] as string, 5800 - estimateTokens(fact), turn);
      rig.llm.script([{ text: filler(TOPICS[(turn + 3) % TOPICS.length] as string, 5800, turn + 100) }]);
      const r = await rig.chat(input, { conv: "tight" });
      expect(r.exitCode).toBe(0);
      const sent = (rig.llm.requests.at(-1)!.body as { messages: { content: string }[] }).messages;
      const tokens = sent.reduce((n, m) => n + estimateTokens(m.content), 0);
      expect(tokens).toBeLessThanOrEqual(budget);
      const mem = await peek(rig.daemon.socket, "tight", "x");
      expect(mem.l2).toBeGreaterThanOrEqual(lastL2); // what went cold stays cold until it is relevant
      if (mem.l2 > lastL2 && lastL2 >= 0) moved++;
      lastL2 = mem.l2;
    }
    // Planned again only when the history outgrew its budget, to 60 % of it: six times in 20
    // turns of ~11,600 tokens (a quarter of the budget each), where it was every turn from the
    // fourth on while each turn re-chose the context.
    expect(moved).toBeGreaterThanOrEqual(2);
    expect(moved).toBeLessThanOrEqual(8);
    // Nothing was lost: the early fact is in cold memory, and recall ranks it first.
    const found = await peek(rig.daemon.socket, "tight", "what is my gym locker code?");
    expect(found.candidates[0]?.preview).toContain("locker code is 4471");
    // And asked about it, the model is shown it: quoted after the history when the plan stands
    // (cut to the note's room), the whole turn when the question comes as the plan is made again.
    rig.llm.script([{ text: "It is 4471." }]);
    expect((await rig.chat("what is my gym locker code?", { conv: "tight" })).exitCode).toBe(0);
    const asked = (rig.llm.requests.at(-1)!.body as { messages: { role: string; content: string }[] }).messages;
    const recalled = asked.find((m) => m.content.includes("Remember this: my gym locker code"));
    expect(recalled?.content).toContain("my gym locker code is 4471");
    expect(asked.reduce((n, m) => n + estimateTokens(m.content), 0)).toBeLessThanOrEqual(budget);
  }, 120_000);

  test("with a 1M window the history is never pruned", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const c = await connectUnixRpc(rig.daemon.socket, quiet);
    await c.peer.request("llm.set", {
      provider: "openai",
      baseURL: rig.llm.url,
      model: "test-model",
      contextWindow: 1_000_000,
    });
    c.close();
    for (let turn = 1; turn <= 6; turn++) {
      rig.llm.script([{ text: filler(TOPICS[turn % TOPICS.length] as string, 5800, turn) }]);
      expect(
        (await rig.chat(filler(TOPICS[(turn + 2) % TOPICS.length] as string, 5800, turn), { conv: "wide" })).exitCode,
      ).toBe(0);
    }
    const mem = await peek(rig.daemon.socket, "wide", "x");
    expect(mem.l2).toBe(0);
    expect((rig.llm.requests.at(-1)!.body as { messages: unknown[] }).messages.length).toBe(1 + 5 * 2 + 1);
  }, 60_000);
});
