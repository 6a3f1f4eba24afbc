/**
 * The status page served at `/` until the web UI issue replaces it: kernel facts and every
 * plugin's state, rendered on the server with every value escaped.
 */
import type { StatusResult } from "../../src/protocol/control.ts";
import type { PluginInfo } from "../../src/protocol/plugin.ts";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

function uptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

const STATE_CLASS: Record<string, string> = { ready: "ok", starting: "warn", waiting: "warn", restarting: "warn", idle: "idle", disabled: "idle", stopped: "bad", failed: "bad", blocked: "bad", exited: "idle", stopping: "warn" };

function pluginRow(p: PluginInfo): string {
  const tail = p.stderrTail.slice(-5).map(escapeHtml).join("\n");
  return `<tr>
  <td><b>${escapeHtml(p.name)}</b>${p.builtin ? "" : ' <span class="tag">external</span>'}${p.critical ? ' <span class="tag">critical</span>' : ""}</td>
  <td><span class="state ${STATE_CLASS[p.state] ?? ""}">${escapeHtml(p.state)}</span><div class="detail">${escapeHtml(p.detail)}</div></td>
  <td>${p.pid ?? "–"}</td>
  <td>${p.restarts}</td>
  <td>${escapeHtml(p.provides.join(", ") || "–")}</td>
  <td><pre>${tail || "–"}</pre></td>
</tr>`;
}

export function renderStatusPage(st: StatusResult): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="refresh" content="5"><title>homed</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1d2430;background:#f7f8fa}
h1{font-size:1.4rem;margin:0 0 .2rem} .sub{color:#5b6472;margin-bottom:1.5rem}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e7;border-radius:6px}
th,td{text-align:left;padding:.55rem .7rem;border-bottom:1px solid #eceff3;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#5b6472}
pre{margin:0;font-size:.75rem;white-space:pre-wrap;max-width:28rem;color:#3d4654}
.state{font-weight:600}.ok{color:#137333}.warn{color:#a15c00}.bad{color:#b3261e}.idle{color:#5b6472}
.detail{font-size:.8rem;color:#5b6472}.tag{font-size:.7rem;background:#eef1f5;border-radius:3px;padding:0 .3rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0 0 1.5rem}dt{color:#5b6472}dd{margin:0}
.alert{background:#fdecea;border:1px solid #f5c2bd;padding:.6rem .8rem;border-radius:6px;margin-bottom:1rem}
</style></head><body>
<h1>homed ${escapeHtml(st.version)}</h1>
<div class="sub">running for ${uptime(st.uptimeMs)} · pid ${st.pid} · ${escapeHtml(st.arch)}</div>
${st.failClosed.length ? `<div class="alert">Critical plugin down: ${escapeHtml(st.failClosed.join(", "))}. What it guards is denied until it is back.</div>` : ""}
<dl>
<dt>data</dt><dd>${escapeHtml(st.dataDir)}</dd>
<dt>store</dt><dd>schema v${st.store.schemaVersion}, ${st.store.events} events</dd>
</dl>
<table><thead><tr><th>plugin</th><th>state</th><th>pid</th><th>restarts</th><th>provides</th><th>last stderr</th></tr></thead>
<tbody>${st.plugins.map(pluginRow).join("")}</tbody></table>
</body></html>`;
}
