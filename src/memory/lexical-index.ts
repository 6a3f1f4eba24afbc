/**
 * The lexical side of memory: every indexed event's words (src/embed/tokenizer.ts), the concepts
 * they stand for, its speaker, session and time are kept in `event_terms` (one row per event,
 * the derived data a restart reloads) and in an in-memory index per conversation
 * (src/memory/conv-index.ts) that scoring reads. A conversation is loaded on its first query and
 * then extended as events are added, so a query over 100k events reads nothing from disk. What
 * stays loaded is bounded by conversations and by postings (CACHED_POSTINGS), least recently
 * queried dropped first.
 */
import type { Tokenizer } from "../embed/tokenizer.ts";
import { ConvIndex, type IndexedEvent } from "./conv-index.ts";
import { readEventBody } from "../protocol/event-bodies.ts";
import { bodyText, eventSpeaker, speakerIsPerson } from "./event-text.ts";
import { SessionClock } from "./sessions.ts";
import { asks, tellsNothing } from "./past-askings.ts";
import { parseTime, saysToday } from "./time.ts";
import { withBlockTexts } from "../store/block-records.ts";
import type { EventTerms, LoggedEvent } from "../store/event-terms.ts";

export interface Scored {
  id: number;
  score: number;
}

/** What an event carries besides its text. */
export interface EventMeta {
  speaker?: string;
  session?: string | number | null;
  /** Epoch milliseconds. */
  time?: number | null;
  /** Whether `speaker` is a person's name, not a role or a plugin (event-text.ts speakerIsPerson). */
  person?: boolean;
}

/**
 * The layout of `event_terms.terms`, and of the words the tokenizer makes (3: irregular past forms
 * as their verb; 4: with the texts of the event's blocks; 5: every event with its speaker, session
 * and time, src/memory/sessions.ts; 6: whether it asks or says it does not know; 7: whether it says
 * back the turn before, past-askings.ts; 8: whether its speaker is a person named in a dialogue,
 * not a role or a plugin; 9: "today" also read from "just" before a past form, 刚, time.ts
 * saysToday; 10: the concepts of every CC-CEDICT sense, scripts/build-lexicon.ts, and a reply that
 * only acknowledges tells nothing, like one that says it does not know); rows of another
 * layout are re-made from the log.
 */
export const LEXICAL_FORMAT = "10";

interface StoredTerms {
  /** Words, space-separated (no term holds a space). */
  w: string;
  /** Concepts of those words, space-separated. */
  c: string;
  sp?: string;
  se?: string;
  t?: number;
  /** 1 when the text places what it tells on the day it is said ("today", "I just got back", 今天, 刚: time.ts). */
  td?: number;
  /** 1 when the text asks (past-askings.ts). */
  q?: number;
  /** 1 when it is an assistant's reply that tells nothing: it says it does not know, or only acknowledges (past-askings.ts). */
  ab?: number;
  /** 1 when it is an assistant's turn that says back the person's turn before it (echoes). */
  eo?: number;
  /** 1 when `sp` is a person's name, not a role or a plugin (IndexedEvent.named). */
  nm?: number;
}

/** Conversations kept in memory at once (least recently queried dropped first). */
const CACHED_CONVERSATIONS = 64;
/**
 * Postings the cached conversations may hold together before the least recently queried are
 * dropped (the one being queried stays, however large): ~2 bytes each as varints with room to
 * grow, so at most ~16 MiB of postings whatever the conversations' length. A 100k-event
 * conversation holds ~1.5M; the soak's 20 busy conversations ~1.5M after ten minutes together.
 */
export const CACHED_POSTINGS = 4_000_000;

export class LexicalIndex {
  private readonly convs = new Map<string, ConvIndex>();
  private readonly sessions: SessionClock;
  /** Per conversation, the last event indexed: who said it, its session and words (see echoes). */
  private readonly previous = new Map<string, { speaker: string; session: string | null; words: Set<string> }>();

