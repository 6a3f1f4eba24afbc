/**
 * The QQ channel through the compiled daemon over forward WebSocket, against the fake OneBot
 * implementation (checked itself with node-napcat-ts and Koishi in qq-fake.test.ts), with the
 * scripted fake LLM: who is answered and how (group @-mention, keyword, private owner, stranger
 * untrusted), conversations and scene keys, image blocks, the rate limit, malformed frames,
 * reconnecting after the implementation restarts, and an owner's y/n approval.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { tempDir } from "../harness/binary.ts";
import { FakeOneBot, startFakeOneBot } from "../harness/fake-onebot.ts";
import { poll } from "../harness/poll.ts";
import { startQqRig, waitConnected } from "../harness/qq-rig.ts";

const TOKEN = "qq-test-access-token";
const OWNER = 20002;
const GROUP = 30003;
const { at, text } = FakeOneBot;

/** A tiny valid-looking PNG: the signature and an IHDR chunk are what the sniffer checks. */
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0,
  0, 0, 0x1f, 0x15, 0xc4, 0x89,
]);

const lastUserText = (body: Record<string, unknown>) => {
  const msgs = body.messages as { role: string; content: unknown }[];
  const users = msgs.filter((m) => m.role === "user");
  const c = users.at(-1)?.content;
  return typeof c === "string" ? c : JSON.stringify(c);
};

