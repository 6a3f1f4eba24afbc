/** The human form of a daemon's status, shared by `homed status` and `waiter status`. */
import type { StatusResult } from "../protocol/control.ts";

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [d && `${d}d`, (d || h) && `${h}h`, (d || h || m) && `${m}m`, `${s % 60}s`].filter(Boolean);
  return parts.join("");
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

export function formatStatus(st: StatusResult): string {
  return [
    `homed ${st.version} running (pid ${st.pid}, up ${formatDuration(st.uptimeMs)}, ${st.arch})`,
    `  data     ${st.dataDir}`,
    `  listen   ${st.listen}`,
    `  store    ${st.store.path}  schema v${st.store.schemaVersion}, ${st.store.events} events, ${formatBytes(st.store.sizeBytes)}`,
  ].join("\n");
}
