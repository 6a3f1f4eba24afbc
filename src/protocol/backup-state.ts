/** The last backup as every surface shows it (`homed status`, the web UI's plugins page). */
import type { BackupStateView } from "./control.ts";

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** "to /backups/homed-… (ok, 1204 events, 3.1 MiB, 0.4 s)", or why it failed; `when` says when. */
export function formatBackup(b: BackupStateView, when: string): string {
  return b.ok
    ? `last backup ${when} to ${b.dest}: ok (${b.events ?? "?"} events, ${mib(b.bytes ?? 0)}, ${(b.seconds ?? 0).toFixed(1)} s)`
    : `last backup ${when} to ${b.dest}: FAILED: ${b.error ?? "unknown error"}`;
}

/** What to say when no backup was ever taken. */
export const NO_BACKUP = "no backup yet: homed backup DEST, or [backup] dir in config.toml for scheduled ones";
