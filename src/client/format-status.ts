/** The human form of a daemon's status, shared by `homed status` and `waiter status`. */
import type { ChannelStatus, StatusResult } from "../protocol/control.ts";
import { formatBackup, NO_BACKUP } from "../protocol/backup-state.ts";
import type { PluginInfo } from "../protocol/plugin.ts";
import { formatUsage } from "../protocol/usage.ts";

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
    `  model    ${st.llm.configured ? `${st.llm.provider} ${st.llm.model} at ${st.llm.baseURL} (key ${st.llm.hasKey ? st.llm.keyHint : "none"})` : "not configured (homed provider, or the web UI)"}`,
    `  memory   ${st.memory.embedder ? `dense model ${st.memory.embedder} (${st.memory.vectorsMade} vectors made${st.memory.imageVectorsMade ? `, ${st.memory.imageVectorsMade} of images` : ""}${st.memory.audioVectorsMade ? `, ${st.memory.audioVectorsMade} of audio` : ""}, ${st.memory.pending} queued) + words and concepts` : "words and concepts (no dense model)"}${st.memory.l3 ? `; L3 ${st.memory.l3.current} current facts (${st.memory.l3.facts} in all), ${st.memory.l3.nodes} nodes` : ""}`,
    ...(st.usage ? [`  tokens   ${formatUsage(st.usage)}`] : []),
    `  backup   ${st.backup ? formatBackup(st.backup, `${new Date(st.backup.at).toISOString().replace("T", " ").slice(0, 16)} UTC`) : NO_BACKUP}`,
    `  tools    ${formatTools(st.tools)}`,
    ...(st.skills ? [`  skills   ${formatSkillCounts(st.skills)}`] : []),
    `  stages   ${st.stages.length ? st.stages.map((h) => `${h.stage}:${h.plugin}`).join(", ") : "none"}`,
    ...(st.failClosed.length ? [`  FAIL-CLOSED: critical plugin down: ${st.failClosed.join(", ")}`] : []),
    `  channels`,
    ...st.channels.map((c) => `    ${formatChannel(c, Date.now())}`),
    `  plugins`,
    ...st.plugins.map((p) => `    ${formatPlugin(p)}`),
  ].join("\n");
}

/**
 * The tools on one line: how many, by risk class, and where each is listed (62 names with their
 * classes made the line longer than the rest of the status together).
 */
export function formatTools(tools: readonly { name: string; risk: string }[]): string {
  if (tools.length === 0) return "none";
  const byRisk = new Map<string, number>();
  for (const t of tools) byRisk.set(t.risk, (byRisk.get(t.risk) ?? 0) + 1);
  const counts = [...byRisk].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return `${tools.length} (${counts.map(([risk, n]) => `${n} ${risk}`).join(", ")}); each with \`homed tools list\``;
}

/** One line per channel: name, state, what serves it (and why it is not up), what it has done. */
export function formatChannel(c: ChannelStatus, now: number): string {
  const via =
    c.via === "" ? "seen in the log only" : c.state === "ready" ? `via ${c.via}` : `via ${c.via}: ${c.detail}`;
  const n = c.conversations;
  const done =
    n === 0
      ? ""
      : ` · ${n} conversation${n === 1 ? "" : "s"}${c.lastTurnAt === null ? "" : `, last turn ${formatDuration(Math.max(0, now - c.lastTurnAt))} ago`}`;
  return `${c.name.padEnd(12)} ${(c.state || "-").padEnd(10)} ${via}${done}`;
}

/**
 * One line per plugin: name, state, why, pid and restart count; an external one's room below
 * it; then its last stderr line if it is not running.
 */
export function formatPlugin(p: PluginInfo): string {
  const head = `${p.name.padEnd(12)} ${p.state.padEnd(10)} ${p.detail}${p.pid ? ` (pid ${p.pid})` : ""}${p.restarts ? `, ${p.restarts} restarts` : ""}`;
  const room = p.sandbox ? `${head}\n      runs in: ${p.sandbox}` : head;
  const last = p.stderrTail[p.stderrTail.length - 1];
  return p.state === "ready" || !last ? room : `${room}\n      last stderr: ${last}`;
}

/** "3 valid (1 disabled), 1 invalid (homed skills list says why)". */
export function formatSkillCounts(c: { valid: number; disabled: number; invalid: number }): string {
  const valid = `${c.valid} valid${c.disabled ? ` (${c.disabled} disabled)` : ""}`;
  return c.invalid ? `${valid}, ${c.invalid} invalid (homed skills list says why)` : valid;
}
