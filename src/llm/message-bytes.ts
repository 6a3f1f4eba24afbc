/**
 * A long conversation sends its whole history with every model call, and from one call to the
 * next that history barely changes: the same messages, a new turn at the end, maybe a recall note
 * or a system prompt that differs. `MessageBytes` keeps the UTF-8 JSON of recent requests'
 * messages and builds the next request from byte runs of the messages it already wrote, writing
 * only those it has not seen (docs/BENCHMARKS.md, the turn-overhead entries: at 10k events a turn's request held
 * ~6,700 messages).
 *
 * Messages are never changed once made (a changed message is a new object; the turn log freezes
 * the ones it keeps), so a message is the same when it is the same object, or when every field
 * the wire reads is equal: role, content, tool call id and name by value, the `toolCalls` and
 * `images` arrays by reference. Only the first test runs over the long history, and it reads the
 * arrays of references, not the messages. Messages are matched in order with a short look-ahead
 * on both sides, so a recall note inserted near the start or a changed system prompt costs only
 * those messages; after several misses in a row (a long turn pruned from the middle) an index
 * of the previous request's messages finds where it goes on. A provider's unit may also be a run
 * of messages it writes as one (Anthropic's turn of same-role neighbours), the same when its
 * messages are.
 */
import type { ChatMessage } from "./types.ts";

/** One request's units and their JSON in one buffer (unit i at starts[i]..ends[i]). */
interface Encoding<U> {
  msgs: readonly U[];
  buf: Uint8Array;
  starts: Uint32Array;
  ends: Uint32Array;
}

/** Messages looked at ahead of a mismatch before a message counts as new. */
const LOOK_AHEAD = 4;

const encoder = new TextEncoder();

type Fields = Partial<Record<"toolCalls" | "images" | "toolCallId" | "name" | "isError", unknown>>;

/** Another message object with every field a wire reads equal (a system prompt made again each turn). */
export function sameMessage(m: ChatMessage, k: ChatMessage): boolean {
  if (m === k) return true;
  const a = m as ChatMessage & Fields;
  const b = k as ChatMessage & Fields;
  return (
    a.role === b.role &&
    a.content === b.content &&
    a.toolCalls === b.toolCalls &&
    a.images === b.images &&
    a.toolCallId === b.toolCallId &&
    a.name === b.name &&
    a.isError === b.isError
  );
}

/**
 * Bytes kept for units of type `U`: a message (OpenAI), or a run of messages the wire joins into
 * one (Anthropic merges neighbours of the same role).
 */
export class MessageBytes<U extends object = ChatMessage> {
  /** Most recently used last. */
  private readonly recent: Encoding<U>[] = [];

  /**
   * @param encodeOne a unit's JSON on the wire, a function of what `same` compares alone
   * @param same whether two different unit objects write the same JSON (`sameMessage` for messages)
   * @param slots requests remembered (conversations answered in turn each keep theirs)
   */
  constructor(
    private readonly encodeOne: (u: U) => string,
    private readonly same: (a: U, b: U) => boolean,
    private readonly slots = 8,
  ) {}

  /** Where `m` is in `msgs[from .. from + LOOK_AHEAD]` (the same object first, then an equal one), or -1. */
  private find(msgs: readonly U[], from: number, m: U): number {
    const to = Math.min(msgs.length, from + LOOK_AHEAD + 1);
    for (let j = from; j < to; j++) if (msgs[j] === m) return j;
    for (let j = from; j < to; j++) if (this.same(m, msgs[j] as U)) return j;
    return -1;
  }

  /** One buffer: `head`, the units' JSON separated by commas, then `tail`. */
  encode(messages: readonly U[], head: string, tail: string): Uint8Array {
    const n = messages.length;
    const prev = this.closest(messages);
    // Per message: its index in the previous request, or -1 and its bytes written now.
    const from = new Int32Array(n).fill(-1);
    const fresh: (Uint8Array | undefined)[] = new Array(n);
    const headBytes = encoder.encode(head);
    const tailBytes = encoder.encode(tail);
    let size = headBytes.length + tailBytes.length + Math.max(0, n - 1);
    let where: Map<U, number> | null = null;
    let misses = 0;
    let j = 0;
    for (let i = 0; i < n; i++) {
      const m = messages[i] as U;
      // Most messages are the very one at the same place in the previous request.
      let at = prev ? (prev.msgs[j] === m ? j : this.find(prev.msgs, j, m)) : -1;
      if (prev && at < 0 && ++misses > LOOK_AHEAD && prev.msgs.length - j > LOOK_AHEAD + 1) {
        where ??= new Map(prev.msgs.map((k, x) => [k, x]));
        const k = where.get(m) ?? -1;
        if (k >= j) at = k;
      }
      if (prev && at >= 0) {
        misses = 0;
        from[i] = at;
        size += (prev.ends[at] as number) - (prev.starts[at] as number);
        j = at + 1;
      } else {
        const bytes = encoder.encode(this.encodeOne(m));
        fresh[i] = bytes;
        size += bytes.length;
      }
    }
    const buf = new Uint8Array(size);
    const starts = new Uint32Array(n);
    const ends = new Uint32Array(n);
    buf.set(headBytes, 0);
    let o = headBytes.length;
    for (let i = 0; i < n; ) {
      if (i > 0) buf[o++] = 0x2c; // ","
      const bytes = fresh[i];
      if (bytes) {
        buf.set(bytes, o);
        starts[i] = o;
        o += bytes.length;
        ends[i] = o;
        i++;
        continue;
      }
      // Messages that were adjacent before are one copy, the commas between them included.
      const p = prev as Encoding<U>;
      let k = i;
      while (k + 1 < n && from[k + 1] === (from[k] as number) + 1) k++;
      const a = p.starts[from[i] as number] as number;
      const b = p.ends[from[k] as number] as number;
      buf.set(p.buf.subarray(a, b), o);
      for (let x = i; x <= k; x++) {
        starts[x] = (p.starts[from[x] as number] as number) - a + o;
        ends[x] = (p.ends[from[x] as number] as number) - a + o;
      }
      o += b - a;
      i = k + 1;
    }
    buf.set(tailBytes, o);
    this.remember(prev, { msgs: messages.slice(), buf, starts, ends });
    return buf;
  }

  /** The remembered request sharing the most of these messages' first few. */
  private closest(messages: readonly U[]): Encoding<U> | null {
    let best: Encoding<U> | null = null;
    let bestHits = 0;
    const probe = Math.min(messages.length, LOOK_AHEAD * 2);
    for (const e of this.recent) {
      let hits = 0;
      for (let i = 0; i < probe; i++) if (this.find(e.msgs, Math.max(0, i - LOOK_AHEAD), messages[i] as U) >= 0) hits++;
      // Ties go to the newer one (the list is oldest first).
      if (hits > 0 && hits >= bestHits) {
        best = e;
        bestHits = hits;
      }
    }
    return best;
  }

  private remember(replaced: Encoding<U> | null, e: Encoding<U>): void {
    const at = replaced ? this.recent.indexOf(replaced) : -1;
    if (at >= 0) this.recent.splice(at, 1);
    else if (this.recent.length >= this.slots) this.recent.shift();
    this.recent.push(e);
  }
}
