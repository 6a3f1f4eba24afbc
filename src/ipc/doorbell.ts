/**
 * The doorbell: one byte over a socket shared by kernel and plugin (the extra "pipe" that
 * Bun.spawn hands the child as fd 4 is a unix socketpair, so one fd carries bells both ways).
 * A bell means only "look at the segment": the reader wakes from an idle `await` without ever
 * blocking the event loop, and any number of bells before it looks count as one.
 */
import { writeSync } from "node:fs";

const BELL = new Uint8Array([1]);

export class Doorbell {
  private closed = false;
  private reader: { read(): Promise<{ done: boolean }>; cancel(): Promise<void> } | null = null;
  /** Bells actually written (a full socket buffer already guarantees a wake-up). */
  rung = 0;

  constructor(readonly fd: number) {}

  ring(): void {
    if (this.closed) return;
    try {
      writeSync(this.fd, BELL);
      this.rung++;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // EAGAIN: the socket buffer is full of unread bells, so the other side will wake anyway.
      // EPIPE/ECONNRESET/EBADF: the other side is gone; its exit is handled elsewhere.
      if (code !== "EAGAIN" && code !== "EWOULDBLOCK" && code !== "EPIPE" && code !== "ECONNRESET" && code !== "EBADF") throw err;
    }
  }

  /**
   * Call `onBell` for every wake-up until the socket closes or `close()` is called. `onBell`
   * must leave nothing pending that it would need another bell for.
   */
  async listen(onBell: () => void): Promise<void> {
    const reader = Bun.file(this.fd).stream().getReader();
    this.reader = reader;
    try {
      while (!this.closed) {
        const { done } = await reader.read();
        if (done || this.closed) break;
        onBell();
      }
    } catch (err) {
      if (!this.closed) throw err;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.reader?.cancel().catch(() => {});
  }
}
