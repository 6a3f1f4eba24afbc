/**
 * The QQ channel's other transports through the compiled daemon, against the fake OneBot
 * implementation: reverse WebSocket (the implementation connects to homed with the access token;
 * a wrong token is refused) and HTTP API + HTTP-POST reports (X-Signature checked; a mismatch is
 * refused). Also: with no [channels.qq] the plugin does not run at all.
 */
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { FakeOneBot, startFakeOneBot } from "../harness/fake-onebot.ts";
import { poll } from "../harness/poll.ts";
import { freePort, startQqRig, waitConnected } from "../harness/qq-rig.ts";

const TOKEN = "qq-transport-token";
const GROUP = 30003;
const { at, text } = FakeOneBot;

describe("qq transports", () => {
  test("closed by default: without [channels.qq] enabled the plugin is disabled and listens nowhere", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const st = await rig.status();
    const qq = (st.plugins as { name: string; state: string; pid: number | null; detail: string }[]).find(
      (p) => p.name === "qq",
    );
    expect(qq).toMatchObject({
      state: "disabled",
      pid: null,
      detail: "off until channels.qq.enabled = true in config.toml",
    });
  }, 30_000);

  test("reverse WebSocket: the implementation connects with the token and is answered; a wrong token is refused", async () => {
    using dir = tempDir();
    const port = freePort();
    await using rig = await startQqRig(dir.path, {
      mode: "reverse",
      listen: `127.0.0.1:${port}`,
      access_token: TOKEN,
      groups: [GROUP],
    });
    await rig.daemon.waitFor('msg="qq listening" plugin=qq mode=reverse');
    using intruder = await startFakeOneBot({
      reverseUrl: `ws://127.0.0.1:${port}/onebot/v11/ws`,
      reverseToken: "wrong",
    });
    using fake = await startFakeOneBot({ accessToken: TOKEN, reverseUrl: `ws://127.0.0.1:${port}/onebot/v11/ws` });
    await waitConnected(fake);
    await rig.daemon.waitFor("qq connection refused: wrong or missing access token");
    expect(intruder.connections()).toBe(0);

    rig.llm.script([{ text: "over the reverse link" }]);
    const asked = await fake.groupMessage(GROUP, 40004, [at(fake.selfId), text(" ping")]);
    const reply = await fake.waitForCall((c) => c.action === "send_group_msg");
    expect(reply.via).toBe("reverse");
    expect(reply.params.message).toEqual([
      { type: "reply", data: { id: String(asked.message_id) } },
      { type: "text", data: { text: "over the reverse link" } },
    ]);
    // The intruder's events never reach a turn, nor does a group not in `groups`; a listed one does.
    await intruder.groupMessage(GROUP, 40004, [at(intruder.selfId), text(" let me in")]);
    await fake.groupMessage(GROUP + 1, 40004, [at(fake.selfId), text(" other group")]);
    rig.llm.script([{ text: "listed group again" }]);
    await fake.groupMessage(GROUP, 40004, [at(fake.selfId), text(" listed")]);
    await fake.waitForCall((c) => JSON.stringify(c.params).includes("listed group again"));
    expect(rig.llm.requests.map((r) => JSON.stringify(r.body))).toHaveLength(2);
    expect(JSON.stringify(rig.llm.requests[1]?.body)).not.toContain("other group");
    expect(fake.sends().every((c) => c.params.group_id === GROUP)).toBe(true);
  }, 30_000);

  test("HTTP: reports signed with the secret are answered through the HTTP API; a bad X-Signature is refused", async () => {
    using dir = tempDir();
    const port = freePort();
    const secret = "qq-post-secret";
    using api = await startFakeOneBot({ accessToken: TOKEN, postUrl: `http://127.0.0.1:${port}/`, secret });
    await using rig = await startQqRig(dir.path, {
      mode: "http",
      url: api.httpUrl,
      listen: `127.0.0.1:${port}`,
      access_token: TOKEN,
      secret,
    });
    await rig.daemon.waitFor('msg="qq listening" plugin=qq mode=http');

    rig.llm.script([{ text: "over HTTP" }]);
    const asked = await api.privateMessage(60006, [text("hello by post")]);
    expect(api.reports.at(-1)?.status).toBe(204);
    const reply = await api.waitForCall((c) => c.action === "send_private_msg");
    expect(reply).toMatchObject({
      via: "http",
      params: {
        user_id: 60006,
        message: [
          { type: "reply", data: { id: String(asked.message_id) } },
          { type: "text", data: { text: "over HTTP" } },
        ],
      },
    });

    using forger = await startFakeOneBot({ postUrl: `http://127.0.0.1:${port}/`, secret: "not-the-secret" });
    await forger.privateMessage(60006, [text("forged")]);
    expect(forger.reports.at(-1)?.status).toBe(403);
    using unsigned = await startFakeOneBot({ postUrl: `http://127.0.0.1:${port}/` });
    await unsigned.privateMessage(60006, [text("unsigned")]);
    expect(unsigned.reports.at(-1)?.status).toBe(403);
    await rig.daemon.waitFor("qq report refused: X-Signature does not match");
    // A signed report that is not JSON is refused with 400 and the plugin keeps running.
    const sig = `sha1=${createHmac("sha1", secret).update("{").digest("hex")}`;
    const bad = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      body: "{",
      headers: { "X-Signature": sig },
    });
    expect(bad.status).toBe(400);
    await poll(
      () => rig.llm.requests.length,
      (n) => n === 1,
      { what: "only the signed report's turn" },
    );
    expect((await rig.qqPlugin()).state).toBe("ready");
  }, 30_000);

  test("forward WebSocket with a wrong token: the implementation refuses, homed says so and keeps trying", async () => {
    using dir = tempDir();
    using fake = await startFakeOneBot({ accessToken: TOKEN });
    await using rig = await startQqRig(dir.path, { mode: "ws", url: fake.wsUrl, access_token: "not-the-token" });
    await rig.daemon.waitFor(/qq connection refused by the OneBot implementation.*retcode=1403/);
    expect(fake.connections()).toBe(0);
    expect((await rig.qqPlugin()).state).toBe("ready");
  }, 30_000);
  test("a third-party plugin can neither read [channels] (the access token) nor store blocks", async () => {
    using dir = tempDir();
    const out = join(dir.path, "intruder.json");
    // It declares kernel.store, so blocks/put is refused for being built-in only, not undeclared.
    installBunPlugin(dir.path, "intruder", "qq-intruder.ts", { requires: ["kernel.agent", "kernel.store"] }, [out]);
    using fake = await startFakeOneBot({ accessToken: TOKEN });
    await using rig = await startQqRig(dir.path, { mode: "ws", url: fake.wsUrl, access_token: TOKEN });
    await waitConnected(fake);
    const seen = await poll(
      () => (existsSync(out) ? JSON.parse(readFileSync(out, "utf8")) : null),
      (x) => x !== null,
      { what: "the intruder's report" },
    );
    expect(seen.channels.error).toContain("the channels section is reserved to built-in plugins");
    expect(seen.block.error).toContain("storing blocks is reserved to built-in plugins");
    expect(JSON.stringify(seen)).not.toContain(TOKEN);
    expect(existsSync(join(dir.path, "blocks"))).toBe(false);
    expect((await rig.qqPlugin()).state).toBe("ready");
  }, 30_000);
  test("a listener beyond loopback without an access token is a configuration error (failed, not restarted)", async () => {
    using dir = tempDir();
    await using rig = await startQqRig(dir.path, { mode: "reverse", listen: `0.0.0.0:${freePort()}` });
    const qq = await poll(rig.qqPlugin, (p) => p.state === "failed", { what: "the qq plugin to fail" });
    expect(qq.restarts).toBe(0);
    await rig.daemon.waitFor("[channels.qq] listen is not a loopback address: set access_token");
  }, 30_000);
});
