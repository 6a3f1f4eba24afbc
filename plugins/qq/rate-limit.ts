/**
 * Turns per group per minute: a sliding window of start times per group. Over the limit a group
 * is told once per window, then ignored until a slot frees: a busy group cannot make homed spam.
 */
export class GroupRateLimit {
  private readonly starts = new Map<number, number[]>();
  private readonly told = new Set<number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** "ok": take a slot; "tell": over the limit, say so once; "quiet": over it, already said. */
  take(group: number): "ok" | "tell" | "quiet" {
    const t = this.now();
    const recent = (this.starts.get(group) ?? []).filter((s) => t - s < 60_000);
    if (recent.length < this.perMinute) {
      recent.push(t);
      this.starts.set(group, recent);
      this.told.delete(group);
      return "ok";
    }
    this.starts.set(group, recent);
    if (this.told.has(group)) return "quiet";
    this.told.add(group);
    return "tell";
  }
}
