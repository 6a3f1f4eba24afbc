/**
 * One conversation's lexical index, in memory: postings (term → events and counts) for its
 * words, the concepts they stand for, and its speakers' names, plus what each event carries
 * besides words (length, session, time). Conversations are the unit of memory — each is its own
 * collection, with its own document frequencies — so scoring never looks at another one.
 */

/**
 * Events that hold a term, and how often each holds it: per document, varint(2 × (document − the
 * previous one) + 1 if it holds the term more than once), then, only then, varint(count);
 * documents ascending, in one byte array. An index holds a posting for every word and concept of
 * every event of its conversation, and the terms it repeats hold nearly every event: a posting
 * with a small gap and a count of 1 — nearly all of them, and every concept's and speaker's —
 * takes 1 byte here (2 with the count always written: a person-wide index of a million events
 * held 140 MB of postings that way, docs/BENCHMARKS.md, make bench-scale), 8 as two Int32 and 16
 * as two numbers. Every reader walks a list from the start (`PostingsCursor`).
 */
export class Postings {
  /** How many documents hold the term. */
  n = 0;
  /** Bytes used in `bytes`; the rest is room to grow. */
  len = 0;
  bytes = new Uint8Array(4);
  /** The newest document (a list restored from a snapshot sets it, src/memory/index-snapshot.ts). */
  lastDoc = 0;

  add(doc: number, tf: number): void {
    const head = (doc - this.lastDoc) * 2 + (tf > 1 ? 1 : 0);
    const need = this.len + varintBytes(head) + (tf > 1 ? varintBytes(tf) : 0);
    if (need > this.bytes.length) this.bytes = grown(this.bytes, need);
    this.len = putVarint(this.bytes, this.len, head);
    if (tf > 1) this.len = putVarint(this.bytes, this.len, tf);
    this.lastDoc = doc;
    this.n++;
  }

  /** Give back the room left to grow (an index loaded in bulk keeps only what it holds). */
  trim(): void {
    if (this.bytes.length > this.len) this.bytes = this.bytes.slice(0, this.len);
  }
}

function varintBytes(x: number): number {
  let n = 1;
  while (x >= 0x80) {
    x = Math.floor(x / 128);
    n++;
  }
  return n;
}

function putVarint(b: Uint8Array, at: number, x: number): number {
  while (x >= 0x80) {
    b[at++] = (x & 0x7f) | 0x80;
    x = Math.floor(x / 128);
  }
  b[at++] = x;
  return at;
}

/** Walks a term's postings: `while (c.next()) use(c.doc, c.tf)`. */
export class PostingsCursor {
  doc = 0;
  tf = 0;
  private at = 0;

  constructor(private readonly p: Postings) {}

  next(): boolean {
    if (this.at >= this.p.len) return false;
    const head = this.varint();
    const more = head % 2;
    this.doc += (head - more) / 2;
    this.tf = more ? this.varint() : 1;
    return true;
  }

  private varint(): number {
    const b = this.p.bytes;
    let x = b[this.at++] as number;
    if (x < 0x80) return x;
    let v = x & 0x7f;
    let scale = 128;
    do {
      x = b[this.at++] as number;
      v += (x & 0x7f) * scale;
      scale *= 128;
    } while (x >= 0x80);
    return v;
  }
}

/** `a` copied into one half as large again (at least `need`). */
function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, need: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

/** What an event brings to the index. */
export interface IndexedEvent {
  id: number;
  words: readonly string[];
  concepts: readonly string[];
  /** Terms of the speaker's name ("Caroline", "user"), when known. */
  speaker: readonly string[];
  /**
   * Whether the speaker is a person named in the dialogue ("Caroline"), not a role the daemon
   * gives ("user", "assistant", "tool"; src/memory/event-text.ts eventSpeaker).
   */
  named?: boolean;
  /** A session key: events with the same key form one session (src/memory/sessions.ts). */
  session: string | null;
  /** Epoch milliseconds, when known. */
  time: number | null;
  /** Whether the text places what it tells on the day it is said ("today", 今天). */
  saysToday?: boolean;
  /** Whether the text asks (a question, src/memory/past-askings.ts). */
  asks?: boolean;
  /** Whether it is an assistant's reply that says it does not know (past-askings.ts). */
  abstains?: boolean;
  /** Whether it is an assistant's turn that says back the turn before it (past-askings.ts). */
  echoesBefore?: boolean;
}

/** Number words as the index holds them, Porter-stemmed ("one" is "on", itself a stop word). */
const NUMBER_WORDS = new Set(
  "on two three four five six seven eight nine ten eleven twelv thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenti thirti forti fifti sixti seventi eighti nineti hundr thousand million billion dozen half twice".split(
    " ",
  ),
);
/** Digits, or Chinese numerals alone or with a measure word (三个, 两天, 五公里; not 一起, 一直). */
const NUMBER = /^\d|^[一二两三四五六七八九十百千万]+(?:个|次|天|年|月|周|块|元|斤|岁|小时|公里|分钟)?$/;
/** Whether an index term is a number (digits, a number word, a Chinese numeral). */
function isQuantity(term: string): boolean {
  return NUMBER.test(term) || NUMBER_WORDS.has(term);
}

