/**
 * Memory over the append-only log: indexes every event's text as it is appended, scores events
 * against an input (src/memory/relevance.ts), and moves events between layers — L1 (context) and
 * L2 (cold) are states in `event_state`, never deletions. Cold recall is Peek (rank L2 without
 * moving anything) then Remove (the caller confirms, and the events go back to L1).
 */
import type { Store } from "../store/store.ts";
import type { LoggedEvent } from "../store/event-terms.ts";
import type { Tokenizer } from "../embed/tokenizer.ts";
import { LexicalIndex } from "./lexical-index.ts";
import { askedOf, DEFAULT_PARAMS, rankEvents, type IdSet, type LexicalParams, type ScorerName } from "./relevance.ts";
import { type Coverage, coverageOf, markSlot, questionWords } from "./coverage.ts";
import type { DenseIndex } from "./dense-index.ts";
import { PersonIndex } from "./person-index.ts";
import type { IndexSnapshots } from "./index-snapshot.ts";
import type { RecallScope } from "./recall-scope.ts";

export { eventText } from "./event-text.ts";

/**
 * Membership in `ids` by binary search, for ranking among a conversation's L1 or L2 events on
 * every turn: a Set of them cost ~40 bytes an id per query, garbage that grew with the
 * conversation and kept the daemon's heap high under load. `ids` are used as they are when
 * ascending (a conversation's turns in order), else a sorted copy.
 */
export function sortedIds(ids: readonly number[]): IdSet {
  let sorted: ArrayLike<number> = ids;
  for (let i = 1; i < ids.length; i++)
    if ((ids[i] as number) < (ids[i - 1] as number)) {
      sorted = Float64Array.from(ids).sort();
      break;
    }
  return {
    has(id: number): boolean {
      let lo = 0;
      let hi = sorted.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const x = sorted[mid] as number;
        if (x === id) return true;
        if (x < id) lo = mid + 1;
        else hi = mid - 1;
      }
      return false;
    },
  };
}

/** How Memory.search ranks. */
export interface SearchOptions {
  limit: number;
  /** When the query is asked (for "last week"), epoch milliseconds; absent: now; null: unknown. */
  time?: number | null;
  accept?: (id: number, conv: string) => boolean;
  acceptConv?: (conv: string) => boolean;
  /** Another scorer than the one the agent uses (`homed recall`'s baselines only). */
  scorer?: ScorerName;
  /** Other lexical weights (tuning runs only). */
  params?: LexicalParams;
  /** The asking turn's first event id (RankOptions.askedFrom). */
  askedFrom?: number;
}

export class Memory {
  readonly index: LexicalIndex;
  /** Every conversation's events in one collection, for recall across conversations. */
  readonly person: PersonIndex;
  /** Dense vectors, once a model is loaded (memory works lexically until then). */
  dense: DenseIndex | null = null;

  constructor(
    private readonly store: Store,
    tokenizer: Tokenizer,
    /** Where the person-wide index is kept between starts (none: made from the rows on first use). */
    snapshots: IndexSnapshots | null = null,
  ) {
    this.index = new LexicalIndex(store.eventTerms, tokenizer);
    this.person = new PersonIndex(store.eventTerms, this.index, snapshots);
  }

  /**
   * Index a logged event for memory (src/memory/lexical-index.ts addEvent: its text with what its
   * blocks carry, who said it, its session and time): every event any path appends — a turn's,
   * an import's, a plugin's note — comes in here. Events without text are skipped.
   */
  add(eventId: number): void {
    const e = this.store.event(eventId);
    if (e) this.addLogged(e);
  }

  /** As `add`, for an event the caller has just appended (its row is not read back). */
  addLogged(e: LoggedEvent): void {
    const full = this.index.addEvent(e);
    if (full !== null) this.dense?.enqueue(e.id, e.conv, full);
  }

  /** Before scoring for `text`: embed it once, if a dense model is in use. */
  async prepare(text: string): Promise<void> {
    await this.dense?.prepareQuery(text);
  }

  /**
   * The first event id of `conv` that memory may still rank: events up to a forgotten bound
   * (Store.forgetConversation; `homed recall`'s reset) are out of its statistics too.
   */
  private minId(conv: string): number {
    const bound = this.store.forgottenBounds().get(conv);
    return bound === undefined ? 0 : bound + 1;
  }

  /** Relevance of each of `ids` to `text` (0 for those that share nothing with it). */
  score(conv: string, text: string, ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    const dense = this.dense?.cosines(conv, text, ids) ?? null;
    // Only `ids` compete, so the ranking makes no entry for the rest of the conversation (the
    // scores are normalised by the whole conversation's best either way).
    const among = sortedIds(ids);
    for (const s of rankEvents(this.index, conv, text, {
      ids,
      dense,
      time: Date.now(),
      among,
      minId: this.minId(conv),
    }))
      out.set(s.id, s.score);
    return out;
  }

