/** Times as exports write them, to epoch milliseconds. */

/**
 * Below this a number is taken as epoch seconds, from it on as milliseconds: 1e11 seconds is
 * the year 5138, 1e11 milliseconds March 1973 — no chat history is from before then.
 */
const SECONDS_BELOW = 1e11;

/**
 * Epoch milliseconds of an ISO 8601 date (without a zone: the machine's, as JavaScript reads
 * it), or of epoch seconds or milliseconds as a number or a string of digits; null when it is
 * none of these.
 */
export function epochMs(value: string | number): number | null {
  let n: number;
  if (typeof value === "number") n = value;
  else {
    const s = value.trim();
    if (/^-?\d+(\.\d+)?$/.test(s)) n = Number(s);
    else {
      const t = Date.parse(s);
      return Number.isNaN(t) ? null : t;
    }
  }
  if (!Number.isFinite(n)) return null;
  return Math.round(Math.abs(n) < SECONDS_BELOW ? n * 1000 : n);
}
