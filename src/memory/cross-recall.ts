/**
 * Recall across conversations ("one person, one memory"): for a trusted turn, the
 * events of the person's other conversations that match the input are quoted into the context
 * as one system note — with when and where each was said, and "untrusted" where it applies.
 * They are quoted, not moved: another conversation's layers are that conversation's business,
 * so nothing here changes an event's layer; it counts an access (Memory.touch), as a peek does.
 *
 * An untrusted turn gets no note: it recalls only its own conversation (context assembly).
 */
import type { ContextEntry } from "./context.ts";
import type { Memory } from "./memory.ts";
import { type FoundEvent, formatTime, type MemorySearch, sourceOf } from "./memory-search.ts";
import type { RecallScope } from "./recall-scope.ts";
import { cutToTokens, estimateTokens } from "./tokens.ts";
import type { TextMark } from "./turn-log.ts";
import { asks, onlyAsks, tellsNothing } from "./past-askings.ts";
import type { Coverage } from "./coverage.ts";

/**
 * A quoted event's own words say at least this share of what the question asks
 * (src/memory/coverage.ts): below it, a question about something never told (its key word said
 * nowhere) would be answered with turns that only share its other words.
 */
export const CROSS_RECALL_MIN_COVERAGE = 0.55;
/** What a quote's head says when a later quote is the newer word on the same thing (a fact that was updated). */
export const EARLIER = "earlier than a line below on the same";

/**
 * A later turn of the same speaker that tells of a change (CHANGES) and says at least this share
 * of what an earlier turn said (by the earlier turn's own words and weights,
 * src/memory/coverage.ts) is the newer word on the same thing: "I take the 7:40 bus to work", then
 * "I don't take the bus to work anymore; I cycle". What changed is seldom said twice (the 7:40),
 * so the share is low; the change is what tells it from another turn that shares words by chance
 * ("I take levothyroxine every morning").
 */
export const LATER_WORD_MIN_COVERAGE = 0.25;
/** Candidates looked at for each quoted statement's later word. */
const LATER_CANDIDATES = 10;
/**
 * Words that tell of a change: no longer, switched, moved, from now on; 现在, 换成, 搬到, 不再, 改.
 * A closed class in either language, not a topic.
 */
const CHANGES =
  /\b(?:now|anymore|any more|no longer|no more|from now on|as of|starting|these days|new|switched|switch|changed|change|moved|move|replaced|instead|upgraded|quit|stopped|left|started|bumped|went up|went down|raised|lowered|sold)\b|现在|如今|目前|不再|不.{0,6}了|换|改|搬|调到|调整|变成|变了|离职|辞职|跳槽|卖了|涨|降|升|新的|从.{1,12}到/iu;

/** Whether `later` is the same speaker's newer word on what `earlier` said (`cover`: what `earlier` says, read once). */
function saysAgain(earlier: FoundEvent, later: FoundEvent, cover: (text: string) => Coverage): boolean {
  return (
    later.id > earlier.id &&
    later.role === earlier.role &&
    !asks(later.text) &&
    CHANGES.test(later.text) &&
    cover(later.text).share >= LATER_WORD_MIN_COVERAGE
  );
}

/**
 * The newer word on what a quoted statement of the person's says, when they said one later: "We
 * rent an apartment in Wangjing" is quoted for "Where do I live now?", and "we moved from Wangjing
 * to Tongzhou" comes with it, though it says nothing of living. One search for all the quoted
 * statements together (each search costs as much as the note's own); the newest later word of
 * each is quoted once.
 */
function laterWords(
  search: MemorySearch,
  req: CrossRecallRequest,
  quotes: readonly FoundEvent[],
  known: ReadonlySet<string>,
  coverOf: (q: FoundEvent) => (text: string) => Coverage,
): FoundEvent[] {
  const statements = quotes.filter((q) => q.role === "user" && !asks(q.text));
  if (statements.length === 0) return [];
  const taken = new Set(quotes.map((q) => q.id));
  const found = search.find(req.scope, statements.map((q) => q.text).join("\n"), LATER_CANDIDATES * statements.length, {
    excludeTurn: req.turn,
    accept: req.includeOwn ? undefined : (conv) => conv !== req.conv,
  });
  const out: FoundEvent[] = [];
  for (const q of statements) {
    let newest: FoundEvent | null = null;
    for (const f of found)
      if (!taken.has(f.id) && !known.has(f.text) && f.id > (newest?.id ?? 0) && saysAgain(q, f, coverOf(q))) newest = f;
    if (newest) {
      taken.add(newest.id);
      out.push(newest);
    }
  }
  return out;
}

/** Events quoted at most. */
const MAX_QUOTES = 3;
/** Candidates looked at: the best by rank that pass the gate are quoted. */
const CANDIDATES = 10;
/** Each quote is cut to this many tokens: a reminder, not the whole exchange (memory_search brings that). */
const QUOTE_TOKENS = 160;
/** The note takes at most this share of the history budget, so the conversation itself keeps room. */
const BUDGET_SHARE = 0.25;

export const CROSS_RECALL_HEADER = "From your other conversations (quoted from memory; not said in this conversation):";
/** The header when the conversation's own earlier turns are quoted too (a client that sent only some). */
export const RECALL_HEADER_WITH_OWN =
  "From memory (quoted; earlier turns of this conversation that are not in these messages, and your other conversations):";
