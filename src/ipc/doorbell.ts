/**
 * The doorbell: one byte over a socket shared by kernel and plugin (a unix socketpair the
 * kernel makes and hands the child as fd 4, so one fd carries bells both ways).
 * A bell means only "look at the segment": the reader wakes from an idle `await` without ever
 * blocking the event loop, and any number of bells before it looks count as one.
 */
import { writeSync } from "node:fs";
import { closeFd } from "./shim.ts";

const BELL = new Uint8Array([1]);

export class Doorbell {
  private closed = false;
  private fdClosed = false;
  private reader: { read(): Promise<{ done: boolean }>; cancel(): Promise<void> } | null = null;
  /** Bells actually written (a full socket buffer already guarantees a wake-up). */
  rung = 0;

  /**
   * `owned`: this doorbell closes `fd` — once, after `close()` and after its reader has been
   * cancelled, so no read or ring can touch the number once it is free for reuse.
   */
  constructor(
    readonly fd: number,
    private readonly owned = false,
  ) {}

  ring(): void {
    if (this.closed) return;
    try {
      writeSync(this.fd, BELL);
      this.rung++;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // EAGAIN: the socket buffer is full of unread bells, so the other side will wake anyway.
      // EPIPE/ECONNRESET/EBADF: the other side is gone; its exit is handled elsewhere.
      if (code !== "EAGAIN" && code !== "EWOULDBLOCK" && code !== "EPIPE" && code !== "ECONNRESET" && code !== "EBADF")
        throw err;
    }
  }

  /**
   * Call `onBell` for every wake-up until the socket closes or `close()` is called. `onBell`
   * must leave nothing pending that it would need another bell for.
   */
  async listen(onBell: () => void): Promise<void> {
    if (this.closed) return;
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

  /** Stop listening and ringing; an owned fd is closed once the reader has let go of it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.reader) {
      this.closeFd();
      return;
    }
    void this.reader
      .cancel()
      .catch(() => {})
      .finally(() => this.closeFd());
  }

  private closeFd(): void {
    if (!this.owned || this.fdClosed) return;
    this.fdClosed = true;
    closeFd(this.fd);
  }
}
