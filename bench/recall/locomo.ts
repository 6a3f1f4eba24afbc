/**
 * LoCoMo development set (../shared/data/locomo-dev, two conversations, CC BY-NC 4.0: read from
 * there, never copied into the repository). A different kind of conversation from LongMemEval:
 * two people, short turns, images as captions, dates as session headers. Evaluated as its README
 * says: every turn of a conversation indexed in order (speaker, text with the caption, the
 * session's date as the time), each question asked of its conversation, R@k = share of its
 * evidence turns in the top k (ids that name no turn skipped), averaged over questions.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { RecallOp } from "../../src/protocol/recall.ts";
import { type Answers, recallAt } from "./harness.ts";

export const LOCOMO_DEV = resolve(import.meta.dir, "../../../shared/data/locomo-dev/locomo_dev.json.xz");

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface LocomoQa {
  question: string;
  evidence: string[];
  category: number;
}

interface LocomoConversation {
  sample_id: string;
  qa: LocomoQa[];
  conversation: Record<string, unknown>;
}

export interface LocomoCase {
  conv: string;
  /** The question as asked (development aids print it; scoring never reads it). */
  question: string;
  category: number;
  evidence: string[];
}

/** The set, or null when `../shared/data` is not beside this checkout (a clone elsewhere). */
export function loadLocomo(path = LOCOMO_DEV): LocomoConversation[] | null {
  if (!existsSync(path)) return null;
  const r = spawnSync("xz", ["-dc", path], { maxBuffer: 1 << 28, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`xz -dc ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout) as LocomoConversation[];
}

/** The sessions of a conversation in order: their date and turns. */
function sessions(c: LocomoConversation): { date: string; turns: LocomoTurn[] }[] {
  const out: { n: number; date: string; turns: LocomoTurn[] }[] = [];
  for (const [key, value] of Object.entries(c.conversation)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(value)) continue;
    out.push({ n: Number(m[1]), date: String(c.conversation[`${key}_date_time`] ?? ""), turns: value as LocomoTurn[] });
  }
  return out.sort((a, b) => a.n - b.n);
}

/** Ops for the set (each conversation its own memory) and the cases they are judged on, in query order. */
export function locomoOps(set: readonly LocomoConversation[]): { ops: RecallOp[]; cases: LocomoCase[] } {
  const ops: RecallOp[] = [];
  const cases: LocomoCase[] = [];
  for (const c of set) {
    const conv = c.sample_id;
    ops.push({ op: "reset", conv });
    const known = new Set<string>();
    for (const s of sessions(c))
      s.turns.forEach((t, seq) => {
        known.add(t.dia_id);
        ops.push({
          op: "index",
          conv,
          id: t.dia_id,
          text: t.text,
          speaker: t.speaker,
          time: s.date,
          session: s.date,
          seq,
          ...(t.blip_caption ? { caption: t.blip_caption } : {}),
        });
      });
    ops.push({ op: "commit", conv });
    for (const q of c.qa) {
      const evidence = q.evidence.filter((e) => known.has(e));
      if (evidence.length === 0) continue;
      ops.push({ op: "query", conv, text: q.question, k: 20 });
      cases.push({ conv, question: q.question, category: q.category, evidence });
    }
  }
  return { ops, cases };
}

export interface LocomoScore {
  r5: number;
  r10: number;
  r20: number;
  mrr: number;
  n: number;
  byCategory: Record<number, { r10: number; n: number }>;
  perQuestion: number[];
}

export function scoreLocomo(cases: readonly LocomoCase[], answers: Answers): LocomoScore {
  if (answers.length !== cases.length) throw new Error(`expected ${cases.length} answers, got ${answers.length}`);
  const s: LocomoScore = { r5: 0, r10: 0, r20: 0, mrr: 0, n: cases.length, byCategory: {}, perQuestion: [] };
  cases.forEach((c, i) => {
    const ids = answers[i] as (string | number)[];
    const r10 = recallAt(ids, c.evidence, 10);
    s.perQuestion.push(r10);
    s.r5 += recallAt(ids, c.evidence, 5);
    s.r10 += r10;
    s.r20 += recallAt(ids, c.evidence, 20);
    const first = ids.findIndex((id) => c.evidence.includes(String(id)));
    s.mrr += first >= 0 ? 1 / (first + 1) : 0;
    const cat = s.byCategory[c.category] ?? { r10: 0, n: 0 };
    s.byCategory[c.category] = cat;
    cat.r10 += r10;
    cat.n++;
  });
  for (const cat of Object.values(s.byCategory)) cat.r10 /= cat.n;
  for (const k of ["r5", "r10", "r20", "mrr"] as const) s[k] /= Math.max(s.n, 1);
  return s;
}
