/**
 * What the default scorer understands beyond shared words, through `homed recall --stdio` as a
 * harness uses it: a reply means what it answers (and an answer after a short follow-up
 * question, what the turn before the question says), a user's separate messages do not lend
 * each other meaning, a question's "two weeks ago" prefers what was said then (what says
 * "today" above all), a question for a quantity prefers a number (a measure more than a count),
 * a person's question, or any question not addressed to the assistant, prefers what the person
 * said and one about what the assistant said prefers that, a question about the
 * present state ("these days") prefers the newer of two matching turns, words that only frame a
 * question ("earlier", "can you suggest", "I'm not sure which one to choose"; 最近, 你能推荐)
 * match nothing, a Chinese word the segmenter joined to its neighbour (王芳订, 狗叫) meets the
 * words the turns use (王芳 and 订, 小狗), English words meet across inflections (irregular verbs
 * too), and a data dir indexed in an older layout is re-indexed from the log.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";

const lines = (...ops: unknown[]) => `${ops.map((o) => JSON.stringify(o)).join("\n")}\n`;
const answers = (stdout: string) =>
  stdout.trim()
    ? stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).ids as string[])
    : [];

async function recall(dir: string, scorer: string, ...ops: unknown[]) {
  const r = await run([HOMED, "recall", "-stdio", "-data", dir], {
    stdin: lines(...ops),
    env: { HOMED_RECALL_SCORER: scorer },
  });
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return answers(r.stdout);
}

/** `recall` in a fresh data dir of its own. */
/** A builder of turns in conversation `conv`: (id, speaker, session, text) → an index op. */
const said = (conv: string) => (id: string, speaker: string, session: string, text: string) => ({
  op: "index",
  conv,
  id,
  text,
  speaker,
  session,
});

/** A builder of the person's turns in conversation `conv`: (id, session, text) → an index op. */
const userTurn = (conv: string) => (id: string, session: string, text: string) => said(conv)(id, "user", session, text);

/** The assistant's reply the puppy tests share: it says "puppy" and "name" twice each, and nothing of the person. */
const PUPPY_ADVICE = "Puppy names matter: a puppy learns its name fast.";

/** Query ops of `conv`, each [text, k]. */
const queries = (conv: string, ...asked: [string, number][]) =>
  asked.map(([text, k]) => ({ op: "query", conv, text, k }));

async function ranked(scorer: string, ...ops: unknown[]) {
  using dir = tempDir();
  return await recall(dir.path, scorer, ...ops);
}

/** What the default scorer answers, in a fresh data dir, to `asked` of `conv` once `turns` are indexed. */
const rankedFor = (turns: unknown[], conv: string, ...asked: [string, number][]) =>
  ranked("hybrid", ...turns, ...queries(conv, ...asked));

