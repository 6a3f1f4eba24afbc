/**
 * How homed writes a moment for people and for the model alike — the memory notes the model
 * reads, memory_search's hits, and the web UI's memory, scenes and knowledge pages — so a date
 * on a page reads as the note it came from does.
 */

/** "2026-12-01 09:05 UTC". */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "2026-12-01". */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
