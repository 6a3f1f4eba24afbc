/**
 * Turns per peer per minute (a group, or a stranger's private chat): a sliding window of start
 * times per peer. Over the limit a peer is told once per window, then ignored until a slot
 * frees: a busy group or a flooding stranger cannot make homed spam, nor spend the model.
 */
export class PeerRateLimit {
  private readonly starts = new Map<string, number[]>();
  private readonly told = new Set<string>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** "ok": take a slot; "tell": over the limit, say so once; "quiet": over it, already said. */
  take(peer: string): "ok" | "tell" | "quiet" {
    const t = this.now();
    const recent = (this.starts.get(peer) ?? []).filter((s) => t - s < 60_000);
    if (recent.length < this.perMinute) {
      recent.push(t);
      this.starts.set(peer, recent);
      this.told.delete(peer);
      return "ok";
    }
    this.starts.set(peer, recent);
    if (this.told.has(peer)) return "quiet";
    this.told.add(peer);
    return "tell";
  }
}
