/**
 * The person set through the daemon, as a person meets memory: facts told in some conversations
 * among everyday turns, then each question asked in a new conversation — over `homed chat`, the
 * web UI's /api/chat and /v1 in turn — and what counts is the request the model gets:
 *   - hit: the fact's turn (its needle) is in the request, wherever the daemon put it;
 *   - update: the newer fact is there; "stale alone": the older is and the newer is not;
 *   - remembered turns: every earlier turn of the person's (told, everyday, earlier questions)
 *     whose words are in the request, and every assistant line of a memory note;
 *   - never told: a question about something never said gets a note with remembered turns;
 *   - search: `memory.search` (what the `memory_search` tool and the memory page call) with the
 *     question's words has the fact's turn in its top 5.
 * The model is scripted to answer as a model that knows nothing would ("ok, noted.", "I don't
 * know."), so its replies, remembered in turn, add nothing a later question could use.
 *
 * One daemon per language, so the person of each language has their own memory. Every fact has
 * at least 30 other turns after it before any question is asked.
 */
import { BenchDaemon, HOMED } from "../bench-daemon.ts";
import { startFakeModel } from "../fake-model.ts";
import { mulberry32 } from "../../test/harness/prng.ts";
import type { PersonCase, PersonKind } from "./cases-dev.ts";

export type Lang = "en" | "zh";
export type Channel = "cli" | "web" | "v1";
const CHANNELS: Channel[] = ["cli", "web", "v1"];
/** Everyday turns told after the last fact, before the first question. */
const TAIL_FILLERS = 30;

export const REPLIES: Record<Lang, { fact: string[]; filler: string[]; question: string[] }> = {
  en: {
    fact: ["ok, noted.", "Got it.", "Thanks for telling me."],
    filler: ["Sure, here is a thought on that.", "Happy to help with that.", "That sounds reasonable to me."],
    question: ["ok, noted.", "I don't know.", "I'm not sure, could you remind me?"],
  },
  zh: {
    fact: ["好的，记下了。", "明白了。", "谢谢告诉我。"],
    filler: ["好的，我来帮你想想。", "没问题，可以这样做。", "听起来挺合理的。"],
    question: ["好的，记下了。", "我不知道。", "我不太确定，你能提醒我一下吗？"],
  },
};

export interface PersonOutcome {
  id: string;
  lang: Lang;
  kind: PersonKind;
  channel: Channel;
  question: string;
  /** The fact's turn (the newer, for an update) reached the model. */
  hit: boolean;
  /** Update only: the older turn reached the model and the newer did not. */
  staleAlone: boolean;
  /** Earlier turns of the person's that reached the model with the question. */
  remembered: number;
  /** The fact's turn is in `memory.search`'s top 5 for the question. */
  searchTop5: boolean;
  /** `homed chat` printed that it quoted memory (cli only; null elsewhere). */
  saidMemory: boolean | null;
  /** What reached the model of the remembered turns, for reading failures. */
  quoted: string[];
  failed?: string;
}

interface Told {
  text: string;
  reply: string;
}

/** The text of every message the model was sent but the last (the question), joined. */
function requestText(body: string): { text: string; noteLines: string[] } {
  const parsed = JSON.parse(body) as { messages: { role: string; content: unknown }[] };
  const msgs = parsed.messages.slice(0, -1);
  const contentOf = (c: unknown): string =>
    typeof c === "string"
      ? c
      : Array.isArray(c)
        ? c
            .map((p) => (typeof p === "object" && p && "text" in p ? String((p as { text: unknown }).text) : ""))
            .join("\n")
        : "";
  const texts = msgs.map((m) => contentOf(m.content));
  const noteLines = msgs
    .filter((m) => m.role === "system")
    .flatMap((m) => contentOf(m.content).split("\n"))
    .filter((l) => /^- \[[^\]]*\] [^:\s]+: /.test(l));
  return { text: texts.join("\n"), noteLines };
}

/** A turn's words are in the request: its first 40 characters (a quote may be cut at its end). */
const appears = (text: string, turn: string): boolean => text.includes(turn.slice(0, 40));

