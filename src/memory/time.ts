/** Times as conversation sets write them, to epoch milliseconds. */

/** "1:56 pm on 8 May, 2023" (LoCoMo): a clock time, "on", then the date. */
const CLOCK_ON_DATE = /^\s*(\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?)\s+on\s+(.+)$/i;

/**
 * Epoch milliseconds of `t`: a number is taken as milliseconds (seconds when below 1e11, i.e.
 * before 1973 as milliseconds); a string is anything Date.parse reads ("2023/05/30 (Tue) 23:40",
 * ISO-8601) or a clock time before its date. Null when it is neither.
 */
export function parseTime(t: string | number | null | undefined): number | null {
  if (t === undefined || t === null) return null;
  if (typeof t === "number") return Number.isFinite(t) ? (Math.abs(t) < 1e11 ? t * 1000 : t) : null;
  let ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    const m = CLOCK_ON_DATE.exec(t);
    if (m) ms = Date.parse(`${m[2]} ${(m[1] as string).replace(/\./g, "")}`);
  }
  return Number.isNaN(ms) ? null : ms;
}
