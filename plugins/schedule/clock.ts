/**
 * Time as the scheduler sees it. Production is the system clock. Tests of the built binary
 * cannot reach into a plugin process, so the daemon forwards HOMED_TEST_CLOCK_FILE (only when
 * it is set in its own environment) and the plugin then reads "now" from that file: a test
 * writes a later time into it to move the scheduler forward. Nothing else reads the file, and
 * without the variable this module never touches it.
 */
import { readFileSync } from "node:fs";

export interface SchedulerClock {
  now(): number;
  /** Call `fn` once `now()` has reached `at`; returns a function that cancels it. */
  wakeAt(at: number, fn: () => void): () => void;
  /** Stop the clock's own timers (shutdown). */
  close(): void;
}

/**
 * The longest the real clock sleeps in one go: a suspended laptop or a changed system time is
 * noticed within a minute, and setTimeout's 24.8-day ceiling is never approached.
 */
const MAX_SLEEP_MS = 60_000;

export function systemClock(): SchedulerClock {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    now: () => Date.now(),
    wakeAt(at, fn) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        const ms = at - Date.now();
        if (ms <= 0) {
          timer = undefined;
          fn();
          return;
        }
        timer = setTimeout(
          () => {
            if (timer) timers.delete(timer);
            arm();
          },
          Math.min(ms, MAX_SLEEP_MS),
        );
        timers.add(timer);
      };
      arm();
      return () => {
        if (timer) {
          clearTimeout(timer);
          timers.delete(timer);
        }
      };
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

/** How often the test clock's file is read. */
const FILE_POLL_MS = 50;

/** "Now" from `path` (milliseconds since the epoch, or an ISO time); wakes are checked at each read. */
export function fileClock(path: string): SchedulerClock {
  const read = (): number => {
    const text = readFileSync(path, "utf8").trim();
    const t = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (!Number.isFinite(t)) throw new Error(`HOMED_TEST_CLOCK_FILE ${path} holds no time: "${text}"`);
    return t;
  };
  let now = read();
  const wakes = new Set<{ at: number; fn: () => void }>();
  const poll = setInterval(() => {
    try {
      now = read();
    } catch {
      return; // a half-written file: read it again next time
    }
    for (const w of [...wakes].sort((a, b) => a.at - b.at)) if (w.at <= now && wakes.delete(w)) w.fn();
  }, FILE_POLL_MS);
  return {
    now: () => now,
    wakeAt(at, fn) {
      const w = { at, fn };
      wakes.add(w);
      return () => wakes.delete(w);
    },
    close() {
      clearInterval(poll);
      wakes.clear();
    },
  };
}