  constructor(
    private readonly terms: EventTerms,
    private readonly tokenizer: Tokenizer,
    /** See CACHED_POSTINGS (tests set a small one). */
    private readonly maxPostings = CACHED_POSTINGS,
  ) {
    this.sessions = new SessionClock(terms);
    if (terms.format() !== LEXICAL_FORMAT) this.rebuild();
  }

  /**
   * Re-make every row from the log when the layout (or the tokenizer behind it) changed: the
   * index is derived data. Earlier layouts also filled `event_fts` and `term_df`; they are
   * emptied, nothing reads them any more.
   */
  private rebuild(): void {
    this.terms.rebuild(LEXICAL_FORMAT, (rows) => {
      this.sessions.clear();
      this.previous.clear();
      for (const r of rows) this.addEvent(r);
    });
  }

  /**
   * Index a logged event as memory knows it: its text (with what its blocks carry: a caption, a
   * file name, alt text, so "the photo of the red bike" finds the photo), who said it, its
   * session and its time — the same for a chat turn, an imported message, a `homed recall` index
   * op and a rebuild. Returns the text indexed, or null for an event memory does not index.
   * Call in id order within a conversation, inside the transaction that appended it or after.
   */
  addEvent(e: LoggedEvent): string | null {
    const r = readEventBody(e.kind, e.body);
    const text = r ? bodyText(r) : null;
    if (r === null || text === null) return null;
    const full = withBlockTexts(text, this.terms.blockTexts(e.id));
    // A turn of an earlier `homed recall` data dir carries its time in its body.
    const time = r.kind === "recall-turn" ? (parseTime(r.body.time) ?? Number.NaN) : e.ts;
    const named =
      r.kind === "recall-turn" || r.kind === "user-message" || r.kind === "agent-reply" ? r.body.session : null;
    this.add(e.id, e.conv, full, {
      speaker: eventSpeaker(r, e.actor),
      person: speakerIsPerson(r),
      session: this.sessions.key(e.conv, e.id, time, named),
      time: Number.isNaN(time) ? null : time,
    });
    return full;
  }

  /**
   * The words of a text and the concepts they stand for (see Tokenizer); concepts exclude the
   * words. Terms in `names` (people's names) stand for no concept: Maya is not an illusion, nor
   * John a toilet.
   */
  /** Chinese text is segmented already (Tokenizer.segmentsHan): analysing more of it costs no new memory. */
  get segmentsHan(): boolean {
    return this.tokenizer.segmentsHan;
  }

  analyse(text: string, names?: ReadonlySet<string>): { words: string[]; concepts: string[] } {
    const each = this.analyseEach(text, names);
    const words = each.map((w) => w.term);
    const own = new Set(words);
    const concepts = new Set<string>();
    for (const w of each) for (const c of w.concepts) if (!own.has(c)) concepts.add(c);
    return { words, concepts: [...concepts] };
  }

  /** How much an index term says in general use, 0–1 (Tokenizer.commonness). */
  commonness(term: string): number {
    return this.tokenizer.commonness(term);
  }

  /** Each word of a text, in order, with the concepts it stands for (as `analyse`, word by word). */
  analyseEach(
    text: string,
    names?: ReadonlySet<string>,
  ): { term: string; surface: string; concepts: readonly string[] }[] {
    return this.tokenizer.words(text).map((w) => ({
      term: w.term,
      surface: w.surface,
      concepts: names?.has(w.term) ? [] : this.tokenizer.concepts(w.surface),
    }));
  }

  /** Index one event's text. Call inside the transaction that appended the event, or after it. */
  add(eventId: number, conv: string, text: string, meta: EventMeta = {}): void {
    const { words, concepts } = this.analyse(text);
    const stored: StoredTerms = { w: words.join(" "), c: concepts.join(" ") };
    if (meta.speaker) stored.sp = meta.speaker;
    if (meta.speaker && meta.person) stored.nm = 1;
    if (saysToday(text)) stored.td = 1;
    if (asks(text)) stored.q = 1;
    if (meta.speaker === "assistant" && tellsNothing(text)) stored.ab = 1;
    if (meta.speaker === "assistant" && this.echoes(conv, words, meta.session)) stored.eo = 1;
    if (meta.session !== undefined && meta.session !== null) stored.se = String(meta.session);
    if (typeof meta.time === "number" && Number.isFinite(meta.time)) stored.t = meta.time;
    this.terms.put(eventId, conv, words.length, JSON.stringify(stored));
    this.previous.delete(conv);
    this.previous.set(conv, { speaker: meta.speaker ?? "", session: stored.se ?? null, words: new Set(words) });
    if (this.previous.size > 1024) this.previous.delete(this.previous.keys().next().value as string);
    this.convs.get(conv)?.add(this.indexed(eventId, stored, words, concepts));
  }

