/**
 * Approval questions in the owner's private chat: the question goes out as a message, and the
 * owner's next "y" or "n" there answers it (anything else is a new message, as usual). Only the
 * owner's own turns ask: group and stranger turns are non-interactive (denied by policy).
 */
export class PrivateApprovals {
  /** Per private peer, the questions waiting, oldest first. */
  private readonly waiting = new Map<number, { callId: string; resolve(ok: boolean): void }[]>();

  /** Ask: resolves when the owner answers or the turn ends (`dropAll`). */
  ask(peer: number, callId: string): Promise<boolean> {
    return new Promise((resolve) => {
      const list = this.waiting.get(peer) ?? [];
      list.push({ callId, resolve });
      this.waiting.set(peer, list);
    });
  }

  /** If `text` answers a waiting question of `peer`, answer it and return true. */
  answer(peer: number, text: string): boolean {
    const list = this.waiting.get(peer);
    const word = text.trim().toLowerCase();
    const yes = ["y", "yes", "是", "好"].includes(word);
    const no = ["n", "no", "否", "不"].includes(word);
    if (!list?.length || (!yes && !no)) return false;
    const q = list.shift() as { resolve(ok: boolean): void };
    if (!list.length) this.waiting.delete(peer);
    q.resolve(yes);
    return true;
  }

  /** The turn of `peer` ended: questions still open are answered no. */
  drop(peer: number, callIds: readonly string[]): void {
    const list = this.waiting.get(peer);
    if (!list) return;
    for (const q of list.filter((x) => callIds.includes(x.callId))) q.resolve(false);
    const left = list.filter((x) => !callIds.includes(x.callId));
    if (left.length) this.waiting.set(peer, left);
    else this.waiting.delete(peer);
  }
}
