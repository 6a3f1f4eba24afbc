/**
 * The crash policy of the original, shared by the plugin supervisor and by plugins that
 * supervise processes of their own (MCP servers): restart after 1 s, 2 s, 3 s; the 4th crash
 * within 5 minutes stops automatic restarts until a person intervenes.
 */
export const RESTART_DELAYS_MS = [1000, 2000, 3000] as const;
export const CRASH_WINDOW_MS = 5 * 60 * 1000;
/** The crash that stops automatic restarts: the 4th within the window. */
export const MAX_CRASHES = RESTART_DELAYS_MS.length + 1;

/**
 * Record a crash at `now`. Returns the crash times still in the window (this one included) and
 * the delay before restarting, or null when restarts must stop.
 */
export function afterCrash(crashes: readonly number[], now: number): { crashes: number[]; delayMs: number | null } {
  const recent = crashes.filter((t) => now - t < CRASH_WINDOW_MS);
  recent.push(now);
  const delayMs = recent.length >= MAX_CRASHES ? null : (RESTART_DELAYS_MS[recent.length - 1] as number);
  return { crashes: recent, delayMs };
}

/** Crashes that still count at `now`. */
export function crashesInWindow(crashes: readonly number[], now: number): number {
  return crashes.filter((t) => now - t < CRASH_WINDOW_MS).length;
}
