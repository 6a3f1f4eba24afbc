/**
 * L3 recall: the facts relevant to an input reach the model as one compact,
 * deduplicated system note with provenance. Relevant: a fact touching a node the input names
 * (all of a name's words in the input; "user" when the person speaks of themself), then facts one
 * hop further. Per subject and predicate only the newest fact the turn may see is stated, with
 * what it replaced ("earlier: …"), so "where does Alice live" answers with the current place.
 *
 * Scope is as for L2 (src/memory/recall-scope.ts): an untrusted turn sees only facts with a
 * source in its own conversation, and supersession is judged among those only (a newer fact it
 * may not see does not show through as "superseded"); a trusted turn sees facts with a trusted
 * source (or the person's own corrections), untrusted ones too with recall_untrusted. A fact
 * whose every source is in a forgotten part of a conversation is hidden with it.
 */
import type { TextMark } from "./turn-log.ts";
import type { Fact, FactSource, L3Graph } from "../store/l3-graph.ts";
import { formatTime } from "./memory-search.ts";
import type { RecallScope } from "./recall-scope.ts";
import { estimateTokens } from "./tokens.ts";

export const L3_HEADER = "Known facts (long-term memory, distilled from past conversations; newest first):";
/** Facts stated at most. */
const MAX_FACTS = 8;
/** The note takes at most this share of the history budget. */
const BUDGET_SHARE = 0.15;
/** Hop-1 facts read at most per turn (and hop-2 ones), newest first: keeps the turn cheap on a large graph. */
const MAX_READ = 120;
/** Input words a fact reached only through the "user" node must say (of its predicate and object). */
const MIN_SELF_HITS = 1;
/** Words that mean the person speaking: the "user" node. */
const SELF = /(^|[^a-z'])(i|i'm|i've|i'd|me|my|mine|myself)(?![a-z'])|我/i;

export interface FactsRequest {
  conv: string;
  input: string;
  scope: RecallScope;
  budgetTokens: number;
}

interface NodeIndex {
  version: number;
  /** Node ids by their first index term; each with all its terms. */
  byTerm: Map<string, { id: number; terms: string[] }[]>;
  self: number | null;
}

export class L3Recall {
  private index: NodeIndex | null = null;

  constructor(
    readonly graph: L3Graph,
    private readonly tokens: (text: string) => string[],
    private readonly forgotten: () => ReadonlyMap<string, number>,
  ) {}

  /** Each conversation's forgotten bound now (an event id at or below it is forgotten). */
  forgottenBounds(): ReadonlyMap<string, number> {
    return this.forgotten();
  }

  /** The nodes `input` names: every index term of a node's name is among the input's. */
  match(input: string): number[] {
    const idx = this.nodeIndex();
    const terms = new Set(this.tokens(input));
    const out = new Set<number>();
    for (const t of terms)
      for (const n of idx.byTerm.get(t) ?? []) if (n.terms.every((x) => terms.has(x))) out.add(n.id);
    if (idx.self !== null && SELF.test(input)) out.add(idx.self);
    return [...out];
  }

  /** Whether `f` may be recalled in `scope` (not forgotten, in scope), and its sources there. */
  visible(f: Fact, scope: RecallScope, bounds = this.forgotten()): FactSource[] | null {
    const live = f.sources.filter((s) => s.eventId > (bounds.get(s.conv) ?? 0));
    if (f.sources.length > 0 && live.length === 0) return null;
    if (scope.kind === "conversation") {
      const own = live.filter((s) => s.conv === scope.conv);
      return own.length ? own : null;
    }
    if (f.origin === "person" || scope.includeUntrusted) return live;
    const trusted = live.filter((s) => !s.untrusted);
    return trusted.length ? trusted : null;
  }

  /** The facts for `req`, ranked, each the newest of its subject and predicate, with what it replaced. */
  facts(req: Pick<FactsRequest, "input" | "scope">, limit = MAX_FACTS): RecalledFact[] {
    const nodes = this.match(req.input);
    const self = this.nodeIndex().self;
    const named = new Set(nodes.filter((n) => n !== self));
    if (nodes.length === 0) return [];
    const bounds = this.forgotten();
    const seen = new Map<number, { f: Fact; sources: FactSource[]; hop: number }>();
    const take = (fs: Fact[], hop: number) => {
      for (const f of fs) {
        if (seen.has(f.id)) continue;
        const sources = this.visible(f, req.scope, bounds);
        if (sources) seen.set(f.id, { f, sources, hop });
      }
    };
    take(this.graph.touching(nodes, MAX_READ), 1);
    const near = new Set(nodes);
    const next = new Set<number>();
    for (const { f } of seen.values()) for (const n of [f.subject.id, f.object.id]) if (!near.has(n)) next.add(n);
    take(this.graph.touching([...next].slice(0, 40), MAX_READ), 2);
    // One statement per subject and predicate: the newest visible; older ones are its history.
    const groups = new Map<string, { f: Fact; sources: FactSource[]; hop: number }[]>();
    for (const x of seen.values()) {
      const k = `${x.f.subject.id}\u0000${x.f.predicate}`;
      groups.set(k, [...(groups.get(k) ?? []), x]);
    }
    const inputTerms = new Set(this.tokens(req.input));
    const out: RecalledFact[] = [];
    for (const g of groups.values()) {
      g.sort((a, b) => b.f.validFrom - a.f.validFrom || b.f.id - a.f.id);
      const cur = g[0] as (typeof g)[number];
      const hop = Math.min(...g.map((x) => x.hop));
      const earlier: string[] = [];
      for (const x of g.slice(1))
        if (x.f.object.label !== cur.f.object.label && !earlier.includes(x.f.object.label))
          earlier.push(x.f.object.label);
      // Hop 1 first; then how many of the input's words the fact says (its predicate and ends).
      const said = new Set(this.tokens(`${cur.f.subject.label} ${cur.f.predicate} ${cur.f.object.label}`));
      let hits = 0;
      for (const t of inputTerms) if (said.has(t)) hits++;
      // Everything about the person touches "user": such a fact must also say what was asked about.
      const viaSelfOnly = !named.has(cur.f.subject.id) && !named.has(cur.f.object.id) && hop === 1;
      if (viaSelfOnly && hits < MIN_SELF_HITS) continue;
      out.push({ fact: cur.f, sources: cur.sources, earlier, hop, rank: (hop === 1 ? 1000 : 0) + hits });
    }
    out.sort((a, b) => b.rank - a.rank || b.fact.validFrom - a.fact.validFrom || b.fact.id - a.fact.id);
    return out.slice(0, limit);
  }

  /** The note for `req` and its cost in tokens; null when no fact is relevant or none fits. */
  note(req: FactsRequest): { content: string; tokens: number; facts: number[]; mark: TextMark | null } | null {
    if (!req.input.trim()) return null;
    let room = Math.floor(req.budgetTokens * BUDGET_SHARE) - estimateTokens(L3_HEADER) - 4;
    if (room < 24) return null;
    const lines: string[] = [];
    const ids: number[] = [];
    const said = new Set<string>();
    // A fact distilled from marked text (a page, what the model wrote with it in view) marks the turn too.
    let mark: TextMark | null = null;
    for (const r of this.facts(req)) {
      const line = factLine(r);
      const key = line.slice(0, line.indexOf(" ("));
      if (said.has(key)) continue;
      const cost = estimateTokens(line) + 1;
      if (cost > room) continue;
      said.add(key);
      lines.push(line);
      ids.push(r.fact.id);
      room -= cost;
      const marked = r.sources.find((x) => x.mark !== null);
      if (marked?.mark) mark = { event: marked.eventId, source: marked.mark };
    }
    if (lines.length === 0) return null;
    const content = `${L3_HEADER}\n${lines.join("\n")}`;
    return { content, tokens: estimateTokens(content) + 4, facts: ids, mark };
  }

  private nodeIndex(): NodeIndex {
    if (this.index?.version === this.graph.version) return this.index;
    const byTerm: NodeIndex["byTerm"] = new Map();
    let self: number | null = null;
    for (const n of this.graph.nodes()) {
      if (n.key === "user") self = n.id;
      const terms = [...new Set(this.tokens(n.label))];
      const first = terms[0];
      if (!first) continue;
      for (const t of terms) byTerm.set(t, [...(byTerm.get(t) ?? []), { id: n.id, terms }]);
    }
    this.index = { version: this.graph.version, byTerm, self };
    return this.index;
  }
}

export interface RecalledFact {
  fact: Fact;
  /** Its sources the turn may see. */
  sources: FactSource[];
  /** Objects it replaced, newest first. */
  earlier: string[];
  hop: number;
  rank: number;
}

/** "- Alice lives in Paris (since 2026-03-01, web conversation c1; earlier: London)". */
export function factLine(r: RecalledFact): string {
  const f = r.fact;
  const newest = r.sources.at(-1);
  const where = newest ? `conversation ${newest.conv}` : f.origin === "person" ? "corrected by the person" : "";
  const since = formatTime(f.validFrom).slice(0, 10);
  const was = r.earlier.length ? `; earlier: ${r.earlier.slice(0, 3).join(", ")}` : "";
  return `- ${f.subject.label} ${f.predicate} ${f.object.label} (since ${since}${where ? `, ${where}` : ""}${was})`;
}