describe("qq over forward WebSocket", () => {
  test("groups: @-mention and keyword answered with a reply segment, others ignored; untrusted; scene; image block; rate limit", async () => {
    using dir = tempDir();
    using fake = await startFakeOneBot({ accessToken: TOKEN, heartbeatMs: 200 });
    await using rig = await startQqRig(dir.path, {
      mode: "ws",
      url: fake.wsUrl,
      access_token: TOKEN,
      owners: [OWNER],
      keywords: ["homed,"],
      group_turns_per_minute: 3,
    });
    await waitConnected(fake);
    await rig.daemon.waitFor('msg="qq connected" plugin=qq mode=ws');

    // Not addressed: no turn. Then addressed: exactly one turn, answered quoting the question.
    await fake.groupMessage(GROUP, 40004, [text("just chatting, nothing for the bot")]);
    rig.llm.script([{ text: "Hello, group!" }]);
    const asked = await fake.groupMessage(
      GROUP,
      40004,
      [
        { type: "reply", data: { id: "999" } },
        at(fake.selfId),
        text(" who are you?"),
        { type: "face", data: { id: "178" } },
        { type: "record", data: { file: "v.amr", url: "" } },
        at(50005),
      ],
      "Bob",
    );
    const reply = await fake.waitForCall((c) => c.action === "send_group_msg");
    expect(reply.params).toEqual({
      group_id: GROUP,
      message: [
        { type: "reply", data: { id: String(asked.message_id) } },
        { type: "text", data: { text: "Hello, group!" } },
      ],
    });
    expect(rig.llm.requests.length).toBe(1);
    const said = lastUserText(rig.llm.requests[0]!.body);
    expect(said).toContain("Bob (QQ 40004): [reply to message 999]  who are you?[face 178][voice message]@50005");
    expect(said).not.toContain("just chatting");

    const conv = await rig.conversation(`qq:group_${GROUP}`);
    expect(conv).toMatchObject({ channel: "qq", scene: `chan:qq/peer:group_${GROUP}`, turns: 1 });
    const lines = await rig.transcript(`qq:group_${GROUP}`);
    expect(lines.find((l) => l.type === "turn-start")).toMatchObject({ untrusted: true });

    // A keyword rule and a CQ-code string with an image: the image's bytes land in DATA/blocks.
    const url = fake.serveMedia("cat.png", PNG);
    const sha = createHash("sha256").update(PNG).digest("hex");
    rig.llm.script([{ text: "A picture, stored." }]);
    await fake.groupMessage(
      GROUP,
      40004,
      `homed, look [CQ:image,file=cat.png,url=${url.replace(/,/g, "&#44;")}] &#91;ok&#93;`,
    );
    await poll(
      () => fake.sends().length,
      (n) => n >= 2,
      { what: "the answer to the image" },
    );
    const blockFile = join(dir.path, "blocks", sha.slice(0, 2), sha);
    expect(existsSync(blockFile)).toBe(true);
    expect(new Uint8Array(readFileSync(blockFile))).toEqual(PNG);
    const imageTurn = lastUserText(rig.llm.requests[1]!.body);
    expect(imageTurn).toContain(`[image block ${sha} image/png ${PNG.length} bytes]`);
    expect(imageTurn).toContain("[ok]");
    // The picture is a block record of the user message, captioned by its words (issue 15).
    const db = new Database(join(dir.path, "homed.db"), { readonly: true });
    const recs = db
      .query<{ kind: string; mime: string; size: number; text: string }, [string]>(
        "SELECT kind, mime, size, text FROM blocks WHERE sha256 = ?",
      )
      .all(sha);
    db.close();
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({ kind: "image", mime: "image/png", size: PNG.length });
    expect(recs[0]?.text).toContain("look");
    expect(recs[0]?.text).toContain("[ok]");

    // Rate limit: 3 a minute; two turns used, one more is answered, then one notice, then silence.
    rig.llm.script([{ text: "third" }, { text: "never sent" }]);
    for (let i = 0; i < 3; i++) await fake.groupMessage(GROUP, 40004, [at(fake.selfId), text(` q${i}`)]);
    await poll(
      () => fake.sends().length,
      (n) => n >= 4,
      { what: "the third answer and the rate-limit notice" },
    );
    const texts = fake.sends().map((c) => JSON.stringify(c.params.message));
    expect(texts.filter((t) => t.includes("per minute here")).length).toBe(1);
    expect(rig.llm.requests.length).toBe(3);
    expect(rig.llm.remaining()).toBe(1);
  }, 30_000);

  test("private chats: the owner is trusted, unlimited and may approve with y; a stranger is untrusted, never asked, rate-limited", async () => {
    using dir = tempDir();
    const fake = await startFakeOneBot({ accessToken: TOKEN });
    try {
      await using rig = await startQqRig(
        dir.path,
        // One turn a minute: the owner is never limited, a stranger is.
        { mode: "ws", url: fake.wsUrl, access_token: TOKEN, owners: [OWNER], group_turns_per_minute: 1 },
        { plugin: true },
      );
      await waitConnected(fake);

      // The owner's turn asks approval in the chat; "y" answers it.
      rig.llm.script([
        { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/qq" } }] },
        { text: "Removed, as you allowed." },
      ]);
      await fake.privateMessage(OWNER, [text("please remove /tmp/qq")]);
      const question = await fake.waitForCall(
        (c) => c.action === "send_private_msg" && JSON.stringify(c.params).includes("danger_rm"),
      );
      expect(JSON.stringify(question.params.message)).toContain("Reply y to allow, n to deny.");
      await fake.privateMessage(OWNER, [text("y")]);
      const done = await fake.waitForCall(
        (c) => c.action === "send_private_msg" && JSON.stringify(c.params).includes("Removed, as you allowed."),
      );
      expect(done.params.user_id).toBe(OWNER);
      expect(rig.seen().some((s) => s.tool === "danger_rm")).toBe(true);
      const mine = await rig.transcript(`qq:private_${OWNER}`);
      expect(mine.filter((l) => l.type === "turn-start").map((l) => [l.text, l.untrusted])).toEqual([
        ["please remove /tmp/qq", false],
      ]);
      expect(await rig.conversation(`qq:private_${OWNER}`)).toMatchObject({ scene: `chan:qq/peer:private_${OWNER}` });

      // A stranger's same request: untrusted, non-interactive, the tool is denied by policy.
      rig.llm.script([
        { toolCalls: [{ name: "danger_rm", arguments: { path: "/tmp/stranger" } }] },
        { text: "I may not do that." },
      ]);
      await fake.privateMessage(50005, [text("remove /tmp/stranger")], "Mallory");
      await fake.waitForCall((c) => c.action === "send_private_msg" && c.params.user_id === 50005);
      expect(rig.seen().some((s) => JSON.stringify(s.args ?? {}).includes("/tmp/stranger"))).toBe(false);
      expect(fake.sends().some((c) => c.params.user_id === 50005 && JSON.stringify(c.params).includes("Reply y"))).toBe(
        false,
      );
      const theirs = await rig.transcript("qq:private_50005");
      expect(theirs.find((l) => l.type === "turn-start")).toMatchObject({ untrusted: true });

      // The stranger's second message within the minute: told once, no turn.
      const turns = rig.llm.requests.length;
      await fake.privateMessage(50005, [text("again!")], "Mallory");
      await fake.waitForCall(
        (c) => c.params.user_id === 50005 && JSON.stringify(c.params).includes("at most 1 per minute here"),
      );
      expect(rig.llm.requests.length).toBe(turns);
    } finally {
      fake.stop();
    }
  }, 30_000);

  test("malformed frames do not kill the plugin; it reconnects after the implementation restarts; long replies split", async () => {
    using dir = tempDir();
    let fake = await startFakeOneBot({ accessToken: TOKEN });
    const port = fake.port;
    try {
      await using rig = await startQqRig(dir.path, {
        mode: "ws",
        url: fake.wsUrl,
        access_token: TOKEN,
        max_message_chars: 100,
      });
      await waitConnected(fake);
      const before = await rig.qqPlugin();
      for (const junk of [
        "not json at all",
        "[1,2,3]",
        '{"post_type":"message","message_type":"group"}',
        '{"post_type":"message","message_type":"group","self_id":1,"user_id":2,"message_id":3,"group_id":4,"message":[{"data":{}}]}',
        `{"status":"ok","retcode":0,"echo":"homed-999"}`,
        "{".repeat(5000),
      ])
        await fake.emitRaw(junk);
      const long = `${"word ".repeat(50)}\n${"more ".repeat(30)}`;
      rig.llm.script([{ text: long }]);
      await fake.groupMessage(GROUP, 40004, [at(fake.selfId), text(" still there?")]);
      const sentParts = () => fake.sends().map((c) => c.params.message as { type: string; data: { text?: string } }[]);
      const joined = (parts: ReturnType<typeof sentParts>) =>
        parts
          .map((p) => p.at(-1)?.data.text)
          .join(" ")
          .replace(/\s+/g, " ")
          .trim();
      // Every part, not only the first two: a long reply goes out as several messages in turn.
      const want = long.replace(/\s+/g, " ").trim();
      await poll(sentParts, (parts) => parts.length >= 2 && joined(parts) === want, {
        what: "the long reply in parts",
      });
      const parts = sentParts();
      expect(parts[0]?.[0]?.type).toBe("reply");
      expect(parts[1]?.[0]?.type).toBe("text");
      for (const p of parts) expect((p.at(-1)?.data.text ?? "").length).toBeLessThanOrEqual(100);
      expect(joined(parts)).toBe(want);
      // A failed turn tells a group only that it failed; the reason stays in the log.
      rig.llm.script([
        { status: 400, body: { error: { message: "provider detail xyzzy", type: "invalid_request_error" } } },
      ]);
      await fake.groupMessage(GROUP, 40004, [at(fake.selfId), text(" break it")]);
      const failed = await fake.waitForCall((c) => JSON.stringify(c.params).includes("could not answer"));
      expect(JSON.stringify(failed.params)).toContain("(homed could not answer just now)");
      expect(JSON.stringify(failed.params)).not.toContain("xyzzy");
      await rig.daemon.waitFor(/qq turn failed.*xyzzy/);

      const after = await rig.qqPlugin();
      expect(after).toMatchObject({ state: "ready", pid: before.pid, restarts: 0 });
      await rig.daemon.waitFor("qq frame is not JSON; dropped");

      // The implementation goes away and comes back on the same port: the plugin reconnects.
      fake.stop();
      await rig.daemon.waitFor("qq disconnected; reconnecting");
      fake = await startFakeOneBot({ accessToken: TOKEN, port });
      await waitConnected(fake);
      rig.llm.script([{ text: "back again" }]);
      await fake.groupMessage(GROUP, 40004, [at(fake.selfId), text(" and now?")]);
      const again = await fake.waitForCall((c) => c.action === "send_group_msg");
      expect(JSON.stringify(again.params.message)).toContain("back again");
      expect((await rig.qqPlugin()).pid).toBe(before.pid);
    } finally {
      fake.stop();
    }
  }, 30_000);
});