/** A person's turn of 21 April 2023 (a Friday two weeks before the questions), its own session. */
const spanTurn = (conv: string, id: string, text: string) => ({
  op: "index",
  conv,
  id,
  text,
  speaker: "user",
  time: "2023/04/21 (Fri) 10:00",
  session: id,
});
describe("default scorer", () => {
  test("a short reply is found through the turn it answers; plain BM25 cannot", async () => {
    const chat = [
      {
        op: "index",
        conv: "c",
        id: "q",
        text: "Did you ever try that climbing gym downtown?",
        speaker: "Maya",
        session: 1,
        seq: 1,
      },
      { op: "index", conv: "c", id: "a", text: "Yes! We went last Saturday.", speaker: "Jon", session: 1, seq: 2 },
      { op: "index", conv: "c", id: "x", text: "Haha, totally.", speaker: "Maya", session: 1, seq: 3 },
      {
        op: "index",
        conv: "c",
        id: "y",
        text: "The traffic this morning was terrible.",
        speaker: "Jon",
        session: 1,
        seq: 4,
      },
    ];
    const ask = { op: "query", conv: "c", text: "When did they try the climbing gym?", k: 2 };
    using dir = tempDir();
    expect((await recall(dir.path, "hybrid", ...chat, ask))[0]?.sort()).toEqual(["a", "q"]);
    using plain = tempDir();
    expect(await recall(plain.path, "bm25", ...chat, ask)).toEqual([["q"]]);
  });

  test("an answer after a short follow-up question is found through the turn it answers", async () => {
    const turn = (id: string, speaker: string, text: string) => ({
      op: "index",
      conv: "h",
      id,
      text,
      speaker,
      session: 1,
    });
    const chat = [
      turn("news", "Maya", "Big news: we are moving again."),
      turn("where", "Jon", "What? Where to?"),
      turn("austin", "Maya", "Austin. Sam got the job there."),
      turn("coffee", "Maya", "Anyway, I need coffee so badly right now."),
      turn("traffic", "Jon", "The traffic this morning was terrible."),
    ];
    // "Austin" shares no word with the question; only Maya's name, as "coffee" does.
    using dir = tempDir();
    const [ids] = await recall(dir.path, "hybrid", ...chat, {
      op: "query",
      conv: "h",
      text: "Where is Maya moving to?",
      k: 3,
    });
    expect(ids?.sort()).toEqual(["austin", "news", "where"]);
  });

  test("a user's messages with nothing indexed between them lend each other nothing", async () => {
    using dir = tempDir();
    const ids = await recall(
      dir.path,
      "hybrid",
      { op: "index", conv: "u", id: "1", text: "Any tips for a long flight?", speaker: "user", session: "s", seq: 0 },
      {
        op: "index",
        conv: "u",
        id: "2",
        text: "I just adopted a beagle called Max.",
        speaker: "user",
        session: "s",
        seq: 2,
      },
      { op: "index", conv: "u", id: "3", text: "Thanks!", speaker: "user", session: "s", seq: 4 },
      { op: "query", conv: "u", text: "beagle", k: 5 },
    );
    expect(ids).toEqual([["2"]]);
  });

  test("a question's 'two weeks ago' prefers what was said then over a newer mention", async () => {
    const turns = [
      {
        op: "index",
        conv: "t",
        id: "then",
        text: "I baked banana bread for my friend.",
        speaker: "user",
        time: "2023/04/21 (Fri) 10:00",
        session: "a",
      },
      {
        op: "index",
        conv: "t",
        id: "later",
        text: "I baked banana bread again, for my sister.",
        speaker: "user",
        time: "2023/05/04 (Thu) 10:00",
        session: "b",
      },
    ];
    using dir = tempDir();
    const [withTime, without] = await recall(
      dir.path,
      "hybrid",
      ...turns,
      { op: "query", conv: "t", text: "What did I bake two weeks ago?", k: 2, time: "2023/05/05 (Fri) 09:00" },
      { op: "query", conv: "t", text: "What did I bake two weeks ago?", k: 2 },
    );
    expect(withTime).toEqual(["then", "later"]);
    expect(without).toEqual(["later", "then"]);
  });

  test("a turn said in the span the question names is found without shared words; 'weeks ago' matches nothing", async () => {
    const turn = (id: string, text: string, time: string) => ({
      op: "index",
      conv: "g",
      id,
      text,
      speaker: "user",
      time,
      session: id,
    });
    using dir = tempDir();
    const [ids] = await recall(
      dir.path,
      "hybrid",
      turn("old", "I repotted my spider plant three weeks ago and it looks happier.", "2023/01/10 (Tue) 10:00"),
      turn("tomatoes", "I just put twelve tomato seedlings in the ground today.", "2023/04/21 (Fri) 10:00"),
      turn("app", "Which app tracks soil moisture best?", "2023/05/03 (Wed) 10:00"),
      {
        op: "query",
        conv: "g",
        text: "What did I do in the garden two weeks ago?",
        k: 3,
        time: "2023/05/05 (Fri) 09:00",
      },
    );
    expect(ids?.[0]).toBe("tomatoes");
    expect(ids).not.toContain("old");
  });

  test("in the span a question names, the turn that says 'today' is what happened then", async () => {
    const turn = (id: string, text: string) => spanTurn("d", id, text);
    using dir = tempDir();
    const [ids] = await recall(
      dir.path,
      "hybrid",
      turn("app", "Which garden app tracks soil moisture best? Garden apps are many."),
      turn("tomatoes", "I put twelve tomato seedlings in the garden today."),
      {
        op: "index",
        conv: "d",
        id: "later",
        text: "My garden needs weeding.",
        speaker: "user",
        time: "2023/05/04 (Thu) 10:00",
      },
      {
        op: "query",
        conv: "d",
        text: "What did I do in the garden two weeks ago?",
        k: 1,
        time: "2023/05/05 (Fri) 09:00",
      },
    );
    expect(ids).toEqual(["tomatoes"]);
  });

  test("in that span, a turn that says it 'just' happened (刚) is what happened then, as 'today' is", async () => {
    const turn = spanTurn;
    using dir = tempDir();
    const [en, zh] = await recall(
      dir.path,
      "hybrid",
      turn("j", "app", "Which garden app tracks soil moisture best? Garden apps are many."),
      turn("j", "tomatoes", "I just planted twelve tomato seedlings in the garden."),
      {
        op: "query",
        conv: "j",
        text: "What did I do in the garden two weeks ago?",
        k: 1,
        time: "2023/05/05 (Fri) 09:00",
      },
      turn("z", "app", "哪个花园应用最好用？花园应用很多，花园里用哪个？"),
      turn("z", "tomatoes", "我刚在花园里种了十二棵番茄苗。"),
      { op: "query", conv: "z", text: "我两周前在花园里做了什么？", k: 1, time: "2023/05/05 (Fri) 09:00" },
    );
    expect(en).toEqual(["tomatoes"]);
    expect(zh).toEqual(["tomatoes"]);
  });

  test("a question that adds things up takes its turns from several sessions, not one session's repeats", async () => {
    const turn = (conv: string, id: string, session: string, text: string, time: string) => ({
      op: "index",
      conv,
      id,
      text,
      speaker: "user",
      time,
      session,
    });
    const en = (conv: string) => [
      turn(conv, "a1", "s1", "I spent 30 hours playing The Last of Us, what a game.", "2023/05/20 (Sat) 10:00"),
      turn(
        conv,
        "a2",
        "s1",
        "I spent 3 hours a night playing games, my favourite way to relax.",
        "2023/05/20 (Sat) 10:05",
      ),
      turn(
        conv,
        "a3",
        "s1",
        "I spent hours playing games again; which games should I play next?",
        "2023/05/20 (Sat) 10:10",
      ),
      turn(
        conv,
        "b1",
        "s2",
        "Celeste: I spent 10 hours playing that lovely little game before I finished it at last.",
        "2023/05/25 (Thu) 10:00",
      ),
    ];
    using dir = tempDir();
    const [total, said, zh] = await recall(
      dir.path,
      "hybrid",
      ...en("g"),
      { op: "query", conv: "g", text: "How many hours have I spent playing games in total?", k: 2 },
      ...en("o"),
      // What the assistant said is one reply, not a sum: ranked by score alone.
      { op: "query", conv: "o", text: "How many hours did you say I spent playing games?", k: 2 },
      turn("z", "a1", "s1", "我玩《最后生还者》玩了30个小时，真是好游戏。", "2023/05/20 (Sat) 10:00"),
      turn("z", "a2", "s1", "每天晚上玩3个小时游戏是我最喜欢的放松方式。", "2023/05/20 (Sat) 10:05"),
      turn("z", "a3", "s1", "接下来我该玩什么游戏？玩游戏几个小时让我放松。", "2023/05/20 (Sat) 10:10"),
      turn("z", "b1", "s2", "《蔚蓝》我花了10个小时通关，很可爱的小游戏。", "2023/05/25 (Thu) 10:00"),
      { op: "query", conv: "z", text: "我玩游戏一共花了多少个小时？", k: 3 },
    );
    expect(total).toEqual(["a1", "b1"]);
    expect(said).toEqual(["a1", "a2"]);
    // The other session's turn is among the three; which of s1's two turns that state hours
    // comes second is the words' business (a1 and a2 both tell hours of play).
    expect(zh?.[0]).toBe("a3");
    expect(zh?.[2]).toBe("b1");
    expect(["a1", "a2"]).toContain(zh?.[1] as string);
  });

  test("a question for a quantity prefers the turn that states one", async () => {
    const turn = (id: string, text: string) => ({ op: "index", conv: "n", id, text, speaker: "user", session: id });
    const turns = [
      turn("games", "Playing games with friends, board games above all, is the best part of my week."),
      turn("hours", "Finished Odyssey, it took me 70 hours of playing."),
      turn("traffic", "The traffic this morning was terrible."),
      turn("sister", "My sister is visiting in June."),
    ];
    const ask = { op: "query", conv: "n", text: "How many hours have I spent playing games?", k: 1 };
    using dir = tempDir();
    expect(await recall(dir.path, "hybrid", ...turns, ask)).toEqual([["hours"]]);
    using plain = tempDir();
    expect(await recall(plain.path, "bm25", ...turns, ask)).toEqual([["games"]]);
  });

  test("a number weighs more for a measure ('how much') than for a count of things ('how many clubs')", async () => {
    const turn = userTurn("m");
    const turns = [
      turn("club", "s1", "Our swim club is the best swim club in town, I love the swim club."),
      turn("fee", "s2", "The swim club fee is 40 dollars a month, paid by card, with a form."),
      turn("traffic", "s3", "Traffic was bad."),
    ];
    expect(
      await rankedFor(turns, "m", ["How much is the swim club?", 2], ["How many swim clubs are there?", 2]),
    ).toEqual([
      ["fee", "club"],
      ["club", "fee"],
    ]);
  });

  test("the time between two things is told by when they were said, not by a number: it weighs one as a count does", async () => {
    const turn = userTurn("d");
    const turns = [
      turn("market", "s1", "Off to the Holiday Market!"),
      turn("stall", "s2", "The Holiday Market stall had 12 candles."),
      turn("traffic", "s3", "Traffic was bad."),
    ];
    expect(
      await rankedFor(
        turns,
        "d",
        ["How many days before Christmas did I go to the Holiday Market?", 2],
        ["How many hours did I spend at the Holiday Market?", 2],
      ),
    ).toEqual([
      ["market", "stall"],
      ["stall", "market"],
    ]);
  });

  test("a question in the first person prefers what the person said; one to the assistant, what it said", async () => {
    const turn = said("p");
    const turns = [
      turn(
        "user",
        "user",
        "a",
        "We named the puppy Max, after my grandfather, who loved dogs, the river and the old mill.",
      ),
      turn("assistant", "assistant", "b", PUPPY_ADVICE),
    ];
    expect(
      await rankedFor(turns, "p", ["What did I name my puppy?", 2], ["What did you tell me about naming my puppy?", 2]),
    ).toEqual([
      ["user", "assistant"],
      ["assistant", "user"],
    ]);
    using plain = tempDir();
    expect(await recall(plain.path, "bm25", ...turns, ...queries("p", ["What did I name my puppy?", 2]))).toEqual([
      ["assistant", "user"],
    ]);
  });

  test("a question about someone else, not addressed to the assistant, prefers what the person said; a request does not", async () => {
    const turn = said("q");
    const turns = [
      turn(
        "user",
        "user",
        "a",
        "My sister named her puppy Max, after our grandfather, who loved dogs, the river and the old mill.",
      ),
      turn("assistant", "assistant", "b", PUPPY_ADVICE),
    ];
    expect(await rankedFor(turns, "q", ["What was the puppy named?", 2], ["Give me more puppy names.", 2])).toEqual([
      ["user", "assistant"],
      ["assistant", "user"],
    ]);
  });

  test("a request for advice ('Can you suggest …') prefers what the person said: its 'you' only frames it", async () => {
    const turn = said("r");
    const turns = [
      turn("user", "user", "a", "For my puppies I like short, old-fashioned names, like my grandfather's dog Rex."),
      turn("assistant", "assistant", "b", PUPPY_ADVICE),
    ];
    expect(await rankedFor(turns, "r", ["Can you suggest a name for my new puppy?", 2])).toEqual([
      ["user", "assistant"],
    ]);
  });

  test("a question about what the assistant said prefers its turns over the person's", async () => {
    const turn = (id: string, speaker: string, text: string) => ({
      op: "index",
      conv: "a",
      id,
      text,
      speaker,
      session: "s",
    });
    using dir = tempDir();
    const [ids] = await recall(
      dir.path,
      "hybrid",
      turn("ask", "user", "Which dog names do you like for a puppy? I want a name for my new puppy."),
      turn("list", "assistant", "Some names: Biscuit, Pepper, Luna, Milo."),
      { op: "query", conv: "a", text: "Which puppy names did you suggest for my new puppy?", k: 1 },
    );
    expect(ids).toEqual(["list"]);
  });

  test("a question about the present state prefers the newer of two matching turns, 'these days' matching no day; others do not", async () => {
    const turn = userTurn("e");
    const turns = [
      turn("yoga", "s1", "Yoga every morning is my exercise."),
      turn("office", "s2", "Long days at the office."),
      turn("coffee", "s2", "The coffee place on the corner closed."),
      turn("train", "s3", "The train was late again today."),
      turn("swim", "s4", "Switched to swimming after work, my exercise for the back."),
    ];
    expect(await rankedFor(turns, "e", ["What exercise do I do these days?", 2], ["What is my exercise?", 2])).toEqual([
      ["swim", "yoga"],
      ["yoga", "swim"],
    ]);
  });

  test("'earlier', 'lately' and 'recently' only place a question in time: turns that say them are not what it asks about", async () => {
    const turn = said("f");
    const turns = [
      turn("ask", "user", "s1", "Brainstorm some ideas for my aunt, she is retired."),
      turn(
        "jobs",
        "assistant",
        "s1",
        "Work from home jobs for seniors: 1. Virtual assistant 2. Tutor 3. Transcriptionist 4. Bookkeeper 5. Customer support 6. Online surveys 7. Pet sitting coordinator",
      ),
      turn("walk", "user", "s2", "I walked the dog earlier."),
      turn("rain", "user", "s2", "It rained lately, so we stayed in."),
      turn("pasta", "user", "s2", "Recently I cooked pasta twice."),
    ];
    expect(
      await rankedFor(
        turns,
        "f",
        ["We discussed jobs for seniors earlier, what was the 7th one?", 3],
        ["What have I cooked lately or recently?", 3],
      ),
    ).toEqual([
      ["jobs", "ask"],
      // Nothing else was cooked: the jobs list and the request for ideas used to ride along on
      // the concept "person" (cook, aunt, assistant), which is too general to bridge anything.
      ["pasta"],
    ]);
  });

  test("'Can you suggest …' and 'any tips' only ask for advice: turns that ask for advice too are not what it asks about", async () => {
    const turn = userTurn("h");
    const turns = [
      turn("podcast", "s1", "I listen to history podcasts on my commute, forty minutes each way."),
      turn("recipe", "s2", "Can you suggest a quick recipe for dinner tonight?"),
      turn("hotel", "s3", "Can you recommend a hotel near the station? Any tips for Rome?"),
      turn("book", "s4", "Tom recommended the novel Dune to me, I loved it."),
    ];
    expect(
      await rankedFor(
        turns,
        "h",
        ["Can you suggest some things to do on my commute? Any tips?", 3],
        ["Which book did Tom recommend?", 3],
      ),
    ).toEqual([["podcast"], ["book", "hotel"]]);
  });

  test("a person's hedges ('I've been thinking about', 'not sure which one to choose'), 'types of' and 'how many' are not what they ask about", async () => {
    const turn = userTurn("k");
    const turns = [
      turn("gin", "s1", "I made a gin cocktail with cucumber last week and loved it."),
      turn("offers", "s2", "I got two job offers and I'm not sure which one to choose."),
      turn("move", "s3", "I've been thinking about moving closer to the office."),
      turn("brakes", "s4", "The brakes on my road bike squeal when it rains."),
      turn("homework", "s5", "I'm having trouble with my Python homework."),
      turn("gouda", "s6", "I tried a smoked gouda cheese at the market."),
      turn("yoga", "s7", "My gym has different types of yoga classes."),
      turn("climb", "s8", "Went to the climbing wall on Monday and again on Thursday."),
      turn("mall", "s9", "So many people at the mall, far too much noise."),
    ];
    expect(
      await rankedFor(
        turns,
        "k",
        ["I've been thinking about making a cocktail for a party, but I'm not sure which one to choose.", 3],
        ["Which job offers did I get?", 3],
        ["I've been having trouble with my bike's brakes. Any tips?", 3],
        ["How many different types of cheese have I tried?", 3],
        // After the wall only what a concept bridges ("climb" meets "moving"), not the mall's "so many".
        ["How many times did I visit the climbing wall?", 2],
      ),
    ).toEqual([["gin"], ["offers"], ["brakes"], ["gouda"], ["climb", "move"]]);
  });

  test("你能推荐… asks for advice that fits what the person said: its 你 only frames the request", async () => {
    const turn = said("zr");
    const turns = [
      turn("user", "user", "a", "我家小狗的名字我喜欢简短老派的，像爷爷的狗叫旺财。"),
      turn("assistant", "assistant", "b", "小狗的名字很重要：小狗很快就能记住自己的名字。"),
    ];
    expect(
      await rankedFor(turns, "zr", ["你能推荐一个小狗的名字吗？", 2], ["你可以给我推荐几个小狗的名字吗？", 2]),
    ).toEqual([
      ["user", "assistant"],
      ["user", "assistant"],
    ]);
  });

  test("最近 only places a question in time, like 'recently': a turn that says it is not what the question asks about", async () => {
    const turn = userTurn("zj");
    const turns = [
      turn("busy", "a", "最近工作很忙，最近老是加班，没空读书。"),
      turn("book", "b", "我在看《三体》，这本书真好看。"),
      turn("rain", "c", "今天下雨了。"),
    ];
    // 读书 (to read books) is about books too, below the book itself; the busy turn's 最近 counts nothing.
    expect(await rankedFor(turns, "zj", ["我最近在看什么书？", 2])).toEqual([["book", "busy"]]);
  });

  test("a Chinese query word no turn uses meets the turns' words that make it up; plain BM25 cannot", async () => {
    const turn = (id: string, speaker: string, text: string) => ({
      op: "index",
      conv: "z",
      id,
      text,
      speaker,
      session: "s",
    });
    const turns = [
      turn("broke", "王芳", "车今天早上又坏了。"),
      turn("ordered", "王芳", "已经订了一辆，小型电动车。"),
      turn("film", "李明", "我在看电影。"),
      turn("puppy", "李明", "不会吧，小狗？"),
      turn("hike", "李明", "周末去爬山了。"),
      // Not right after 小狗？: the turn after a short question answers it, and takes its score.
      turn("tired", "小雨", "我今天很累。"),
    ];
    // jieba: 王芳订 / 车 and 小雨 / 狗叫 / 名字: neither 王芳订 nor 狗叫 is in any turn.
    const ask = [
      { op: "query", conv: "z", text: "王芳订了什么车？", k: 2 },
      { op: "query", conv: "z", text: "小雨的狗叫什么名字？", k: 1 },
    ];
    using dir = tempDir();
    const [car, dog] = await recall(dir.path, "hybrid", ...turns, ...ask);
    expect(car?.sort()).toEqual(["broke", "ordered"]);
    expect(dog).toEqual(["puppy"]);
    using plain = tempDir();
    expect(await recall(plain.path, "bm25", ...turns, ...ask)).toEqual([["broke"], []]);
  });

  test("an irregular past form meets its verb (bought, buy)", async () => {
    using dir = tempDir();
    const ids = await recall(
      dir.path,
      "bm25",
      { op: "index", conv: "v", id: "kayak", text: "I finally bought a kayak!" },
      { op: "index", conv: "v", id: "n", text: "The traffic this morning was terrible." },
      { op: "query", conv: "v", text: "What did I buy?", k: 2 },
    );
    expect(ids).toEqual([["kayak"]]);
  });

  test("English words meet across inflections (Porter stems)", async () => {
    using dir = tempDir();
    const ids = await recall(
      dir.path,
      "bm25",
      { op: "index", conv: "s", id: "r", text: "We are relocating to Austin next month." },
      { op: "index", conv: "s", id: "h", text: "Happiness is a warm croissant." },
      { op: "index", conv: "s", id: "n", text: "The traffic this morning was terrible." },
      { op: "query", conv: "s", text: "relocation", k: 3 },
      { op: "query", conv: "s", text: "happy", k: 3 },
    );
    expect(ids).toEqual([["r"], ["h"]]);
  });
});

