/**
 * The channels line of `homed status` and of the plugins page: every way in, whether it is up,
 * who is connected and what it has done. Plugin channels (web, a2a, api, qq…) are the plugins
 * that provide `channel.<name>`; the control socket serves `cli` (`homed chat`, waiter) and
 * `acp` (editors through `homed acp`), whose clients say what they are with `client.hello`.
 */
import type { RpcPeer } from "../ipc/rpc-peer.ts";
import type { ChannelStatus, ControlClientKind } from "../protocol/control.ts";
import type { PluginInfo } from "../protocol/plugin.ts";

/** The channel a kind of control-socket client runs its turns on. */
const CLIENT_CHANNEL: Record<ControlClientKind, string> = { chat: "cli", waiter: "cli", acp: "acp" };

/** The control socket's clients that said what they are, until they disconnect. */
export class ControlClients {
  private readonly kinds = new Map<RpcPeer, ControlClientKind>();

  hello(peer: RpcPeer, kind: ControlClientKind): void {
    if (!this.kinds.has(peer)) peer.onClose(() => this.kinds.delete(peer));
    this.kinds.set(peer, kind);
  }

  /** Connected clients per kind. */
  counts(): Map<ControlClientKind, number> {
    const n = new Map<ControlClientKind, number>();
    for (const kind of this.kinds.values()) n.set(kind, (n.get(kind) ?? 0) + 1);
    return n;
  }
}

export interface ChannelInputs {
  plugins: PluginInfo[];
  clients: Map<ControlClientKind, number>;
  activity: { channel: string; conversations: number; lastTurnAt: number | null }[];
  /** Channels switched off in config.toml although their plugin runs (a2a on the web plugin). */
  off: Map<string, string>;
}

export function channelStatus(i: ChannelInputs): ChannelStatus[] {
  const byName = new Map<string, ChannelStatus>();
  const row = (name: string): ChannelStatus => {
    let r = byName.get(name);
    if (!r) {
      r = { name, via: "", state: "", detail: "", connected: 0, conversations: 0, lastTurnAt: null };
      byName.set(name, r);
    }
    return r;
  };
  for (const p of i.plugins)
    for (const cap of p.provides) {
      if (!cap.startsWith("channel.")) continue;
      const r = row(cap.slice("channel.".length));
      const off = i.off.get(r.name);
      Object.assign(r, {
        via: `plugin ${p.name}`,
        state: off && p.state === "ready" ? "off" : p.state,
        detail: off && p.state === "ready" ? off : p.detail,
      });
    }
  for (const name of new Set(Object.values(CLIENT_CHANNEL))) {
    const kinds = (Object.keys(CLIENT_CHANNEL) as ControlClientKind[]).filter((k) => CLIENT_CHANNEL[k] === name);
    const parts = kinds.filter((k) => i.clients.get(k)).map((k) => `${k} ${i.clients.get(k)}`);
    const connected = kinds.reduce((n, k) => n + (i.clients.get(k) ?? 0), 0);
    Object.assign(row(name), {
      via: "control socket",
      state: "listening",
      detail: connected ? `${connected} connected (${parts.join(", ")})` : "no client connected",
      connected,
    });
  }
  for (const a of i.activity)
    Object.assign(row(a.channel), { conversations: a.conversations, lastTurnAt: a.lastTurnAt });
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
