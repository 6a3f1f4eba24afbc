/**
 * Conversations gathered into `memory.import` calls for `homed import`. A call is one
 * transaction in the daemon, which answers nothing else meanwhile, and one control-socket frame
 * (at most 4 MiB), so calls are kept small; a conversation goes whole into one call unless it
 * alone is over a call's hard limit, when it is sent in parts (each its own transaction; an
 * import cut short between them is completed by importing again, which adds only what is
 * missing).
 */
import type { ImportedConversation } from "../protocol/import.ts";

export interface BatchLimits {
  /** A call is sent once adding the next conversation would pass these. */
  messages: number;
  bytes: number;
  /** A conversation over these is split. */
  hardMessages: number;
  hardBytes: number;
}

/**
 * A call of 1,000 messages takes the daemon about 50 ms (150 ms for its first, before the JIT
 * warms up): short enough for a chat turn to wait behind, and 250 or 4,000 a call import no
 * faster (docs/BENCHMARKS.md, "2026-12-05, import"). Bytes are estimated at 3 per character
 * (UTF-8 of CJK text), so the hard limit keeps a frame under the socket's 4 MiB.
 */
export const DEFAULT_BATCH_LIMITS: BatchLimits = {
  messages: 1000,
  bytes: 1 << 20,
  hardMessages: 5000,
  hardBytes: 3 << 20,
};

/** A generous estimate of a message's bytes in the call's JSON. */
const bytesOf = (m: ImportedConversation["messages"][number]) => m.text.length * 3 + 200;

export class ImportBatches {
  private batch = new Map<string, ImportedConversation>();
  private messages = 0;
  private bytes = 0;
  /** The call in flight: the next batch is gathered while the daemon takes this one. */
  private inFlight: Promise<void> = Promise.resolve();
  /** Why the call in flight failed: thrown from the next flush (held so it is never unhandled). */
  private failed: { err: unknown } | null = null;

  constructor(
    private readonly send: (conversations: ImportedConversation[]) => Promise<void>,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
  ) {}

  /** Add a conversation (or more messages of one already added: JSON lines come a message at a time). */
  async add(c: ImportedConversation): Promise<void> {
    if (c.messages.length === 0) return;
    let bytes = 0;
    for (const m of c.messages) bytes += bytesOf(m);
    const l = this.limits;
    if (this.messages + c.messages.length > l.messages || this.bytes + bytes > l.bytes) await this.flush();
    if (c.messages.length <= l.hardMessages && bytes <= l.hardBytes) {
      this.put(c, c.messages, bytes);
      return;
    }
    // Alone too large for a call: in parts, in order.
    let part: ImportedConversation["messages"] = [];
    let partBytes = 0;
    for (const m of c.messages) {
      const b = bytesOf(m);
      if (part.length > 0 && (part.length + 1 > l.hardMessages || partBytes + b > l.hardBytes)) {
        this.put(c, part, partBytes);
        await this.flush();
        part = [];
        partBytes = 0;
      }
      part.push(m);
      partBytes += b;
    }
    if (part.length > 0) this.put(c, part, partBytes);
  }

  private put(c: ImportedConversation, messages: ImportedConversation["messages"], bytes: number): void {
    const held = this.batch.get(c.conv);
    if (held) held.messages.push(...messages);
    else this.batch.set(c.conv, { ...c, messages: [...messages] });
    this.messages += messages.length;
    this.bytes += bytes;
  }

  /** Send what is gathered (after the call in flight has been answered). */
  async flush(): Promise<void> {
    await this.settled();
    if (this.batch.size === 0) return;
    const conversations = [...this.batch.values()];
    this.batch = new Map();
    this.messages = 0;
    this.bytes = 0;
    this.inFlight = this.send(conversations).catch((err: unknown) => {
      this.failed = { err };
    });
  }

  private async settled(): Promise<void> {
    await this.inFlight;
    if (this.failed) throw this.failed.err;
  }

  /** Send the rest and wait for every answer. */
  async end(): Promise<void> {
    await this.flush();
    await this.settled();
  }
}
