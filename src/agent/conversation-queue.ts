/**
 * One line per conversation: a job for a conversation starts when the one before it has ended
 * (resolved or thrown), jobs for other conversations run at once. Nothing is kept for a
 * conversation with nothing queued.
 */
export class ConversationQueue {
  /** The tail of each conversation's line: settles when its last job has ended. */
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Run `job` after the conversation's earlier jobs; its result or error is the caller's. */
  run<T>(conv: string, job: () => Promise<T>): Promise<T> {
    const before = this.tails.get(conv) ?? Promise.resolve();
    const result = before.then(job, job);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(conv, tail);
    void tail.then(() => {
      if (this.tails.get(conv) === tail) this.tails.delete(conv);
    });
    return result;
  }
}
