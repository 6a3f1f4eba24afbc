/** What query analysis reads from a question's wording, in English and Chinese, and the rule tables themselves. */
import { describe, expect, test } from "bun:test";
import { analyseQuery, type Finding, QUERY_RULES } from "../../src/memory/query-analysis.ts";

/** The findings of `text` that are true, in a stable order. */
const found = (text: string, rulesOff?: string[]) => {
  const a = analyseQuery(text, rulesOff);
  return (Object.keys(a) as (keyof typeof a)[]).filter((k) => a[k] === true).sort() as Finding[];
};
/** `text` without its framing words, spaces collapsed. */
const unframed = (text: string) => analyseQuery(text).unframed.replace(/\s+/g, " ").trim();

describe("English", () => {
  test("a quantity, a measure, the time between two things", () => {
    expect(found("How many babies were born to friends?")).toEqual(["asksQuantity", "isQuestion"]);
    expect(found("How many hours have I spent playing games?")).toEqual([
      "asksMeasure",
      "asksQuantity",
      "firstPerson",
      "isQuestion",
    ]);
    expect(found("How many days before Christmas did I go to the market?")).toEqual([
      "asksMeasure",
      "asksQuantity",
      "asksTimeBetween",
      "firstPerson",
      "isQuestion",
    ]);
  });

  test("the assistant addressed, its words asked for, a request for advice that only frames", () => {
    expect(found("What did you tell me about naming my puppy?")).toEqual([
      "addressesAssistant",
      "asksWhatAssistantSaid",
      "firstPerson",
      "isQuestion",
    ]);
    expect(found("Can you suggest a name for my new puppy?")).toEqual(["firstPerson", "isQuestion"]);
    expect(found("Continue the story.")).toEqual([]);
  });

  test("the present state", () => {
    expect(found("What exercise do I do these days?")).toContain("asksPresentState");
    expect(found("What was my current job?")).not.toContain("asksPresentState");
  });

  test("framing words leave the question; what it is about stays", () => {
    expect(unframed("What exercise do I do these days?")).toBe("What exercise do I do ?");
    expect(unframed("We discussed jobs for seniors earlier, what was the 7th one?")).toBe(
      "We discussed jobs for seniors , what was the 7th one?",
    );
    expect(unframed("Can you suggest some things to do on my commute? Any tips?")).toBe(
      "some things to do on my commute? ?",
    );
    expect(unframed("I've been thinking about a cocktail, but I'm not sure which one to choose.")).toBe(
      "a cocktail, but .",
    );
    expect(unframed("How many different types of cheese have I tried?")).toBe("cheese have I tried?");
    expect(unframed("Which book did Tom recommend?")).toBe("Which book did Tom recommend?");
  });

  test("a rule turned off finds nothing and frames nothing", () => {
    expect(found("How many babies were born?", ["en.quantity"])).toEqual(["isQuestion"]);
    expect(found("Can you suggest a hotel?", ["en.advice-request"])).toEqual(["addressesAssistant", "isQuestion"]);
    expect(analyseQuery("What do I do these days?", ["en.present-phrase"]).unframed).toBe("What do I do these days?");
  });
});

describe("the tables", () => {
  test("names are unique and prefixed by their language; a framing pattern is global (every occurrence leaves)", () => {
    const names = QUERY_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const r of QUERY_RULES) {
      expect(r.name).toMatch(/^(?:en|zh)\.[a-z-]+$/);
      if (r.does === "frame") expect(r.pattern.global).toBe(true);
      expect(r.means.length * r.why.length * r.measured.length).toBeGreaterThan(0);
    }
  });
});