  /** Peek: the L2 events of `ids` that best match `text`, best first; nothing moves. */
  peekCold(conv: string, text: string, l2Ids: readonly number[], k: number): { id: number; score: number }[] {
    const dense = this.dense?.cosines(conv, text, l2Ids) ?? null;
    return rankEvents(this.index, conv, text, {
      ids: l2Ids,
      dense,
      time: Date.now(),
      among: sortedIds(l2Ids),
      limit: k,
      minId: this.minId(conv),
    });
  }

  /**
   * The events of `scope` that best match `text`, best first, with the conversation each is from:
   * the one ranking behind the recall note, `memory_search`, the memory page's search and `homed
   * recall`. A person scope is one collection (src/memory/person-index.ts), so scores of
   * different conversations compare; it is ranked lexically (dense vectors are kept per
   * conversation). `accept` narrows the candidates (not the normalisation: the best of the scope
   * scores 1); `acceptConv` narrows them by conversation, and when it accepts none of the
   * scope's conversations nothing is ranked (a person with one conversation asks for the others).
   */
  search(scope: RecallScope, text: string, opts: SearchOptions): { id: number; conv: string; score: number }[] {
    const { limit, accept, acceptConv, scorer, params, askedFrom } = opts;
    const time = opts.time === undefined ? Date.now() : opts.time;
    if (scope.kind === "conversation") {
      const conv = scope.conv;
      if (acceptConv && !acceptConv(conv)) return [];
      const among = accept ? { has: (id: number) => accept(id, conv) } : undefined;
      return rankEvents(this.index, conv, text, {
        ids: [],
        time,
        limit,
        among,
        scorer,
        params,
        askedFrom,
        minId: this.minId(conv),
      }).map((s) => ({ ...s, conv }));
    }
    const { index, convOf, convs } = this.person.scope(scope.includeUntrusted);
    if (acceptConv && !convs.some(acceptConv)) return [];
    const among =
      accept || acceptConv
        ? {
            has: (id: number) => {
              const conv = convOf(id) ?? "";
              return (!acceptConv || acceptConv(conv)) && (!accept || accept(id, conv));
            },
          }
        : undefined;
    return rankEvents(this.index, "", text, { ids: [], time, limit, among, index, scorer, params, askedFrom }).map(
      (s) => ({
        ...s,
        conv: convOf(s.id) ?? "",
      }),
    );
  }

  /**
   * Searches to run once the person-wide index is ready, one step at a time, so the first turn
   * after a start does not compile the ranking over a million events on its way: its first
   * search took 4–5 times as long as the later ones (docs/BENCHMARKS.md, make bench-scale). With
   * Chinese in memory, a Chinese one too, which loads jieba's dictionary (~150 ms) now rather than
   * in that turn. Nothing is touched: a search counts no access.
   */
  warmUpSteps(
    scope: RecallScope,
    /** How a turn searches (src/memory/memory-search.ts find: the ranking, then the events read back). */
    find: (text: string) => void = (t) => this.search(scope, t, { limit: 10 }),
  ): (() => void)[] {
    const texts = [
      "What did I tell you about the weather and my plans last week?",
      "How many people did I invite, and what did they bring?",
      "Do you remember what I asked you about the kitchen?",
    ];
    if (scope.kind === "person" && this.person.scope(scope.includeUntrusted).index.hanChars.size > 0)
      texts.push("上周我跟你说过什么计划？");
    return texts.map((t) => () => {
      find(t);
      this.coverage(scope, t)(t);
    });
  }

  /**
   * What a turn says of the question `text` (src/memory/coverage.ts), its words weighed by the
   * statistics of the memory `scope` searches, the question read as ranking reads it (its framing
   * and the span it names left out): the question is read once, each turn when asked about.
   */
  coverage(scope: RecallScope, text: string, time?: number | null): (turn: string) => Coverage {
    const ci =
      scope.kind === "conversation"
        ? this.index.conv(scope.conv, this.minId(scope.conv))
        : this.person.scope(scope.includeUntrusted).index;
    const { matched } = askedOf(text, DEFAULT_PARAMS, time === undefined ? Date.now() : time);
    const question = questionWords(markSlot(matched, this.index.analyseEach(matched, ci.names)));
    // Rare in this memory and not among the most common words of the language: "learning" or
    // 公司 say less of what a question is about than "banjo" or 宠物, however seldom they were said here.
    const idf = (term: string) => ci.idf(ci.words.get(term)?.n ?? 0) * this.index.commonness(term);
    return (turn) => coverageOf(question, idf, this.index.analyseEach(turn));
  }

  /** Count an access (a recall that did not move the events), for cooling decisions. */
  touch(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.store.touchEvents(ids, Date.now());
  }

  /** Ids of a conversation's events in a layer. */
  layerIds(conv: string, layer: 1 | 2 | 3): number[] {
    return this.store.layerIds(conv, layer);
  }

  /** Move events to a layer (L1 = 1 context, L2 = 2 cold, L3 = 3 distilled: for good). */
  setLayer(ids: readonly number[], layer: 1 | 2 | 3): void {
    if (ids.length === 0) return;
    this.store.setLayer(ids, layer, Date.now());
  }
}
