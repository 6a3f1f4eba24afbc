/**
 * Every channel shows in `homed status` and on the plugins page: the plugin channels (web, api,
 * a2a, qq) with their plugin's state, the control socket's (cli, acp) with the clients connected
 * now — counted from `client.hello`, so an editor through `homed acp` and a `homed chat` are
 * seen while they are attached and not after — and what each has done (conversations, last turn).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, WAITER, run, streamText, tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";

interface Row {
  name: string;
  via: string;
  state: string;
  detail: string;
  connected: number;
  conversations: number;
  lastTurnAt: number | null;
}

async function channels(data: string): Promise<Record<string, Row>> {
  const r = await run([HOMED, "status", "-data", data, "-json"]);
  expect(r.exitCode).toBe(0);
  return Object.fromEntries((JSON.parse(r.stdout).channels as Row[]).map((c) => [c.name, c]));
}

describe("channels in homed status", () => {
  test("plugin channels carry their plugin's state; a2a switched off says so; the web page gets the same rows", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), "[channels.a2a]\nenabled = false\n");
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const c = await channels(dir.path);
    expect(Object.keys(c)).toEqual(["a2a", "acp", "api", "cli", "qq", "web"]);
    expect(c.web).toMatchObject({ via: "plugin web", state: "ready", conversations: 0, lastTurnAt: null });
    expect(c.api).toMatchObject({ via: "plugin web", state: "ready" });
    expect(c.a2a).toMatchObject({
      via: "plugin web",
      state: "off",
      detail: "channels.a2a.enabled = false in config.toml",
    });
    expect(c.qq).toMatchObject({ via: "plugin qq", state: "disabled" });
    expect(c.qq!.detail).toContain("channels.qq.enabled = true");
    expect(c.cli).toMatchObject({ via: "control socket", state: "listening", connected: 0 });
    const web = (await (await fetch(`${url}api/status`)).json()) as { channels: Row[] };
    expect(web.channels.map((r) => r.name)).toEqual(Object.keys(c));

    const text = await run([HOMED, "status", "-data", dir.path]);
    expect(text.stdout).toMatch(/\n {2}channels\n {4}a2a {10}off {8}via plugin web: channels\.a2a\.enabled = false/);
    expect(text.stdout).toMatch(/\n {4}cli {10}listening {2}via control socket: no client connected\n/);
  }, 30_000);

  test("an editor through homed acp is counted while attached; a homed chat turn adds a cli conversation", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    rig.llm.script([{ text: "hi there" }]);
    expect((await rig.chat("hello")).exitCode).toBe(0);
    let c = await channels(dir.path);
    expect(c.cli).toMatchObject({ connected: 0, conversations: 1 });
    expect(Date.now() - (c.cli!.lastTurnAt ?? 0)).toBeLessThan(60_000);
    expect(c.acp).toMatchObject({ connected: 0, conversations: 0, detail: "no client connected" });

    const acp = Bun.spawn([HOMED, "acp", "-data", dir.path], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const out = streamText(acp.stdout);
    const send = (m: object) => acp.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    send({ id: 2, method: "session/new", params: { cwd: dir.path, mcpServers: [] } });
    await poll(
      () => out.text(),
      (t) => t.includes('"sessionId"'),
      { timeoutMs: 10_000, what: "session/new answered" },
    );
    c = await poll(
      () => channels(dir.path),
      (x) => x.acp?.connected === 1,
      { timeoutMs: 10_000, what: "acp counted as connected" },
    );
    expect(c.acp!.detail).toBe("1 connected (acp 1)");
    const text = await run([HOMED, "status", "-data", dir.path]);
    expect(text.stdout).toContain("acp          listening  via control socket: 1 connected (acp 1)");
    expect(text.stdout).toMatch(
      /cli {10}listening {2}via control socket: no client connected · 1 conversation, last turn \d+s ago/,
    );

    await acp.stdin.end();
    await acp.exited;
    await poll(
      () => channels(dir.path),
      (x) => x.acp?.connected === 0,
      { timeoutMs: 10_000, what: "acp no longer counted once the editor left" },
    );
  }, 60_000);

  test("each local and web client declares its scene: homed chat, waiter here and remote, the web UI", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const url = await webUrlOf(rig.daemon);
    rig.llm.script([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }]);
    expect((await rig.chat("from homed chat", { conv: "c-chat" })).exitCode).toBe(0);
    expect((await run([WAITER, "-data", rig.data, "-conv", "c-waiter", "-p", "from waiter"])).exitCode).toBe(0);
    const remote = await run([WAITER, "-connect", url, "-data", rig.data, "-conv", "c-remote", "-p", "from afar"]);
    expect(remote).toMatchObject({ exitCode: 0, stdout: "three\n" });
    const sse = await fetch(`${url}api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ conv: "c-web", text: "from the browser" }),
    });
    expect(await sse.text()).toContain("four");
    const bad = await fetch(`${url}api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ conv: "c-web", text: "x", client: "qq" }),
    });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("client");
    const convs = (await (await fetch(`${url}api/conversations`)).json()) as { id: string; scene: string }[];
    expect(Object.fromEntries(convs.map((c) => [c.id, c.scene]))).toEqual({
      "c-chat": "chan:cli/peer:terminal",
      "c-waiter": "chan:cli/peer:waiter",
      "c-remote": "chan:web/peer:waiter",
      "c-web": "chan:web/peer:browser",
    });
    const c = await channels(dir.path);
    expect(c.cli!.conversations).toBe(2);
    expect(c.web!.conversations).toBe(2);
  }, 60_000);
});