/** The header when only the conversation's own earlier turns are quoted. */
export const RECALL_HEADER_OWN = "From earlier in this conversation (quoted from memory; not in these messages):";

export interface CrossRecallRequest {
  conv: string;
  /** The turn asking, whose own events are never quoted back. */
  turn: string;
  input: string;
  scope: RecallScope;
  /** The history budget of the turn; the note takes at most a quarter of it. */
  budgetTokens: number;
  /**
   * Texts the prompt already carries (a stateless client's own history): an event saying one of
   * them is not quoted again, though it was logged in another conversation (an earlier one-off).
   */
  known?: ReadonlySet<string>;
  /** Memories of the scenes the turn is in rank first (src/memory/scenes.ts TurnScenes.memoryOf). */
  boost?: (id: number, conv: string) => number;
  /**
   * The conversation's own events are candidates too: a client that sends its history itself
   * (the /v1 API) may send only the newest message, and what it left out is memory's to bring.
   */
  includeOwn?: boolean;
  /** The asking turn's first event id, once logged (RankOptions.askedFrom). */
  askedFrom?: number;
}

/** The note for `req` and its cost in tokens; null (cost 0) when nothing matches or it may not look. */
export function crossRecallNote(
  search: MemorySearch,
  memory: Pick<Memory, "touch">,
  req: CrossRecallRequest,
): { entry: ContextEntry; tokens: number } | null {
  if (req.scope.kind !== "person" || !req.input.trim()) return null;
  let room = Math.floor(req.budgetTokens * BUDGET_SHARE);
  if (room < 32) return null;
  const known = req.known ?? new Set<string>();
  // Asked for more, so up to MAX_QUOTES remain when some are known already, said twice or do not cover the question.
  const kept = new Map<string, FoundEvent>();
  const found = search.find(req.scope, req.input, CANDIDATES + Math.min(known.size, MAX_QUOTES), {
    excludeTurn: req.turn,
    accept: req.includeOwn ? undefined : (conv) => conv !== req.conv,
    boost: req.boost,
    askedFrom: req.askedFrom,
  });
  const cover = search.coverage(req.scope, req.input);
  for (const f of found) {
    // What is quoted tells something of what is asked: an earlier asking tells nothing, nor does
    // a reply that says it does not know or only acknowledges.
    if (known.has(f.text) || onlyAsks(f.text) || (f.role === "assistant" && tellsNothing(f.text))) continue;
    // The same words said twice (a message sent again after a failed turn, a question asked in
    // two chats) are quoted once, from the first time, and leave their place to the next.
    const key = `${f.role}\u0000${f.text.trim()}`;
    const same = kept.get(key);
    if (same) {
      if (f.ts < same.ts) kept.set(key, { ...f, score: same.score });
      continue;
    }
    // Only the first MAX_QUOTES are quoted: a new one past them needs no weighing.
    if (kept.size >= MAX_QUOTES) continue;
    // Nor a turn whose own words say too little of the question.
    if (cover(f.text).share >= CROSS_RECALL_MIN_COVERAGE) kept.set(key, f);
  }
  const chosen = [...kept.values()].slice(0, MAX_QUOTES);
  const covers = new Map<number, (text: string) => Coverage>();
  const coverOf = (q: FoundEvent) => {
    const c = covers.get(q.id) ?? search.coverage(req.scope, q.text);
    covers.set(q.id, c);
    return c;
  };
  const quotes = [...chosen, ...laterWords(search, req, chosen, known, coverOf)].sort(
    (a, b) => a.ts - b.ts || a.id - b.id,
  );
  const lines: string[] = [];
  const quoted: number[] = [];
  let best = 0;
  let mark: TextMark | null = null;
  for (const [i, f] of quotes.entries()) {
    const where = f.conv === req.conv ? "this conversation" : sourceOf(f);
    const earlier = quotes.slice(i + 1).some((later) => saysAgain(f, later, coverOf(f)));
    const head = `- [${formatTime(f.ts)} · ${where}${earlier ? ` · ${EARLIER}` : ""}] ${f.role}: `;
    const left = Math.min(QUOTE_TOKENS, room - estimateTokens(head) - 2);
    if (left < 8) continue;
    const text = cutToTokens(f.text, left);
    const line = head + (text.length < f.text.length ? `${text}…` : text);
    lines.push(line);
    room -= estimateTokens(line) + 1;
    quoted.push(f.id);
    best = Math.max(best, f.score ?? 0);
    // Quoting untrusted text, or what the model wrote with it in view, marks the turn that reads it.
    if (f.mark !== null) mark = { event: f.id, source: f.mark };
  }
  if (lines.length === 0) return null;
  memory.touch(quoted);
  // The header says where the quotes are from: this conversation, others, or both.
  const own = quotes.filter((f) => quoted.includes(f.id) && f.conv === req.conv).length;
  const header = own === 0 ? CROSS_RECALL_HEADER : own === quoted.length ? RECALL_HEADER_OWN : RECALL_HEADER_WITH_OWN;
  const content = `${header}\n${lines.join("\n")}`;
  return {
    entry: {
      message: { role: "system", content },
      item: {
        layer: "L2",
        recalled: true,
        filled: false,
        reason: "relevant",
        score: best,
        pinned: false,
        turn: "",
        mark,
      },
    },
    tokens: estimateTokens(content) + 4,
  };
}
