/**
 * Wait for a condition by asking again — the one loop the suites use for state they cannot be
 * told about (a plugin's restart, a background job). It never falls through: on timeout it
 * throws, naming what it waited for and the last value it saw.
 */
export interface PollOptions {
  /** How long to keep asking (default 15 s). */
  timeoutMs?: number;
  /** Pause between asks (default 20 ms). */
  intervalMs?: number;
  /** What is being waited for, for the error message. */
  what: string;
}

/** Call `fn` until `until(value)` holds and return that value; throw after `timeoutMs`. */
export async function poll<T>(fn: () => T | Promise<T>, until: (value: T) => boolean, opts: PollOptions): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  for (;;) {
    const value = await fn();
    if (until(value)) return value;
    if (Date.now() > deadline) {
      let seen: string;
      try {
        seen = JSON.stringify(value)?.slice(0, 500) ?? String(value);
      } catch {
        seen = String(value);
      }
      throw new Error(`timed out after ${opts.timeoutMs ?? 15_000} ms waiting for ${opts.what}; last seen: ${seen}`);
    }
    await Bun.sleep(opts.intervalMs ?? 20);
  }
}
