/** channelStatus: the rows `homed status` prints, from plugins, connected clients and the log's activity. */
import { describe, expect, test } from "bun:test";
import { channelStatus } from "../../src/kernel/channel-status.ts";
import type { PluginInfo } from "../../src/protocol/plugin.ts";

const plugin = (name: string, state: string, provides: string[], detail = ""): PluginInfo =>
  ({ name, state, provides, detail }) as unknown as PluginInfo;

describe("channelStatus", () => {
  test("one row per channel, sorted; clients by kind; a channel only the log knows is kept", () => {
    const rows = channelStatus({
      plugins: [
        plugin("web", "ready", ["channel.web", "channel.a2a"], "provides channel.web"),
        plugin("qq", "restarting", ["channel.qq"], "exited 1; restart in 2 s"),
        plugin("files", "idle", []),
      ],
      clients: new Map([
        ["waiter", 2],
        ["chat", 1],
      ]),
      activity: [
        { channel: "cli", conversations: 3, lastTurnAt: 1000 },
        { channel: "schedule", conversations: 1, lastTurnAt: null },
      ],
      off: new Map([["a2a", "channels.a2a.enabled = false in config.toml"]]),
    });
    expect(rows.map((r) => r.name)).toEqual(["a2a", "acp", "cli", "qq", "schedule", "web"]);
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(by.a2a).toMatchObject({ state: "off", detail: "channels.a2a.enabled = false in config.toml" });
    expect(by.qq).toMatchObject({ via: "plugin qq", state: "restarting", detail: "exited 1; restart in 2 s" });
    expect(by.cli).toMatchObject({
      connected: 3,
      detail: "3 connected (chat 1, waiter 2)",
      conversations: 3,
      lastTurnAt: 1000,
    });
    expect(by.acp).toMatchObject({ connected: 0, detail: "no client connected" });
    expect(by.schedule).toMatchObject({ via: "", state: "", conversations: 1 });
  });

  test("a channel switched off whose plugin is not running shows the plugin's state, not 'off'", () => {
    const [a2a] = channelStatus({
      plugins: [plugin("web", "failed", ["channel.a2a"], "gave up after 5 crashes")],
      clients: new Map(),
      activity: [],
      off: new Map([["a2a", "off in config"]]),
    });
    expect(a2a).toMatchObject({ name: "a2a", state: "failed", detail: "gave up after 5 crashes" });
  });
});
