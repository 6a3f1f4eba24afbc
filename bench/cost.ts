/**
 * cost.request_bytes_plain, cost.tools_offered_plain: what a one-line "Hello, what can you do?"
 * in a fresh conversation of a fresh default install sends the provider — the request's body as
 * compact JSON, in bytes, and the tool specs it carries (src/agent/tool-offer.ts).
 *
 * cost.cached_tokens_reported: what a person is shown of the input the provider read from its
 * prompt cache. A scripted OpenAI-compatible provider reports `cached_tokens` for a turn; the
 * figure is the cached count `homed chat` prints after the reply (the same value the web UI and
 * the API show), beside the count the provider reported (cost.cached_tokens_provider).
 *
 * cost.prefix_reuse_pct: how much of each request the provider could read from its prompt cache.
 * A 30-turn conversation at a 16k-token window, turns of ~500 tokens (real person-and-assistant
 * text from the LongMemEval dev set, so memory ranks what people say), with other conversations
 * present so the note from them appears; its history outgrows the budget several times
 * (cost.replans). For each pair of consecutive requests, the longest common prefix of their
 * compact JSON `{"tools":…,"messages":…}` over the length of the earlier one; the mean.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAgentRig } from "../test/harness/agent-daemon.ts";
import { connectUnixRpc } from "../src/ipc/unix-rpc.ts";
import { loadLongMemEval } from "./recall/longmemeval.ts";
import { report } from "./report.ts";

const CACHED = 1536;

export async function benchCost(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-cost-"));
  try {
    await using rig = await startAgentRig(data, { plugin: false });
    rig.llm.script([{ text: "I can help." }]);
    await rig.chat("Hello, what can you do?", { conv: "plain" });
    const plain = rig.llm.requests[0]?.body ?? {};
    report("cost.request_bytes_plain", Buffer.byteLength(JSON.stringify(plain)), "B", 0);
    report("cost.tools_offered_plain", (plain.tools as unknown[] | undefined)?.length ?? 0, "tools", 0);

    rig.llm.script([{ text: "ok", usage: { input: 2048, output: 16, cached: CACHED } }]);
    const r = await rig.chat("hello");
    const shown = /\d+ in \((\d+) cached\)/.exec(r.stderr)?.[1];
    report("cost.cached_tokens_provider", CACHED, "tokens", 0);
    report("cost.cached_tokens_reported", shown === undefined ? 0 : Number(shown), "tokens", 0);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

/** A turn: the person says ~500 tokens, the assistant replies ~200. */
interface ScriptedTurn {
  said: string;
  reply: string;
}

/** `n` turns of real conversation: a haystack's user turns joined to ~2,000 characters, replies cut to 800. */
function realTurns(n: number, skip: number): ScriptedTurn[] {
  const out: ScriptedTurn[] = [];
  const users: string[] = [];
  const replies: string[] = [];
  for (const q of loadLongMemEval().slice(skip))
    for (const session of q.haystack_sessions)
      for (const t of session) (t.role === "user" ? users : replies).push(t.content.replace(/\s+/g, " ").trim());
  let u = 0;
  for (let i = 0; i < n; i++) {
    let said = "";
    while (said.length < 1900 && u < users.length) said += `${users[u++]} `;
    out.push({ said: said.slice(0, 2100).trim(), reply: (replies[i] ?? "ok").slice(0, 800) });
  }
  return out;
}

/** Length of the longest common prefix of two strings. */
export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export async function benchPrefixReuse(): Promise<void> {
  const r = await prefixReuse();
  report("cost.prefix_reuse_pct", r.reusePct, "%", 1);
  report("cost.prefix_breaks", r.breaks, "requests", 0);
  report("cost.prefix_turns_with_note", r.notes, "turns", 0);
  report("cost.request_bytes_turn30", r.lastBytes, "B", 0);
}

/** What the 30-turn conversation's requests shared, and the bodies themselves. */
export interface PrefixReuse {
  reusePct: number;
  breaks: number;
  notes: number;
  lastBytes: number;
  /** Each turn's request as compact JSON `{tools, messages}`. */
  bodies: string[];
}

/** The prefix-reuse run above; `prepare` fills the data dir first (bench/skills.ts adds skills). */
export async function prefixReuse(prepare?: (data: string) => void): Promise<PrefixReuse> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-prefix-"));
  try {
    prepare?.(data);
    await using rig = await startAgentRig(data, { plugin: false });
    const c = await connectUnixRpc(rig.daemon.socket, { warn: () => {}, debug: () => {} });
    await c.peer.request("llm.set", {
      provider: "openai",
      baseURL: rig.llm.url,
      model: "test-model",
      contextWindow: 16_000,
    });
    c.close();
    // Other conversations first, about the same person's life, so the note from them has matches.
    const others = realTurns(9, 3);
    for (const [i, t] of others.entries()) {
      rig.llm.script([{ text: t.reply }]);
      await rig.chat(t.said, { conv: `other-${i % 3}` });
    }
    const bodies: string[] = [];
    let notes = 0;
    for (const t of realTurns(30, 0)) {
      const from = rig.llm.requests.length;
      rig.llm.script([{ text: t.reply }]);
      const r = await rig.chat(t.said, { conv: "long" });
      if (r.exitCode !== 0) throw new Error(`homed chat failed: ${r.stderr}`);
      const said = (x: { body: unknown }) =>
        (x.body as { messages: { content: unknown }[] }).messages.some((m) => m.content === t.said);
      const req = rig.llm.requests.slice(from).find(said);
      if (!req) throw new Error("the turn's request was not seen");
      const body = req.body as { tools?: unknown; messages: { role: string; content: string }[] };
      if (body.messages.some((m) => m.role === "system" && m.content.startsWith("From your other conversations")))
        notes++;
      bodies.push(JSON.stringify({ tools: body.tools, messages: body.messages }));
    }
    let sum = 0;
    let breaks = 0;
    for (let i = 1; i < bodies.length; i++) {
      const share = commonPrefix(bodies[i - 1] as string, bodies[i] as string) / (bodies[i - 1] as string).length;
      sum += share;
      if (share < 0.5) breaks++;
    }
    return {
      reusePct: (100 * sum) / (bodies.length - 1),
      breaks,
      notes,
      lastBytes: Buffer.byteLength(bodies.at(-1) ?? ""),
      bodies,
    };
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await benchCost();
  await benchPrefixReuse();
}