export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * What the person tells before the questions, in order, each turn with its conversation and the
 * scripted reply: the facts (an update's older half early, its newer half late) among the first
 * everyday turns, then the rest of the everyday turns, so every fact has TAIL_FILLERS turns after
 * it; told across eight conversations, a few turns at a time, as days of chatting are.
 */
export function tellingOrder(
  lang: Lang,
  cases: readonly PersonCase[],
  fillers: readonly string[],
  rand: () => number,
): (Told & { conv: string })[] {
  const r = REPLIES[lang];
  const pick = (xs: string[]) => xs[Math.floor(rand() * xs.length)] as string;
  const head = fillers.slice(0, Math.max(0, fillers.length - TAIL_FILLERS));
  const tail = fillers.slice(head.length);
  const early: Told[] = [];
  const late: Told[] = [];
  for (const c of cases) {
    if (c.kind === "update") {
      early.push({ text: c.told[0] as string, reply: pick(r.fact) });
      late.push({ text: c.told[1] as string, reply: pick(r.fact) });
    } else for (const t of c.told) early.push({ text: t, reply: pick(r.fact) });
  }
  const filler = (text: string): Told => ({ text, reply: pick(r.filler) });
  const half = Math.floor(head.length / 2);
  const order = [
    ...shuffled([...early, ...head.slice(0, half).map(filler)], rand),
    ...shuffled([...late, ...head.slice(half).map(filler)], rand),
    ...tail.map(filler),
  ];
  return order.map((t, i) => ({ ...t, conv: `talk-${lang}-${Math.floor(i / 4) % 8}` }));
}

/** Run one language's cases through a fresh daemon; outcomes in the order asked. */
export async function runPersonLanguage(
  lang: Lang,
  cases: readonly PersonCase[],
  fillers: readonly string[],
  seed = 41,
): Promise<PersonOutcome[]> {
  const rand = mulberry32(seed);
  let reply = "ok";
  const model = startFakeModel({ reply: () => reply });
  const daemon = await BenchDaemon.start({ model, web: true });
  try {
    const client = await daemon.connect();
    const r = REPLIES[lang];
    const pick = (xs: string[]) => xs[Math.floor(rand() * xs.length)] as string;
    const said: string[] = [];
    for (const t of tellingOrder(lang, cases, fillers, rand)) {
      reply = t.reply;
      await client.peer.request("chat.send", { conv: t.conv, text: t.text });
      said.push(t.text);
    }
    const web = daemon.webUrl().replace(/\/?$/, "/");
    const auth = daemon.bearer();
    const out: PersonOutcome[] = [];
    for (const [i, c] of shuffled(cases, rand).entries()) {
      const channel = CHANNELS[i % CHANNELS.length] as Channel;
      const conv = `ask-${c.id}`;
      reply = pick(r.question);
      const before = model.requests;
      let saidMemory: boolean | null = null;
      let failed: string | undefined;
      try {
        if (channel === "cli") {
          const p = Bun.spawn([HOMED, "chat", "-data", daemon.data, "-conv", conv, c.question], {
            stdin: "ignore",
            stdout: "pipe",
            stderr: "pipe",
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
          });
          const [o, e, code] = await Promise.all([
            new Response(p.stdout).text(),
            new Response(p.stderr).text(),
            p.exited,
          ]);
          if (code !== 0 || !o.trim()) failed = `homed chat exited ${code}: ${e.slice(-300)}`;
          saidMemory = /\[memory: [^\]]*other conversations/.test(e);
        } else if (channel === "web") {
          const res = await fetch(`${web}api/chat`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json", "X-Homed": "1" },
            body: JSON.stringify({ conv: conv, text: c.question }),
          });
          const body = await res.text();
          if (res.status !== 200 || !body.includes('"done"')) failed = `/api/chat ${res.status}: ${body.slice(-300)}`;
        } else {
          const res = await fetch(`${web}v1/chat/completions`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json", "X-Homed-Conversation": conv },
            body: JSON.stringify({ model: "homed", messages: [{ role: "user", content: c.question }] }),
          });
          const body = await res.text();
          if (res.status !== 200) failed = `/v1 ${res.status}: ${body.slice(-300)}`;
        }
      } catch (err) {
        failed = String(err);
      }
      if (!failed && model.requests === before) failed = "the model was not called";
      const { text, noteLines } = failed ? { text: "", noteLines: [] } : requestText(model.lastBody);
      const quoted = said.filter((s) => appears(text, s));
      const assistantLines = noteLines.filter((l) => /^- \[[^\]]*\] assistant: /.test(l));
      const hit = c.needle !== "" && text.includes(c.needle);
      const staleAlone = c.stale !== undefined && text.includes(c.stale) && !hit;
      const found = (await daemon.request("memory.search", { query: c.question, k: 5 })) as {
        hits: { text: string }[];
      };
      out.push({
        id: c.id,
        lang,
        kind: c.kind,
        channel,
        question: c.question,
        hit,
        staleAlone,
        remembered: quoted.length + assistantLines.length,
        searchTop5: c.needle !== "" && found.hits.some((h) => h.text.includes(c.needle)),
        saidMemory,
        quoted: [...quoted, ...assistantLines],
        failed,
      });
      said.push(c.question);
    }
    return out;
  } finally {
    await daemon.stop();
    model.stop();
  }
}

/** The figures of one run, as shares in per cent. */
export function personFigures(outcomes: readonly PersonOutcome[]) {
  const pct = (xs: readonly PersonOutcome[], f: (o: PersonOutcome) => boolean) =>
    xs.length ? (100 * xs.filter(f).length) / xs.length : Number.NaN;
  const told = outcomes.filter((o) => o.kind !== "never");
  const never = outcomes.filter((o) => o.kind === "never");
  const updates = outcomes.filter((o) => o.kind === "update");
  const byKind = Object.fromEntries(
    (["same", "detail", "update", "synonym", "paraphrase", "category"] as const).map((k) => [
      k,
      pct(
        told.filter((o) => o.kind === k),
        (o) => o.hit,
      ),
    ]),
  ) as Record<Exclude<PersonKind, "never">, number>;
  return {
    hitEn: pct(
      told.filter((o) => o.lang === "en"),
      (o) => o.hit,
    ),
    hitZh: pct(
      told.filter((o) => o.lang === "zh"),
      (o) => o.hit,
    ),
    byKind,
    updateNewest: pct(updates, (o) => o.hit),
    updateStaleAlone: pct(updates, (o) => o.staleAlone),
    unrelatedNote: pct(never, (o) => o.remembered > 0),
    remembered: outcomes.reduce((s, o) => s + o.remembered, 0) / Math.max(1, outcomes.length),
    searchTop5: pct(told, (o) => o.searchTop5),
    failed: outcomes.filter((o) => o.failed).length,
    saidMemoryWrongly: outcomes.filter((o) => o.saidMemory !== null && o.saidMemory !== o.remembered > 0).length,
  };
}

/** Both languages of a set, one daemon each. */
export async function runPersonSet(
  cases: readonly PersonCase[],
  fillers: Record<Lang, readonly string[]>,
): Promise<PersonOutcome[]> {
  const out: PersonOutcome[] = [];
  for (const lang of ["en", "zh"] as const)
    out.push(
      ...(await runPersonLanguage(
        lang,
        cases.filter((c) => c.lang === lang),
        fillers[lang],
      )),
    );
  return out;
}
