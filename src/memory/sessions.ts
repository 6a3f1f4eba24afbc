/**
 * Sessions of a conversation, as memory indexes them: a run of turns said together. A message
 * whose source named its session (an import, `homed recall`'s index ops) is in that one; any
 * other event is in the session of the conversation's previous indexed event when at most
 * SESSION_GAP_MS passed since it, else it starts a new one — LongMemEval's and LoCoMo's sessions
 * are exactly such runs, days apart, and a person coming back to a chat after lunch starts one.
 * A session's turns rank together a little (src/memory/relevance.ts) and two adjacent turns of
 * different speakers in one are an exchange (src/memory/conv-index.ts).
 */
import type { EventTerms } from "../store/event-terms.ts";

/** Time that separates two sessions of a conversation (the usual cut for a visit). */
export const SESSION_GAP_MS = 30 * 60_000;

/** Conversations whose last session is remembered at once (the rest are read back when needed). */
const REMEMBERED = 1024;

interface Last {
  key: string;
  /** Epoch milliseconds; NaN when unknown. */
  time: number;
  /** Whether the source named the session (then a later unnamed event starts its own). */
  named: boolean;
}

export class SessionClock {
  private readonly last = new Map<string, Last>();

  constructor(private readonly terms: Pick<EventTerms, "last">) {}

  /** Forget what is remembered (before the index is rebuilt from the log). */
  clear(): void {
    this.last.clear();
  }

  /**
   * The session key of event `id` of `conv` at `time` (NaN: unknown), `named` by its source or
   * not. Call in id order within a conversation.
   */
  key(conv: string, id: number, time: number, named: string | number | null | undefined): string {
    const prev = this.previous(conv);
    let key: string;
    if (named !== undefined && named !== null) key = `s:${named}`;
    else if (prev && !prev.named && time - prev.time <= SESSION_GAP_MS) key = prev.key;
    else key = `t:${id}`;
    this.last.delete(conv);
    this.last.set(conv, { key, time, named: named !== undefined && named !== null });
    if (this.last.size > REMEMBERED) this.last.delete(this.last.keys().next().value as string);
    return key;
  }

  private previous(conv: string): Last | undefined {
    const known = this.last.get(conv);
    if (known) return known;
    const last = this.terms.last(conv);
    if (last === undefined) return undefined;
    const t = JSON.parse(last) as { se?: string; t?: number };
    if (!t.se) return undefined;
    return { key: t.se, time: t.t ?? Number.NaN, named: t.se.startsWith("s:") };
  }
}
