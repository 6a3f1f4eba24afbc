/**
 * The bike/bicycle scenario, through the daemon as a user meets it: the first turn says "My bike
 * is a red Brompton", sixty turns on other topics follow, the model's window is 1024 tokens, and
 * then the user asks about the bicycle. The bike turn is far older than anything recency could
 * keep (and is checked to be cold, in L2, before each question), so it can only reach the model
 * by relevance — across "bike"/"bicycle" (and 单车/自行车) through the concept bridges, by its
 * words otherwise: a whole turn when the question comes as memory plans the context again, a
 * quote after the history otherwise (the plan made on an earlier turn stays, so the provider's
 * cached prefix does). The history stays within its budget and fills at least half of it: a plan
 * fills 60 % and grows from there.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig, type AgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { estimateTokens } from "../../src/memory/tokens.ts";

const WINDOW = 1024;
/** What the kernel keeps for the reply at this window (src/agent/turn.ts outputReserve: 256 at least) and the prompt's margin. */
const OUTPUT = 256;
const MARGIN = 256;

const EN_TOPICS = [
  [
    "I'm planning a weekend hike near the lake, any trail tips?",
    "Start early, carry water and check the trail map before you go.",
  ],
  [
    "How long should I boil an egg for a soft yolk?",
    "About six minutes in gently boiling water, then cool it quickly.",
  ],
  ["My sister is moving to Lisbon next spring.", "Lisbon is lovely in spring; she will enjoy the trams and the river."],
  ["What is a good book about the history of Rome?", "Mary Beard's SPQR is readable and well researched."],
  ["I started learning the piano last month.", "Practise a little every day; scales help more than you would think."],
  ["Our team meeting moved to Thursday afternoon.", "Noted: Thursday afternoon for the team meeting."],
  ["Can you suggest a dinner with lentils?", "A lentil curry with rice and spinach is quick and filling."],
  ["The printer at work keeps jamming.", "Check the paper tray guides and use paper that is not damp."],
  ["I want to improve my sleep schedule.", "Keep the same wake-up time every day and avoid screens late at night."],
  ["We adopted a kitten called Miso.", "Congratulations! Kittens love to play, so hide the cables."],
  ["What's the capital of Australia?", "Canberra, not Sydney, as many people assume."],
  ["I'm reading about black holes tonight.", "Hawking radiation is a fascinating place to start."],
  ["My tomato plants have yellow leaves.", "Often too much water or a lack of nitrogen; let the soil dry a little."],
  ["Any tips for a job interview on Monday?", "Prepare two stories about problems you solved and ask good questions."],
  ["The train to Leeds was late again.", "That is frustrating; you may be able to claim a delay refund."],
  ["I need a birthday present for my dad.", "A good fountain pen or a day out together both work well."],
  ["How do I make sourdough starter?", "Mix flour and water, feed it daily, and wait about a week."],
  ["Our flat is cold in the mornings.", "Bleed the radiators and check the timer on the boiler."],
  ["I'm learning Spanish on my phone.", "Add some podcasts; listening helps the words stick."],
  ["Remind me what a Roth IRA is.", "A retirement account funded after tax, with tax-free withdrawals later."],
];
const ZH_TOPICS = [
  ["这个周末我想去爬山，有什么建议？", "早点出发，带够水，出发前看看天气预报。"],
  ["煮溏心蛋要多长时间？", "水开后大约六分钟，然后马上放进冷水里。"],
  ["我妹妹明年春天要搬到里斯本。", "里斯本的春天很美，她会喜欢那里的老城区。"],
  ["有什么好书讲罗马历史？", "可以看看《罗马人的故事》，写得很好读。"],
  ["我上个月开始学钢琴了。", "每天练一点，音阶比想象中更有用。"],
  ["我们的团队会议改到周四下午了。", "记下了：周四下午开团队会议。"],
  ["晚饭用扁豆能做什么？", "扁豆咖喱配米饭和菠菜，又快又顶饱。"],
  ["公司的打印机老是卡纸。", "检查一下纸盒的导板，别用受潮的纸。"],
  ["我想把作息调整好。", "每天同一时间起床，晚上少看手机。"],
  ["我们领养了一只小猫，叫味噌。", "恭喜！小猫爱玩，把电线藏好。"],
  ["澳大利亚的首都是哪里？", "堪培拉，不是很多人以为的悉尼。"],
  ["今晚我在读关于黑洞的书。", "霍金辐射是个很有意思的起点。"],
  ["我的番茄苗叶子发黄了。", "多半是浇水太多或者缺氮，让土干一干。"],
  ["周一有个面试，有什么建议？", "准备两个你解决过的问题的故事，再准备几个好问题。"],
  ["去利兹的火车又晚点了。", "真烦人，你也许可以申请延误退款。"],
  ["我要给爸爸买生日礼物。", "一支好钢笔或者一起出去玩一天都不错。"],
  ["酸面包的酵头怎么做？", "面粉加水，每天喂一次，大约等一周。"],
  ["我们家早上很冷。", "给暖气片放放气，检查一下锅炉的定时器。"],
  ["我在用手机学西班牙语。", "再听听播客，多听更容易记住单词。"],
  ["提醒我一下什么是养老储蓄账户。", "一种税后存入、以后免税取出的退休账户。"],
];

const quiet = { warn: () => {}, debug: () => {} };

