/**
 * A bounded record of one output stream: the first half of the budget and the last half are
 * kept, the middle is counted and dropped. A command that prints a gigabyte costs the plugin
 * `limit` bytes, and the model still sees how it started and how it ended.
 */

export class OutputCapture {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private head: Uint8Array[] = [];
  private headBytes = 0;
  /** The last bytes seen, as chunks; trimmed from the front to at most tailLimit bytes. */
  private tail: Uint8Array[] = [];
  private tailBytes = 0;
  /** Every byte the stream carried. */
  total = 0;

  constructor(limitBytes: number) {
    this.headLimit = Math.ceil(limitBytes / 2);
    this.tailLimit = Math.floor(limitBytes / 2);
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(rest.slice(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    if (rest.length >= this.tailLimit) {
      this.tail = [rest.slice(rest.length - this.tailLimit)];
      this.tailBytes = this.tailLimit;
      return;
    }
    this.tail.push(rest.slice());
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0] as Uint8Array;
      const over = this.tailBytes - this.tailLimit;
      if (first.length <= over) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(over);
        this.tailBytes -= over;
      }
    }
  }

  /** Bytes neither in the head nor in the tail. */
  get cut(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  /** Bytes kept (head and tail). */
  get kept(): number {
    return this.headBytes + this.tailBytes;
  }

  /**
   * The kept text, at most `limit` bytes of it (half from each end), with a line saying how
   * much of the middle was cut when any was.
   */
  text(limit = this.kept): string {
    const headLimit = Math.ceil(limit / 2);
    const tailLimit = limit - headLimit;
    let head: Uint8Array;
    let tail: Uint8Array;
    if (this.cut === 0 && this.kept <= limit) {
      head = concat([...this.head, ...this.tail]);
      tail = new Uint8Array(0);
    } else if (this.cut === 0) {
      const whole = concat([...this.head, ...this.tail]);
      head = whole.subarray(0, headLimit);
      tail = whole.subarray(whole.length - tailLimit);
    } else {
      head = concat(this.head).subarray(0, headLimit);
      const all = concat(this.tail);
      tail = all.subarray(Math.max(0, all.length - tailLimit));
    }
    const cut = this.total - head.length - tail.length;
    const decoder = new TextDecoder();
    if (cut === 0) return decoder.decode(head);
    return `${decoder.decode(head)}\n[… ${cut} bytes cut; ${this.total} bytes in all …]\n${decoder.decode(tail)}`;
  }

  /** The last `bytes` bytes seen (at most what the tail keeps), for a job's output tail. */
  lastText(bytes: number): string {
    const all = this.cut === 0 ? [...this.head, ...this.tail] : this.tail;
    const joined = concat(all);
    const start = Math.max(0, joined.length - bytes);
    const prefix = start > 0 || this.cut > 0 ? `[… last ${joined.length - start} of ${this.total} bytes …]\n` : "";
    return prefix + new TextDecoder().decode(joined.subarray(start));
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** Read `stream` to its end into `capture`. */
export async function drainInto(stream: ReadableStream<Uint8Array>, capture: OutputCapture): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      capture.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}
