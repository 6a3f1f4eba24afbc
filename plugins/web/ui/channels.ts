/**
 * The plugins page's channels table: every way in (the web UI, /v1, A2A, QQ, the terminal,
 * editors), whether it is up, who is connected and what it has done — the `channels` part of
 * `/api/status` (src/kernel/channel-status.ts) — with every turn's tokens and the last backup above it.
 */
import { api } from "./api.ts";
import { clear, h, timeAgo } from "./dom.ts";
import type { StatusResult } from "../../../src/protocol/control.ts";
import { formatUsage } from "../../../src/protocol/usage.ts";
import { formatBackup, NO_BACKUP } from "../../../src/protocol/backup-state.ts";

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function channelsTable(): { el: HTMLElement; refresh(): Promise<void> } {
  const body = h("tbody");
  // Every turn's tokens, as `homed status` shows them: what the providers were sent and how much
  // of it their prompt caches served.
  const usage = h("p", { class: "hint", id: "token-usage" });
  // The last backup (`homed backup`, or [backup] scheduled ones), as `homed status` says it.
  const backup = h("p", { class: "hint", id: "last-backup" });
  const refresh = async () => {
    const st = await api<StatusResult>("/api/status").catch(() => null);
    if (st?.usage) usage.textContent = `Tokens, all turns: ${formatUsage(st.usage)}.`;
    if (st) {
      const b = st.backup;
      backup.textContent = b ? capitalise(formatBackup(b, timeAgo(b.at))) : capitalise(NO_BACKUP);
      backup.classList.toggle("failed", b?.ok === false);
    }
    if (!st?.channels) return;
    clear(body);
    for (const c of st.channels) {
      const state = c.state === "listening" ? (c.connected ? "ready" : "idle") : c.state || "idle";
      body.append(
        h(
          "tr",
          { "data-channel": c.name },
          h("td", {}, h("b", {}, c.name)),
          h(
            "td",
            {},
            h("span", { class: `state ${state}` }, c.state || "–"),
            h("div", { class: "detail" }, c.via ? `via ${c.via}` : "seen in the log only"),
            c.state === "ready" || !c.detail ? "" : h("div", { class: "detail" }, c.detail),
          ),
          h("td", {}, String(c.conversations)),
          h("td", {}, c.lastTurnAt === null ? "–" : timeAgo(c.lastTurnAt)),
        ),
      );
    }
  };
  const table = h(
    "table",
    { class: "plugins channels" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "channel"), h("th", {}, "state"), h("th", {}, "conversations"), h("th", {}, "last turn")),
    ),
    body,
  );
  return { el: h("div", {}, usage, backup, table), refresh };
}