describe("a dialogue between people", () => {
  const turn = (id: string, speaker: string, session: number, text: string, time?: string) => ({
    op: "index",
    conv: "d",
    id,
    text,
    speaker,
    session,
    ...(time ? { time } : {}),
  });
  const others = [
    turn("traffic", "Jon", 3, "The traffic this morning was terrible."),
    turn("coffee", "Maya", 4, "I need coffee so badly right now."),
    turn("film", "Jon", 5, "We watched an old film about sailors last night."),
  ];

  test("a name said in the other's turn addresses them: what the named person said comes first; plain BM25 cannot", async () => {
    const chat = [
      turn("praise", "Jon", 1, "Maya, your pottery looked great at the fair!"),
      turn("calm", "Maya", 2, "Pottery keeps me calm after work."),
      ...others,
    ];
    const ask = { op: "query", conv: "d", text: "What does Maya think of pottery?", k: 2 };
    using dir = tempDir();
    expect((await recall(dir.path, "hybrid", ...chat, ask))[0]).toEqual(["calm", "praise"]);
    using plain = tempDir();
    expect((await recall(plain.path, "bm25", ...chat, ask))[0]?.[0]).toBe("praise");
  });

  test("a person's turn after a question answers it, however long it runs", async () => {
    const chat = [
      turn("asks", "Jon", 1, "How often do you swim?"),
      turn(
        "answer",
        "Maya",
        1,
        "Most mornings before work. It clears my head, my shoulder finally stopped hurting, and the pool " +
          "near the office opens at six, so I go straight from there to my desk with wet hair.",
      ),
      turn("cousin", "Jon", 2, "My cousin swims in the lake every summer, rain or shine, with his old dog."),
      turn("dog", "Maya", 2, "Ha, that dog is braver than me!"),
      ...others,
    ];
    using dir = tempDir();
    const [ids] = await recall(dir.path, "hybrid", ...chat, {
      op: "query",
      conv: "d",
      text: "How often does Maya swim?",
      k: 2,
    });
    expect(ids?.sort()).toEqual(["answer", "asks"]);
  });

  test("the answer to a follow-up question means what the question followed up", async () => {
    const at = (conv: string, id: string, speaker: string, session: number, text: string) => ({
      ...turn(id, speaker, session, text),
      conv,
    });
    using dir = tempDir();
    const ids = await recall(
      dir.path,
      "hybrid",
      at("d", "picnic", "Maya", 1, "Last weekend I had a picnic with some friends from church. So relaxing!"),
      at("d", "what", "Jon", 1, "Fun! What did you get up to?"),
      at("d", "games", "Maya", 1, "Charades and a scavenger hunt. We laughed so much!"),
      at("d", "church", "Jon", 2, "Our church picnic is next month; friends bring food."),
      ...others,
      { op: "query", conv: "d", text: "What did Maya do at the picnic with her church friends?", k: 3 },
      at("z", "picnic", "小美", 1, "上周末我和教会的朋友去野餐了，很放松！"),
      at("z", "what", "小王", 1, "真好！你们玩了什么？"),
      at("z", "games", "小美", 1, "猜字谜和寻宝游戏，笑死了！"),
      at("z", "church", "小王", 2, "我们教会下个月也要野餐，朋友们会带吃的。"),
      at("z", "traffic", "小王", 3, "今天早上堵车太厉害了。"),
      { op: "query", conv: "z", text: "小美和教会的朋友野餐时做了什么？", k: 3 },
    );
    expect(ids).toEqual([
      ["picnic", "church", "games"],
      ["picnic", "church", "games"],
    ]);
  });

  test("a calendar date in the question prefers what was said that day, with no time of asking", async () => {
    const chat = [
      turn("lake", "Maya", 1, "I painted the lake at dawn, finally!", "1:56 pm on 8 May, 2023"),
      turn("wall", "Maya", 2, "I painted the kitchen wall blue.", "10:04 am on 20 June, 2023"),
      ...others,
    ];
    const ask = (text: string) => ({ op: "query", conv: "d", text, k: 1 });
    using dir = tempDir();
    expect(
      await recall(
        dir.path,
        "hybrid",
        ...chat,
        ask("What did Maya paint on 8 May, 2023?"),
        ask("What did Maya paint?"),
      ),
    ).toEqual([["lake"], ["wall"]]);
  });
});

describe("an index in an older layout", () => {
  // White-box on purpose: the only way to have an old layout is to write one.
  test("is re-made from the log on open", async () => {
    using dir = tempDir();
    await recall(dir.path, "hybrid", { op: "index", conv: "o", id: "p", text: "cello lessons twice a week" });
    const db = new Database(join(dir.path, "homed.db"));
    db.exec(`UPDATE event_terms SET terms = '{"cello":1}'; DELETE FROM meta WHERE key = 'lexical_format'`);
    db.close();
    expect(await recall(dir.path, "hybrid", { op: "query", conv: "o", text: "lessons", k: 1 })).toEqual([["p"]]);
  });
});
