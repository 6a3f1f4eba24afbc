/** Times as conversation sets write them, and the spans questions name relative to when they are asked. */
import { describe, expect, test } from "bun:test";
import { dateWindow, parseTime, saysToday, timeWindow, withoutTimePhrases } from "../../src/memory/time.ts";

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const span = (text: string, now: string) => {
  const w = timeWindow(text, Date.parse(now));
  return w && [new Date(w.from).toISOString().slice(0, 10), new Date(w.to).toISOString().slice(0, 10)];
};

describe("parseTime", () => {
  test("LongMemEval's, LoCoMo's, ISO and epoch forms; anything else is null", () => {
    expect(parseTime("2023/05/30 (Tue) 23:40")).toBe(Date.parse("2023-05-30T23:40:00Z"));
    expect(parseTime("1:56 pm on 8 May, 2023")).toBe(Date.parse("2023-05-08T13:56:00Z"));
    expect(parseTime("2023-05-08")).toBe(day("2023-05-08"));
    expect(parseTime(1_683_504_000)).toBe(day("2023-05-08"));
    expect(parseTime("last week")).toBeNull();
  });
});

describe("timeWindow", () => {
  const now = "2023-05-05T16:00:00Z"; // a Friday
  test("English spans", () => {
    expect(span("What did I plant two weeks ago?", now)).toEqual(["2023-04-18", "2023-04-25"]);
    expect(span("Who did I meet for lunch last Tuesday?", now)).toEqual(["2023-05-01", "2023-05-04"]);
    expect(span("concerts I attended in the past two months", now)).toEqual(["2023-03-05", "2023-05-05"]);
    expect(span("the first BBQ in March", now)).toEqual(["2023-02-28", "2023-04-02"]);
    expect(span("How many days ago did I watch the Super Bowl?", now)).toBeNull();
    // Weekends: the last one (Saturday 29 April) and those before it, a week apart.
    expect(span("Where did I hike this past weekend?", now)).toEqual(["2023-04-27", "2023-05-01"]);
    expect(span("Where did I hike last weekend?", now)).toEqual(["2023-04-27", "2023-05-01"]);
    expect(span("What did I bake two weekends ago?", now)).toEqual(["2023-04-20", "2023-04-24"]);
    expect(span("What have I been reading for the past two weeks?", now)).toEqual(["2023-04-20", "2023-05-05"]);
    expect(span("Which trips did I take last year?", now)).toEqual(["2021-12-31", "2023-01-02"]);
  });
  test("Chinese spans", () => {
    expect(span("我上周六去了哪里？", now)).toEqual(["2023-04-28", "2023-05-01"]); // around Saturday 29 April
    expect(span("三天前我买了什么？", now)).toEqual(["2023-04-30", "2023-05-04"]);
    expect(span("我最近两个月看了几场演出？", now)).toEqual(["2023-03-05", "2023-05-05"]);
    expect(span("我上周末去哪里爬山了？", now)).toEqual(["2023-04-27", "2023-05-01"]);
    expect(span("两个周末前我烤了什么？", now)).toEqual(["2023-04-20", "2023-04-24"]);
    expect(span("我去年去了哪些地方旅行？", now)).toEqual(["2021-12-31", "2023-01-02"]);
  });
});

describe("timeWindow by the calendar", () => {
  const now = "2026-12-09T10:00:00Z"; // a Wednesday
  test("weeks run Monday to Sunday, months and years by the calendar, each with a day's slack", () => {
    expect(span("What did I read this week?", now)).toEqual(["2026-12-06", "2026-12-10"]);
    expect(span("这周我读了什么书？", now)).toEqual(["2026-12-06", "2026-12-10"]);
    expect(span("What did I do the week before last?", now)).toEqual(["2026-11-22", "2026-12-01"]);
    expect(span("上上周我去了哪里？", now)).toEqual(["2026-11-22", "2026-12-01"]);
    expect(span("How much did I spend earlier this month?", now)).toEqual(["2026-11-30", "2026-12-10"]);
    expect(span("这个月我花了多少钱？", now)).toEqual(["2026-11-30", "2026-12-10"]);
    expect(span("上上个月我去了哪儿？", now)).toEqual(["2026-09-30", "2026-11-02"]);
    expect(span("前年我在哪儿工作？", now)).toEqual(["2023-12-31", "2025-01-02"]);
    expect(span("大前天我吃了什么？", now)).toEqual(["2026-12-05", "2026-12-07"]);
  });
  test("seasons: 'last' is the latest that has ended, a calendar year's is that year's", () => {
    expect(span("Where did I go last summer?", now)).toEqual(["2026-05-31", "2026-09-02"]);
    expect(span("What did I plant last winter?", now)).toEqual(["2025-11-30", "2026-03-02"]);
    expect(span("去年夏天我去了哪儿？", now)).toEqual(["2025-05-31", "2025-09-02"]);
    expect(span("今年春天我学了什么？", now)).toEqual(["2026-02-28", "2026-06-02"]);
  });
  test("a month by its number, as 'in March': this year's, or last year's when it has not come yet", () => {
    expect(span("三月份我去了哪儿？", now)).toEqual(["2026-02-28", "2026-04-02"]);
    expect(span("5月3号我做了什么？", now)).toEqual(["2026-05-02", "2026-05-04"]);
    expect(span("三个月前我买了什么？", now)).not.toEqual(["2026-02-28", "2026-04-02"]);
    expect(span("我每月给家里打多少钱？", now)).toBeNull();
    expect(span("我姥姥今年九十二了吗？", now)).toBeNull();
  });
  test("their phrases leave the question", () => {
    const clean = (t: string) => withoutTimePhrases(t).replace(/\s+/g, "").trim();
    expect(clean("What did I read this week?")).toBe("WhatdidIread?");
    expect(clean("Where did I go last summer?")).toBe("WheredidIgo?");
    expect(clean("上上周我去了哪里？")).toBe("我去了哪里？");
    expect(clean("三月份我去了哪儿？")).toBe("我去了哪儿？");
    expect(clean("去年夏天我去了哪儿？")).toBe("我去了哪儿？");
  });
});

