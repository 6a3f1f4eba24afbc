/**
 * IANA time zones as the runtime knows them, for plugins that take a zone from the model or a
 * file (schedule's jobs, calendar's events): whether a name is one, and the machine's own.
 */

/** True when the runtime knows `tz` as an IANA time zone. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The machine's time zone (TZ, else the system's), as the runtime resolves it. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
