/**
 * The bike scenario across conversations, through the daemon as a person meets it: one chat
 * says "my bike is a red Gazelle that I bought in Utrecht", sixty turns on other things follow,
 * and other conversations ask about the bicycle — from `homed chat`, from the web UI, and over
 * /v1 by a client that sends only its newest message. Each time the model is sent the statement
 * (the recall note), also after the question was asked (and only echoed) elsewhere, and the
 * memory page's search ranks the statement above the question that went unanswered. The model
 * answers the first askings as one that knows nothing would ("ok, noted.", "I don't know"): such
 * an exchange adds nothing, and the third asking is sent the statement alone. In English (bike/bicycle, colour/color) and
 * in Chinese (单车/自行车).
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig, type AgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";

interface Sent {
  role: string;
  content: string;
}

const CASES = [
  {
    lang: "English",
    fact: "By the way, my bike is a red Gazelle that I bought in Utrecht.",
    other: (i: number) => [
      `How long should I roast a chicken of ${1 + (i % 3)} kilos? (${i})`,
      "About 45 minutes a kilo.",
    ],
    cli: "What colour is my bicycle?",
    web: "What color is my bike?",
    v1: "Where did I buy my bicycle?",
    search: "bicycle",
  },
  {
    lang: "Chinese",
    fact: "顺便说一下，我的单车是一辆红色的捷安特，是在杭州买的。",
    other: (i: number) => [`红烧肉要炖多久？第${i}次问`, "小火炖一个小时左右。"],
    cli: "我的自行车是什么颜色的？",
    web: "我的单车是什么颜色？",
    v1: "我的自行车是在哪里买的？",
    search: "自行车",
  },
];

/** What the model was sent last, all messages' text joined. */
function lastSent(rig: AgentRig): string {
  const last = rig.llm.requests.at(-1);
  if (!last) throw new Error("the model was not called");
  return (last.body as { messages: Sent[] }).messages.map((m) => m.content).join("\n");
}

describe("the bike scenario across conversations (60 turns between)", () => {
  for (const c of CASES)
    test(`${c.lang}: homed chat, the web UI and /v1 are sent the statement; the memory page ranks it first`, async () => {
      using dir = tempDir();
      await using rig = await startAgentRig(dir.path, { plugin: false });
      const chat = async (conv: string, text: string, reply: string) => {
        rig.llm.script([{ text: reply }]);
        expect((await rig.chat(text, { conv })).exitCode).toBe(0);
      };
      await chat("garage", c.fact, "Noted.");
      for (let i = 0; i < 60; i++) {
        const [q, a] = c.other(i) as [string, string];
        await chat("garage", q, a);
      }

      // homed chat, a new conversation; the model only acknowledges, adding nothing of its own.
      await chat("cli-ask", c.cli, c.lang === "English" ? "ok, noted." : "好的，记下了。");
      expect(lastSent(rig)).toContain(c.fact);
      // Again elsewhere; the model can only echo the question.
      await chat(
        "cli-ask-2",
        c.cli,
        c.lang === "English" ? "I don't know what colour your bicycle is." : "我不知道你的自行车是什么颜色。",
      );
      expect(lastSent(rig)).toContain(c.fact);

      // The memory page's search: the statement first, not the question that went unanswered.
      const web = await webUrlOf(rig.daemon);
      const hits = (await (await fetch(`${web}api/memory/search?q=${encodeURIComponent(c.search)}`)).json()) as {
        text: string;
      }[];
      expect(hits[0]?.text).toBe(c.fact);

      // The same question a third time elsewhere: the statement, and neither earlier asking nor
      // the replies that added nothing.
      await chat("cli-again", c.cli, "Red.");
      const again = lastSent(rig);
      expect(again).toContain(c.fact);
      expect(again.split(c.cli).length - 1).toBe(1);
      expect(again).not.toContain(c.lang === "English" ? "ok, noted." : "好的，记下了。");

      // The web UI.
      rig.llm.script([{ text: "A Gazelle." }]);
      const res = await fetch(`${web}api/chat`, {
        method: "POST",
        // What the web UI sends: a request no other site can make.
        headers: { "content-type": "application/json", "X-Homed": "1" },
        body: JSON.stringify({ conv: "web-ask", text: c.web }),
      });
      expect(res.status).toBe(200);
      await res.text();
      expect(lastSent(rig)).toContain(c.fact);

      // /v1, a client that keeps its own conversation and sends only the newest message.
      rig.llm.script([{ text: "In Utrecht." }]);
      const v1 = await fetch(`${web}v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-Homed-Conversation": "garage-api" },
        body: JSON.stringify({ model: "homed", messages: [{ role: "user", content: c.v1 }] }),
      });
      expect(v1.status).toBe(200);
      expect(lastSent(rig)).toContain(c.fact);
    }, 120_000);

  test("/v1: a client that sends only its newest message is given its conversation's own earlier turns", async () => {
    using dir = tempDir();
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const web = await webUrlOf(rig.daemon);
    const send = async (content: string, reply: string) => {
      rig.llm.script([{ text: reply }]);
      const r = await fetch(`${web}v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-Homed-Conversation": "desk" },
        body: JSON.stringify({ model: "homed", messages: [{ role: "user", content }] }),
      });
      expect(r.status).toBe(200);
      await r.text();
      return lastSent(rig);
    };
    await send("The wifi password at the cabin is larch-7741.", "Got it.");
    for (let i = 0; i < 5; i++) await send(`Unrelated note number ${i} about groceries.`, "OK.");
    const sent = await send("What is the cabin wifi password?", "larch-7741");
    expect(sent).toContain("The wifi password at the cabin is larch-7741.");
    expect(sent).toContain("this conversation");
  }, 60_000);
});