/** A word of two or three Han characters (see ConvIndex.hanChars). */
const SHORT_HAN = /^\p{Script=Han}{2,3}$/u;

/** Adds a posting; true when it is the term's first. */
function post(map: Map<string, Postings>, term: string, doc: number, tf: number): boolean {
  let p = map.get(term);
  const first = !p;
  if (!p) {
    p = new Postings();
    map.set(term, p);
  }
  p.add(doc, tf);
  return first;
}

/**
 * Adds a posting of count 1 unless `doc` holds the term already (a term repeated in a list of
 * concepts or a name's words counts once: documents come in ascending order, so it is the last
 * one posted); true when added. A Set of each event's concepts did the same at a quarter of the
 * cost of indexing a million events.
 */
function postOnce(map: Map<string, Postings>, term: string, doc: number): boolean {
  let p = map.get(term);
  if (!p) {
    p = new Postings();
    map.set(term, p);
  } else if (p.n > 0 && p.lastDoc === doc) return false;
  p.add(doc, 1);
  return true;
}

/**
 * The per-document columns are typed arrays with room to grow: entries at and past `size` are
 * not documents (readers loop to `size`).
 */
export class ConvIndex {
  /** How many documents (events) the index holds. */
  size = 0;
  /** Postings held, all terms together (what the cache that keeps indexes counts). */
  postings = 0;
  /** Event ids, ascending; a document is an index into this. */
  ids = new Float64Array(16);
  /** Words per document (for BM25's length normalisation). */
  lens = new Int32Array(16);
  /** Session ordinal per document (-1 when unknown). */
  sessions = new Int32Array(16);
  /** Epoch milliseconds per document (NaN when unknown). */
  times = new Float64Array(16);
  /** 1 when a document and the next are adjacent turns of one exchange (see adjacent), else 0. */
  linkNext = new Uint8Array(16);
  /** Speaker ordinal per document (-1 when unknown). */
  speakerOf = new Int32Array(16);
  /** 1 when a document's speaker is a person named in a dialogue (IndexedEvent.named). */
  person = new Uint8Array(16);
  /** 1 when a document states a quantity (a number, in digits or words). */
  numeric = new Uint8Array(16);
  /** 1 when a document places what it tells on the day it is said ("I planted tomatoes today"). */
  today = new Uint8Array(16);
  /** 1 when a document asks (src/memory/past-askings.ts). */
  asks = new Uint8Array(16);
  /** 1 when a document is an assistant's reply that says it does not know. */
  abstains = new Uint8Array(16);
  /** 1 when a document is an assistant's turn that says back the turn before it. */
  echoesBefore = new Uint8Array(16);
  /** Distinct words per document. */
  distinct = new Int32Array(16);
  private readonly speakerIds = new Map<string, number>();
  readonly words = new Map<string, Postings>();
  readonly concepts = new Map<string, Postings>();
  readonly speakers = new Map<string, Postings>();
  /**
   * Terms of the names of the people who speak here (`IndexedEvent.named`): in a turn's text such
   * a name mostly addresses that person ("Hey Caroline!"), see LexicalParams.nameInText.
   */
  readonly names = new Set<string>();
  /** Each Han character → the words of two or three Han characters it is in (src/memory/han-parts.ts). */
  readonly hanChars = new Map<string, string[]>();
  totalLen = 0;
  sessionCount = 0;
  /**
   * Session keys → ordinals. By key, not by run: in a person-wide index the conversations'
   * events interleave, and a session goes on after another conversation's event.
   */
  private readonly sessionIds = new Map<string, number>();

  constructor(
    /** Only events with id >= minId belong here (a conversation's current generation). */
    readonly minId: number,
  ) {}

  get lastId(): number {
    return this.size ? (this.ids[this.size - 1] as number) : 0;
  }

  get avgLen(): number {
    return this.size ? Math.max(this.totalLen / this.size, 1) : 1;
  }