async function rpc(rig: AgentRig, method: string, params: unknown): Promise<unknown> {
  const c = await connectUnixRpc(rig.daemon.socket, quiet);
  try {
    return await c.peer.request(method, params);
  } finally {
    c.close();
  }
}

interface Sent {
  role: string;
  content: string;
}

async function say(rig: AgentRig, conv: string, text: string, reply: string): Promise<Sent[]> {
  rig.llm.script([{ text: reply }]);
  const r = await rig.chat(text, { conv });
  expect(r.exitCode).toBe(0);
  const last = rig.llm.requests.at(-1);
  if (!last) throw new Error("the model was not called");
  return (last.body as { messages: Sent[] }).messages;
}

/** Sixty turns on other topics, each a different message (a numbered variation of a topic). */
async function otherTopics(rig: AgentRig, conv: string, topics: string[][], n: number, from: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const [q, a] = topics[i % topics.length] as [string, string];
    await say(rig, conv, i < topics.length ? q : `${q} (${Math.floor(i / topics.length) + 1})`, a);
  }
}

/**
 * The history the model was sent (everything between the system prompt and the input) and the
 * budget the kernel had for it, both in the kernel's own estimate (a message costs its text and 4).
 */
function usage(sent: Sent[]): { history: number; budget: number } {
  const [system, ...rest] = sent;
  const input = rest.pop() as Sent;
  expect(system?.role).toBe("system");
  const history = rest.reduce((n, m) => n + estimateTokens(m.content) + 4, 0);
  const budget = WINDOW - OUTPUT - MARGIN - estimateTokens((system as Sent).content) - estimateTokens(input.content);
  return { history, budget };
}

async function startRig(dir: string): Promise<AgentRig> {
  await Bun.write(join(dir, "config.toml"), `[llm]\ncontext_window = ${WINDOW}\n`);
  const rig = await startAgentRig(dir, { plugin: false });
  await rpc(rig, "llm.set", { provider: "openai", baseURL: rig.llm.url, model: "test-model", contextWindow: WINDOW });
  return rig;
}

/** What the memory page is given for the conversation's last model call (GET /api/context/:conv). */
async function whyInContext(
  rig: AgentRig,
  conv: string,
): Promise<{ content: string; layer: string; reason: string | null; recalled: boolean; filled: boolean }[]> {
  const res = await fetch(`${await webUrlOf(rig.daemon)}api/context/${encodeURIComponent(conv)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: never[] }).messages;
}

async function isCold(rig: AgentRig, conv: string, text: string, fact: string): Promise<boolean> {
  const p = (await rpc(rig, "memory.peek", { conv, text, k: 10 })) as { candidates: { preview: string }[] };
  return p.candidates.some((c) => c.preview.includes(fact));
}

const CASES = [
  {
    lang: "English",
    fact: "My bike is a red Brompton",
    ack: "Nice, Bromptons fold up small.",
    topics: EN_TOPICS,
    questions: ["What colour is my bicycle?", "Which brand is my bike?"],
  },
  {
    lang: "Chinese",
    fact: "我的自行车是一辆红色的Brompton",
    ack: "不错，Brompton 折叠起来很小。",
    topics: ZH_TOPICS,
    // 单车 meets 自行车 only through their concepts (bicycle, bike).
    questions: ["我的自行车是什么颜色？", "我的单车是什么牌子的？"],
  },
];

describe("the bike/bicycle scenario through the daemon (window 1024, 60 turns on other topics)", () => {
  for (const c of CASES)
    test(`${c.lang}: the bike turn comes back by relevance and the budget is used`, async () => {
      using dir = tempDir();
      await using rig = await startRig(dir.path);
      const conv = `bike-${c.lang}`;
      await say(rig, conv, c.fact, c.ack);
      await otherTopics(rig, conv, c.topics, 60, 0);
      let from = 60;
      for (const q of c.questions) {
        // Cold before the question: recency has not kept it in context.
        expect(await isCold(rig, conv, q, c.fact)).toBe(true);
        const sent = await say(rig, conv, q, "Answered.");
        expect(sent.at(-1)?.content).toBe(q);
        expect(sent.some((m) => m.content.includes(c.fact))).toBe(true);
        const { history, budget } = usage(sent);
        expect(history).toBeLessThanOrEqual(budget);
        expect(history).toBeGreaterThanOrEqual(0.5 * budget);
        // The memory page says why each turn is there: the bike turn was cold and matched.
        const view = await whyInContext(rig, conv);
        const bike = view.filter((m) => m.content.includes(c.fact));
        expect(bike.map((m) => [m.reason, m.recalled, m.filled])).toEqual([["relevant", true, false]]);
        // The newest turns are there: pinned by a new plan, or kept from the last one.
        const lastPast = view.findLast((m) => m.reason !== null && m.layer === "L1");
        expect(["pinned", "kept"]).toContain(lastPast?.reason as string);
        // Every past message says why it is there; only the system prompt and the input do not.
        expect(view.filter((m) => m.reason === null).length).toBe(2);
        expect(
          view.every((m) => m.reason === null || ["pinned", "relevant", "recent", "kept"].includes(m.reason)),
        ).toBe(true);
        // More turns on other topics, until the bike turn is cold again for the next question.
        await otherTopics(rig, conv, c.topics, 12, from);
        from += 12;
      }
    }, 180_000);
});
