/**
 * One conversation's lexical index, in memory: postings (term → events and counts) for its
 * words, the concepts they stand for, and its speakers' names, plus what each event carries
 * besides words (length, session, time). Conversations are the unit of memory — each is its own
 * collection, with its own document frequencies — so scoring never looks at another one.
 */

/** Events that hold a term, and how often each holds it; `docs` ascending. */
export interface Postings {
  docs: number[];
  tfs: number[];
}

/** What an event brings to the index. */
export interface IndexedEvent {
  id: number;
  words: readonly string[];
  concepts: readonly string[];
  /** Terms of the speaker's name ("Caroline", "user"), when known. */
  speaker: readonly string[];
  /** A session key: consecutive events with the same key form one session. */
  session: string | null;
  /** Epoch milliseconds, when known. */
  time: number | null;
}

function post(map: Map<string, Postings>, term: string, doc: number, tf: number): void {
  let p = map.get(term);
  if (!p) {
    p = { docs: [], tfs: [] };
    map.set(term, p);
  }
  p.docs.push(doc);
  p.tfs.push(tf);
}

export class ConvIndex {
  /** Event ids, ascending; a document is an index into this. */
  readonly ids: number[] = [];
  /** Words per document (for BM25's length normalisation). */
  readonly lens: number[] = [];
  /** Session ordinal per document (a new one whenever the key changes; -1 when unknown). */
  readonly sessions: number[] = [];
  readonly times: number[] = [];
  /** 1 when a document and the next are adjacent turns of one exchange (see adjacent), else 0. */
  readonly linkNext: number[] = [];
  /** Speaker ordinal per document (-1 when unknown). */
  readonly speakerOf: number[] = [];
  private readonly speakerIds = new Map<string, number>();
  readonly words = new Map<string, Postings>();
  readonly concepts = new Map<string, Postings>();
  readonly speakers = new Map<string, Postings>();
  totalLen = 0;
  sessionCount = 0;
  private lastSessionKey: string | null = null;

  constructor(
    /** Only events with id >= minId belong here (a conversation's current generation). */
    readonly minId: number,
  ) {}

  get size(): number {
    return this.ids.length;
  }

  get lastId(): number {
    return this.ids[this.ids.length - 1] ?? 0;
  }

  get avgLen(): number {
    return this.ids.length ? Math.max(this.totalLen / this.ids.length, 1) : 1;
  }

  /** Append an event (ids only grow; an id at or below the last is ignored). */
  add(e: IndexedEvent): void {
    if (e.id < this.minId || e.id <= this.lastId) return;
    const doc = this.ids.length;
    this.ids.push(e.id);
    this.lens.push(e.words.length);
    this.totalLen += e.words.length;
    if (e.session === null) this.sessions.push(-1);
    else {
      if (e.session !== this.lastSessionKey || this.sessionCount === 0) this.sessionCount++;
      this.lastSessionKey = e.session;
      this.sessions.push(this.sessionCount - 1);
    }
    this.times.push(e.time ?? Number.NaN);
    const who = e.speaker.join(" ");
    let sp = who ? this.speakerIds.get(who) : -1;
    if (sp === undefined) {
      sp = this.speakerIds.size;
      this.speakerIds.set(who, sp);
    }
    this.speakerOf.push(sp);
    this.linkNext.push(0);
    if (doc > 0 && this.sessions[doc - 1] === this.sessions[doc]) {
      const prev = this.speakerOf[doc - 1] as number;
      this.linkNext[doc - 1] = prev >= 0 && sp >= 0 && prev !== sp ? 1 : 0;
    }
    const counts = new Map<string, number>();
    for (const w of e.words) counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const [t, c] of counts) post(this.words, t, doc, c);

    const cs = new Set(e.concepts);
    for (const t of cs) if (!counts.has(t)) post(this.concepts, t, doc, 1);
    for (const t of new Set(e.speaker)) post(this.speakers, t, doc, 1);
  }

  /**
   * Whether documents `a` and `b` (a < b) are adjacent turns of one exchange: consecutive, in
   * the same session, and said by two different known people. Two turns of the same speaker
   * with nothing indexed between them — a user's messages when only user turns are indexed —
   * are not: what they answer is missing. Nor are turns whose speaker is unknown: they may be
   * exactly such a run (linking them cost 2–5 points of LongMemEval R@5 on user turns).
   */
  adjacent(a: number, b: number): boolean {
    return b === a + 1 && a >= 0 && this.linkNext[a] === 1;
  }

  /** BM25's inverse document frequency of a term held by `df` of this conversation's events. */
  idf(df: number): number {
    const n = this.ids.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }
}