  /** Append an event (ids only grow; an id at or below the last is ignored). */
  add(e: IndexedEvent): void {
    if (e.id < this.minId || e.id <= this.lastId) return;
    const doc = this.size;
    if (doc === this.ids.length) {
      this.ids = grown(this.ids, doc + 1);
      this.lens = grown(this.lens, doc + 1);
      this.sessions = grown(this.sessions, doc + 1);
      this.times = grown(this.times, doc + 1);
      this.linkNext = grown(this.linkNext, doc + 1);
      this.speakerOf = grown(this.speakerOf, doc + 1);
      this.person = grown(this.person, doc + 1);
      this.numeric = grown(this.numeric, doc + 1);
      this.today = grown(this.today, doc + 1);
      this.asks = grown(this.asks, doc + 1);
      this.abstains = grown(this.abstains, doc + 1);
      this.echoesBefore = grown(this.echoesBefore, doc + 1);
      this.distinct = grown(this.distinct, doc + 1);
    }
    this.size++;
    this.ids[doc] = e.id;
    this.lens[doc] = e.words.length;
    this.totalLen += e.words.length;
    if (e.session === null) this.sessions[doc] = -1;
    else {
      let s = this.sessionIds.get(e.session);
      if (s === undefined) {
        s = this.sessionCount++;
        this.sessionIds.set(e.session, s);
      }
      this.sessions[doc] = s;
    }
    this.times[doc] = e.time ?? Number.NaN;
    const who = e.speaker.join(" ");
    let sp = who ? this.speakerIds.get(who) : -1;
    if (sp === undefined) {
      sp = this.speakerIds.size;
      this.speakerIds.set(who, sp);
    }
    this.speakerOf[doc] = sp;
    this.person[doc] = e.named ? 1 : 0;
    if (doc > 0 && this.sessions[doc - 1] === this.sessions[doc]) {
      const prev = this.speakerOf[doc - 1] as number;
      this.linkNext[doc - 1] = prev >= 0 && sp >= 0 && prev !== sp ? 1 : 0;
    }
    const counts = new Map<string, number>();
    let numeric = 0;
    for (const w of e.words) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      if (numeric === 0 && isQuantity(w)) numeric = 1;
    }
    this.numeric[doc] = numeric;
    this.today[doc] = e.saysToday ? 1 : 0;
    this.asks[doc] = e.asks ? 1 : 0;
    this.abstains[doc] = e.abstains ? 1 : 0;
    this.echoesBefore[doc] = e.echoesBefore ? 1 : 0;
    this.distinct[doc] = counts.size;
    for (const [t, c] of counts)
      if (post(this.words, t, doc, c) && SHORT_HAN.test(t))
        for (const ch of new Set(t)) {
          const ws = this.hanChars.get(ch);
          if (ws) ws.push(t);
          else this.hanChars.set(ch, [t]);
        }
    this.postings += counts.size;

    for (const t of e.concepts) if (!counts.has(t) && postOnce(this.concepts, t, doc)) this.postings++;
    for (const t of e.speaker)
      if (postOnce(this.speakers, t, doc)) {
        this.postings++;
        if (e.named) this.names.add(t);
      }
  }

  /**
   * Its session and speaker keys in ordinal order (what a snapshot writes,
   * src/memory/index-snapshot.ts), and putting them back into an index restored from one.
   */
  keys(): { sessions: string[]; speakers: string[] } {
    return { sessions: [...this.sessionIds.keys()], speakers: [...this.speakerIds.keys()] };
  }

  restoreKeys(sessions: readonly string[], speakers: readonly string[]): void {
    for (const [i, k] of sessions.entries()) this.sessionIds.set(k, i);
    for (const [i, k] of speakers.entries()) this.speakerIds.set(k, i);
  }

  /** Give back the room each list and column keeps to grow (after loading many events at once). */
  trim(): void {
    for (const map of [this.words, this.concepts, this.speakers]) for (const p of map.values()) p.trim();
  }

  private scoreA = new Float64Array(0);
  private scoreB = new Float64Array(0);

  /**
   * Two zeroed buffers of a score per document, the same memory on every query of this index:
   * a conversation that outgrew its context is scored on every turn (pruning, then cold recall),
   * and fresh arrays of its length each time were garbage that grew with the conversation. Valid
   * until the next call; scoring is synchronous and hands out numbers, never the buffers.
   */
  scoreBuffers(): [Float64Array, Float64Array] {
    if (this.scoreA.length < this.size) {
      this.scoreA = new Float64Array(this.ids.length);
      this.scoreB = new Float64Array(this.ids.length);
    }
    const a = this.scoreA.subarray(0, this.size);
    const b = this.scoreB.subarray(0, this.size);
    a.fill(0);
    b.fill(0);
    return [a, b];
  }

  private countBuf = new Int32Array(0);
  private flagBuf = new Uint8Array(0);

  /**
   * A zeroed count and a zeroed flag per document, the same memory on every query, as
   * scoreBuffers: cutting past askings needs both on every recall, and fresh arrays the length
   * of the person-wide index (every conversation's events) were 5 bytes an event of garbage on
   * every one, growing with the person's memory. Valid until the next call.
   */
  docScratch(): [Int32Array, Uint8Array] {
    if (this.countBuf.length < this.size) {
      this.countBuf = new Int32Array(this.ids.length);
      this.flagBuf = new Uint8Array(this.ids.length);
    }
    const counts = this.countBuf.subarray(0, this.size);
    const flags = this.flagBuf.subarray(0, this.size);
    counts.fill(0);
    flags.fill(0);
    return [counts, flags];
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
    const n = this.size;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }
}
