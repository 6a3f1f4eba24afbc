/**
 * The QQ channel's rig: a fake OneBot implementation (fake-onebot.ts), a daemon (dist/homed) with
 * a scripted fake LLM whose config.toml turns [channels.qq] on with the given settings, and
 * helpers to wait for the plugin's connection and read conversations through the web API.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAgentRig, type AgentRig } from "./agent-daemon.ts";
import { webUrlOf } from "./daemon.ts";
import { poll } from "./poll.ts";
import { type Said, transcriptAt } from "./transcript.ts";

/** A port nobody listens on right now (for a listener the plugin opens). */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port as number;
  s.stop(true);
  return port;
}

/** [channels.qq] as TOML from a flat object. */
function toml(qq: Record<string, unknown>): string {
  const lines = Object.entries(qq).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  return `[channels.qq]\nenabled = true\n${lines.join("\n")}\n`;
}

export interface QqRig extends AgentRig {
  web: string;
  /** The conversation list entry of `conv` (null when absent). */
  conversation(conv: string): Promise<{ id: string; channel: string; scene: string; turns: number } | null>;
  /** The conversation's transcript as the web UI reads it. */
  transcript(conv: string): Promise<Said[]>;
  qqPlugin(): Promise<{ state: string; pid: number | null; restarts: number }>;
}

export async function startQqRig(
  data: string,
  qq: Record<string, unknown>,
  opts: { plugin?: boolean } = {},
): Promise<QqRig> {
  writeFileSync(join(data, "config.toml"), toml({ reconnect_ms: 100, ...qq }));
  const rig = await startAgentRig(data, { plugin: opts.plugin ?? false });
  const web = await webUrlOf(rig.daemon);
  return Object.assign(rig, {
    web,
    async conversation(conv: string) {
      const list = (await (await fetch(`${web}/api/conversations`)).json()) as {
        id: string;
        channel: string;
        scene: string;
        turns: number;
      }[];
      return list.find((c) => c.id === conv) ?? null;
    },
    async transcript(conv: string) {
      return await transcriptAt(web, conv);
    },
    async qqPlugin() {
      const st = await rig.status();
      return (st.plugins as { name: string; state: string; pid: number | null; restarts: number }[]).find(
        (p) => p.name === "qq",
      ) as { state: string; pid: number | null; restarts: number };
    },
  });
}

/** Wait until the fake has `n` live WebSocket peers. */
export async function waitConnected(fake: { connections(): number }, n = 1): Promise<void> {
  await poll(
    () => fake.connections(),
    (c) => c >= n,
    { what: `${n} OneBot WebSocket connection(s)` },
  );
}
