/**
 * Splits a byte stream into lines (one JSON-RPC frame per line). A line longer than
 * `maxLineBytes` is never buffered whole: its bytes are dropped up to the next newline and the
 * caller is told once, so a peer that never sends a newline cannot grow our memory.
 */
export interface LineSink {
  line(text: string): void;
  oversized(bytes: number): void;
}

export class LineDecoder {
  private parts: Uint8Array[] = [];
  private buffered = 0;
  private skipping = false;
  private skipped = 0;
  private readonly utf8 = new TextDecoder();
  private ended = 0;

  constructor(
    private readonly sink: LineSink,
    public maxLineBytes: number,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.skipping) {
        this.skipped += piece.length;
      } else if (this.buffered + piece.length > this.maxLineBytes) {
        this.skipping = true;
        this.skipped = this.buffered + piece.length;
        this.parts = [];
        this.buffered = 0;
      } else if (piece.length > 0) {
        // Copy: the caller may reuse its buffer after push returns.
        this.parts.push(piece.slice());
        this.buffered += piece.length;
      }
      if (nl === -1) break;
      this.endLine();
      start = nl + 1;
    }
  }

  /**
   * The end of the stream: an unfinished last line is delivered (or reported as oversized) as
   * if a newline followed it.
   */
  end(): void {
    if (this.skipping || this.buffered > 0) this.endLine();
  }

  /**
   * 1-based number of the line being delivered to the sink (inside `line`/`oversized`), or of
   * the last line ended. Blank and oversized lines count, so it matches a text editor's count.
   */
  get lineNumber(): number {
    return this.ended;
  }

  /** Bytes of an unfinished line held right now (0 after a newline). */
  get pendingBytes(): number {
    return this.buffered;
  }

  private endLine(): void {
    this.ended++;
    if (this.skipping) {
      this.sink.oversized(this.skipped);
      this.skipping = false;
      this.skipped = 0;
      return;
    }
    const parts = this.parts;
    this.parts = [];
    const size = this.buffered;
    this.buffered = 0;
    let bytes: Uint8Array;
    if (parts.length === 1) bytes = parts[0] as Uint8Array;
    else {
      bytes = new Uint8Array(size);
      let off = 0;
      for (const p of parts) {
        bytes.set(p, off);
        off += p.length;
      }
    }
    let text = this.utf8.decode(bytes);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() !== "") this.sink.line(text);
  }
}
