/**
 * The fake OneBot v11 implementation (test/harness/fake-onebot.ts) checked against real OneBot
 * client peers from npm, so that what the QQ channel is tested against is what NapCat and
 * Lagrange speak: node-napcat-ts (NapCat's client SDK) and Koishi's OneBot adapter each connect
 * to the fake's forward WebSocket with the access token, hear its lifecycle event, read its
 * message events (array and CQ-string forms), and call send_group_msg / send_private_msg.
 */
import { afterEach, expect, test } from "bun:test";
import { Context, HTTP } from "koishi";
import OneBot from "koishi-plugin-adapter-onebot";
import { NCWebsocket } from "node-napcat-ts";
import { FakeOneBot, startFakeOneBot } from "./../harness/fake-onebot.ts";

const TOKEN = "fake-onebot-token-1";
let fake: FakeOneBot | null = null;
afterEach(() => fake?.stop());

function napcat(url: string, token: string) {
  return new NCWebsocket(
    { baseUrl: url.replace(/\/$/, ""), accessToken: token, reconnection: { enable: false } },
    false,
  );
}

test("node-napcat-ts: lifecycle, message events in both formats, send_group_msg answered by echo", async () => {
  fake = await startFakeOneBot({ accessToken: TOKEN });
  const nc = napcat(fake.wsUrl, TOKEN);
  const life = new Promise<{ self_id: number }>((r) => nc.on("meta_event.lifecycle.connect", (e) => r(e)));
  const groups: { message: unknown; group_id: number; sender: { nickname: string } }[] = [];
  const twoGroup = new Promise<void>((r) =>
    nc.on("message.group", (e) => {
      groups.push(e as unknown as (typeof groups)[number]);
      if (groups.length === 2) r();
    }),
  );
  const priv = new Promise<{ user_id: number; raw_message: string }>((r) => nc.on("message.private", (e) => r(e)));
  await nc.connect();
  expect((await life).self_id).toBe(10001);

  const sent = await nc.send_group_msg({ group_id: 30003, message: [{ type: "text", data: { text: "hello" } }] });
  expect(sent.message_id).toBeGreaterThan(0);
  expect(fake.sends()[0]).toMatchObject({ action: "send_group_msg", params: { group_id: 30003 }, via: "ws" });

  await fake.groupMessage(30003, 20002, [FakeOneBot.at(10001), FakeOneBot.text(" hi")]);
  await fake.groupMessage(30003, 20002, "[CQ:at,qq=10001] a &#91;b&#93; &amp; c,d");
  await twoGroup;
  expect(groups[0]?.message).toEqual([
    { type: "at", data: { qq: "10001" } },
    { type: "text", data: { text: " hi" } },
  ]);
  // The SDK decodes the CQ-string form into segments, unescaping the text (it may cut text in two).
  const cq = groups[1]?.message as { type: string; data: { qq?: string; text?: string } }[];
  expect(cq[0]).toEqual({ type: "at", data: { qq: "10001" } });
  expect(
    cq
      .slice(1)
      .map((x) => (x.type === "text" ? x.data.text : `<${x.type}>`))
      .join(""),
  ).toBe(" a [b] & c,d");
  await fake.privateMessage(20002, [FakeOneBot.text("psst")]);
  expect(await priv).toMatchObject({ user_id: 20002, raw_message: "psst" });
  // An action the implementation lacks is a failure the SDK reports (retcode 1404).
  await expect(nc.send("no_such_action" as never, {} as never)).rejects.toMatchObject({ retcode: 1404 });
  await nc.disconnect();
});

test("node-napcat-ts: a wrong access token gets NapCat's 1403 frame and the socket closes", async () => {
  fake = await startFakeOneBot({ accessToken: TOKEN });
  const nc = napcat(fake.wsUrl, "wrong-token");
  const error = new Promise<{ error_type: string; info?: { errno: number } }>((r) =>
    nc.on("socket.error", (e) => r(e as never)),
  );
  await nc.connect();
  const e = await error;
  expect(e.error_type).toBe("response_error");
  expect(e.info?.errno).toBe(1403);
  expect(fake.connections()).toBe(0);
});

test("Koishi's OneBot adapter: the bot comes online (get_login_info), reads an @-mention, sends a reply", async () => {
  fake = await startFakeOneBot({ accessToken: TOKEN });
  const ctx = new Context();
  ctx.plugin(HTTP);
  // The adapter's types do not line up with koishi's plugin overloads under our tsconfig.
  ctx.plugin(
    OneBot as never,
    { selfId: "10001", protocol: "ws", endpoint: fake.wsUrl, token: TOKEN, retryTimes: 0 } as never,
  );
  // biome-ignore lint/suspicious/noExplicitAny: Koishi's session and bot types are deep generics.
  const online = new Promise<any>((r) =>
    ctx.on("login-updated", (s) => {
      if (s.bot?.status === 1) r(s.bot);
    }),
  );
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  const message = new Promise<any>((r) => ctx.on("message", (s) => r(s)));
  await ctx.start();
  const bot = await online;
  expect(bot.user.name).toBe("homed-bot");
  expect(fake.calls.some((c) => c.action === "get_login_info")).toBe(true);

  await fake.groupMessage(30003, 20002, [FakeOneBot.at(10001), FakeOneBot.text(" what time is it?")]);
  const s = await message;
  expect(s.channelId).toBe("30003");
  expect(s.userId).toBe("20002");
  expect(s.stripped.atSelf).toBe(true);
  expect(s.stripped.content).toBe("what time is it?");

  const ids = await bot.sendMessage("30003", 'noon <at id="20002"/>');
  expect(ids.length).toBe(1);
  expect(fake.sends().at(-1)).toMatchObject({
    action: "send_group_msg",
    params: {
      group_id: 30003,
      message: [
        { type: "text", data: { text: "noon " } },
        { type: "at", data: { qq: "20002" } },
      ],
    },
  });
  await bot.sendMessage("private:20002", "hi");
  expect(fake.sends().at(-1)).toMatchObject({ action: "send_private_msg", params: { user_id: 20002 } });
});