describe("dateWindow", () => {
  const dated = (text: string) => {
    const w = dateWindow(text);
    return w && [new Date(w.from).toISOString().slice(0, 10), new Date(w.to).toISOString().slice(0, 10)];
  };
  test("a calendar date is the day with a day either side, a month and year the month; no 'now' needed", () => {
    expect(dated("What did Ana paint on October 13, 2023?")).toEqual(["2023-10-12", "2023-10-15"]);
    expect(dated("What did Ana say on 31 July, 2023?")).toEqual(["2023-07-30", "2023-08-02"]);
    expect(dated("the week before August 3rd 2023")).toEqual(["2023-08-02", "2023-08-05"]);
    expect(dated("What was Ana doing in May 2023?")).toEqual(["2023-04-30", "2023-06-02"]);
    expect(dated("minutes of 2024-02-29")).toEqual(["2024-02-28", "2024-03-02"]);
    expect(dated("2023年10月13日安娜画了什么？")).toEqual(["2023-10-12", "2023-10-15"]);
    expect(dated("2023年5月安娜在做什么？")).toEqual(["2023-04-30", "2023-06-02"]);
  });
  test("a month without a year, a year alone or a number are no date", () => {
    expect(dated("What did Ana do in May?")).toBeNull();
    expect(dated("Where did Ana live in 2019?")).toBeNull();
    expect(dated("Is 13 a lucky number for Ana?")).toBeNull();
  });
});

describe("withoutTimePhrases", () => {
  test("leaves out what names the span, keeps what the question is about", () => {
    const clean = (t: string) => withoutTimePhrases(t).replace(/\s+/g, " ").trim();
    expect(clean("What did I plant two weeks ago?")).toBe("What did I plant ?");
    expect(clean("Who did I meet last Tuesday for lunch?")).toBe("Who did I meet for lunch?");
    expect(clean("concerts in the past two months")).toBe("concerts");
    expect(clean("Where did I hike this past weekend?")).toBe("Where did I hike ?");
    expect(clean("What did I bake two weekends ago?")).toBe("What did I bake ?");
    expect(clean("books for the past two weeks")).toBe("books");
    expect(clean("trips last year")).toBe("trips");
    expect(withoutTimePhrases("我上周末去哪里爬山了？").replace(/\s/g, "")).toBe("我去哪里爬山了？");
    expect(withoutTimePhrases("两个周末前我烤了什么？").trim()).toBe("我烤了什么？");
    expect(withoutTimePhrases("我去年去了哪些地方旅行？").replace(/\s/g, "")).toBe("我去了哪些地方旅行？");
    expect(withoutTimePhrases("我上周六去了哪里？").replace(/\s/g, "")).toBe("我去了哪里？");
    expect(withoutTimePhrases("三天前我买了什么？").trim()).toBe("我买了什么？");
    expect(clean("What did Ana paint on October 13, 2023?")).toBe("What did Ana paint on ?");
    expect(clean("What was Ana doing in May 2023?")).toBe("What was Ana doing in ?");
    expect(clean("How many days ago did I watch the Super Bowl?")).toBe(
      "How many days ago did I watch the Super Bowl?",
    );
  });
});

describe("saysToday", () => {
  test("'today', and 'just' before a past form, 刚 before what happened: the event is as recent as the turn", () => {
    for (const t of [
      "I planted tomatoes today.",
      "I just got back from a solo trip to New York City.",
      "I just finished the Midsummer 5K with a personal best.",
      "By the way, I just turned 32 last month.",
      "今天我在花园里种了番茄。",
      "我刚买了一辆自行车。",
      "我刚刚看完那场音乐会。",
    ])
      expect(saysToday(t)).toBe(true);
  });
  test("not 'just' as 'only' or before a wish, not 刚 inside another word", () => {
    for (const t of [
      "Just a few more questions.",
      "I just need a break from work.",
      "I just wanted to ask about the route.",
      "It's just fine.",
      "时间刚好。",
      "这个材料的刚性很好。",
      "我喜欢金刚。",
    ])
      expect(saysToday(t)).toBe(false);
  });
});