  /**
   * Whether an assistant's turn only says back what the person's turn before it said ("Nice
   * bike!" after "My bike is a red Gazelle"): half or more of its words are that turn's.
   */
  private echoes(conv: string, words: readonly string[], session: string | number | null | undefined): boolean {
    let prev = this.previous.get(conv);
    if (!prev) {
      const last = this.terms.last(conv);
      if (last === undefined) return false;
      const t = JSON.parse(last) as StoredTerms;
      prev = { speaker: t.sp ?? "", session: t.se ?? null, words: new Set(t.w ? t.w.split(" ") : []) };
    }
    if (!prev.speaker || prev.speaker === "assistant" || prev.session !== (session == null ? null : String(session)))
      return false;
    const own = new Set(words);
    if (own.size === 0) return false;
    let shared = 0;
    for (const w of own) if (prev.words.has(w)) shared++;
    return shared / own.size >= 0.5;
  }

  /** An event as an index takes it, from its stored `event_terms.terms` (indexes over other scopes). */
  fromStored(id: number, terms: string): IndexedEvent {
    return this.indexed(id, JSON.parse(terms) as StoredTerms);
  }

  private indexed(id: number, s: StoredTerms, words?: string[], concepts?: string[]): IndexedEvent {
    return {
      id,
      words: words ?? (s.w ? s.w.split(" ") : []),
      concepts: concepts ?? (s.c ? s.c.split(" ") : []),
      speaker: s.sp ? this.speakerTerms(s.sp) : [],
      named: s.nm === 1,
      session: s.se ?? null,
      time: s.t ?? null,
      saysToday: s.td === 1,
      asks: s.q === 1,
      abstains: s.ab === 1,
      echoesBefore: s.eo === 1,
    };
  }

  /** Speakers' names as terms, by name: a few names say every event's speaker ("user", "assistant"). */
  private readonly speakers = new Map<string, string[]>();

  private speakerTerms(name: string): string[] {
    let t = this.speakers.get(name);
    if (!t) {
      t = this.tokenizer.tokens(name);
      // Names of a dialogue between many people: kept while they are few.
      if (this.speakers.size < 4096) this.speakers.set(name, t);
    }
    return t;
  }

  /** The in-memory index of `conv`'s events with id >= minId, brought up to date. */
  conv(conv: string, minId = 0): ConvIndex {
    let c = this.convs.get(conv);
    if (c) this.convs.delete(conv);
    if (!c || c.minId !== minId) c = new ConvIndex(minId);
    this.convs.set(conv, c); // most recently queried last
    const rows = this.terms.ofConversation(conv, Math.max(minId, c.lastId + 1));
    for (const r of rows) c.add(this.indexed(r.event_id, JSON.parse(r.terms) as StoredTerms));
    this.evict(c);
    return c;
  }

  /** Drop the least recently queried conversations beyond the cache's bounds, never `keep`. */
  private evict(keep: ConvIndex): void {
    let postings = 0;
    for (const c of this.convs.values()) postings += c.postings;
    for (const [name, c] of this.convs) {
      if (c === keep || (this.convs.size <= CACHED_CONVERSATIONS && postings <= this.maxPostings)) break;
      this.convs.delete(name);
      postings -= c.postings;
    }
  }

  /** Postings held by the cached conversations, all together (status, tests). */
  get cachedPostings(): number {
    let n = 0;
    for (const c of this.convs.values()) n += c.postings;
    return n;
  }
}
