/** Times as conversation sets write them, to epoch milliseconds. */

/** "1:56 pm on 8 May, 2023" (LoCoMo): a clock time, "on", then the date. */
const CLOCK_ON_DATE = /^\s*(\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?)\s+on\s+(.+)$/i;

/**
 * Epoch milliseconds of `t`: a number is taken as milliseconds (seconds when below 1e11, i.e.
 * before 1973 as milliseconds); a string is anything Date.parse reads ("2023/05/30 (Tue) 23:40",
 * ISO-8601) or a clock time before its date. Null when it is neither.
 */
export function parseTime(t: string | number | null | undefined): number | null {
  if (t === undefined || t === null) return null;
  if (typeof t === "number") return Number.isFinite(t) ? (Math.abs(t) < 1e11 ? t * 1000 : t) : null;
  let ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    const m = CLOCK_ON_DATE.exec(t);
    if (m) ms = Date.parse(`${m[2]} ${(m[1] as string).replace(/\./g, "")}`);
  }
  return Number.isNaN(ms) ? null : ms;
}

const DAY = 86_400_000;
const UNIT: Record<string, number> = {
  day: DAY,
  week: 7 * DAY,
  month: 30 * DAY,
  year: 365 * DAY,
  天: DAY,
  日: DAY,
  周: 7 * DAY,
  星期: 7 * DAY,
  礼拜: 7 * DAY,
  月: 30 * DAY,
  年: 365 * DAY,
};
const NUMBER: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  couple: 2,
  few: 3,
  several: 4,
  一: 1,
  两: 2,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
  几: 3,
};
const WEEKDAY: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
  日: 0,
  天: 0,
  一: 1,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
};
const MONTH_INDEX: Record<string, number> = Object.fromEntries(MONTHS_EN().map((m, i) => [m, i]));

function MONTHS_EN(): string[] {
  return [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
  ];
}

function count(x: string): number {
  return /^\d+$/.test(x) ? Number(x) : (NUMBER[x.replace(/^(a |an )/, "")] ?? Number.NaN);
}

/** A span of time, epoch milliseconds, inclusive. */
export interface TimeWindow {
  from: number;
  to: number;
}

/**
 * The span a question points at relative to when it is asked ("two weeks ago", "last
 * Saturday", "in the past month", "in March", "two weekends ago", "last year", 上周六, 三天前,
 * 最近两个月, 上周末, 去年), with the slack a person means by it; null when it names none. Only the
 * first such phrase counts.
 */
export function timeWindow(text: string, now: number): TimeWindow | null {
  const t = text.toLowerCase();
  const calendar = calendarSpan(t, now);
  if (calendar) return calendar;
  const around = (at: number, slack: number): TimeWindow => ({ from: at - slack, to: at + slack });
  let m =
    /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|several)\s+(day|week|month|year)s?\s+ago\b/.exec(
      t,
    );
  if (m) {
    const n = count((m[1] as string).replace(/ of$/, "").replace(/^a /, ""));
    const unit = UNIT[m[2] as string] as number;
    if (n > 0) return around(now - n * unit, Math.max(unit / 2, 2 * DAY));
  }
  // A weekend n weekends back: the last one, then a week before it for each more.
  const weekendsAgo = (n: number) =>
    around(now - (((new Date(now).getUTCDay() + 1) % 7 || 7) + 7 * (n - 1)) * DAY, 2 * DAY);
  m =
    /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|several)\s+weekends?\s+ago\b/.exec(
      t,
    );
  if (m) {
    const n = count((m[1] as string).replace(/ of$/, "").replace(/^a /, ""));
    if (n > 0) return weekendsAgo(n);
  }
  m =
    /\b(?:in|during|over|within|for)\s+the\s+(?:past|last)\s+(?:(\d+|two|three|four|five|six|seven|eight|nine|ten|couple of|few|several)\s+)?(day|week|month|year)s?\b/.exec(
      t,
    );
  if (m) {
    const n = m[1] ? count((m[1] as string).replace(/ of$/, "")) : 1;
    if (n > 0) return { from: now - n * (UNIT[m[2] as string] as number) - DAY, to: now };
  }
  if (/\byesterday\b/.test(t)) return around(now - DAY, DAY);
  m = /\blast\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/.exec(t);
  if (m) {
    const today = new Date(now).getUTCDay();
    let back = (today - (WEEKDAY[m[1] as string] as number) + 7) % 7;
    if (back === 0) back = 7;
    return around(now - back * DAY, 1.5 * DAY);
  }
  if (/\b(?:last|this\s+past|the\s+past)\s+weekend\b/.test(t)) return weekendsAgo(1);
  if (/\blast\s+week\b/.test(t)) return { from: now - 14 * DAY, to: now - 2 * DAY };
  if (/\blast\s+month\b/.test(t)) return { from: now - 62 * DAY, to: now - 14 * DAY };
  if (/\blast\s+year\b/.test(t)) return lastYear(now);
  m =
    /\b(?:in|during|on|since)\s+(january|february|march|april|may|june|july|august|september|october|november|december)\b/.exec(
      t,
    );
  if (m) {
    const d = new Date(now);
    const month = MONTH_INDEX[m[1] as string] as number;
    const year = month > d.getUTCMonth() ? d.getUTCFullYear() - 1 : d.getUTCFullYear();
    return { from: Date.UTC(year, month, 1) - DAY, to: Date.UTC(year, month + 1, 1) + DAY };
  }
  m = /(\d+|[一两二三四五六七八九十几])\s*(?:个)?(天|日|周|星期|礼拜|月|年)(?:以)?前/.exec(text);
  if (m) {
    const n = count(m[1] as string);
    const unit = UNIT[m[2] as string] as number;
    if (n > 0) return around(now - n * unit, Math.max(unit / 2, 2 * DAY));
  }
  m = /(?:最近|过去|近)\s*(\d+|[一两二三四五六七八九十几])?\s*(?:个)?(天|周|星期|礼拜|月|年)/.exec(text);
  if (m) {
    const n = m[1] ? count(m[1]) : 1;
    if (n > 0) return { from: now - n * (UNIT[m[2] as string] as number) - DAY, to: now };
  }
  m = /(\d+|[一两二三四五六七八九十几])\s*个\s*周末(?:以)?前/.exec(text);
  if (m) {
    const n = count(m[1] as string);
    if (n > 0) return weekendsAgo(n);
  }
  if (text.includes("前天")) return around(now - 2 * DAY, DAY);
  if (text.includes("昨天")) return around(now - DAY, DAY);
  m = /上(?:个)?(?:周|星期|礼拜)([一二三四五六日天])/.exec(text);
  if (m) {
    const today = new Date(now).getUTCDay();
    const want = WEEKDAY[m[1] as string] as number;
    // 上周六: the named day of the week before this one (weeks start on Monday).
    const sinceMonday = (today + 6) % 7;
    const back = sinceMonday + 7 - ((want + 6) % 7);
    return around(now - back * DAY, 1.5 * DAY);
  }
  if (/上(?:个)?(?:周|星期|礼拜)末/.test(text)) return weekendsAgo(1);
  if (/上(?:个)?(?:周|星期|礼拜)/.test(text)) return { from: now - 14 * DAY, to: now - 2 * DAY };
  if (text.includes("上个月")) return { from: now - 62 * DAY, to: now - 14 * DAY };
  if (text.includes("去年")) return lastYear(now);
  return null;
}

/** The Northern seasons by their first month and length: spring is March to May. */
const SEASON: Record<string, number> = {
  spring: 2,
  summer: 5,
  autumn: 8,
  fall: 8,
  winter: 11,
  春: 2,
  夏: 5,
  秋: 8,
  冬: 11,
};
/** 三月, 3月, 十二月份, not 三个月 (three months) nor 每月. */
const MONTH_ZH =
  /(?<![\d一二三四五六七八九十个每])(十[一二]?|[一二三四五六七八九]|1[0-2]|[1-9])\s*月(?:份)?(?:(\d{1,2})\s*[日号])?/;

/**
 * A span a question names by the calendar, as a person means it: this or last week (Monday to
 * Sunday), the week before last, this or last month, the month before last, this year, the year
 * before last, a season of this or last year, a month by its number in Chinese (三月, as "in
 * March"), a day three days back (大前天) — each with a day's slack either side. Null when it names
 * none of these (timeWindow reads the rest).
 */
function calendarSpan(t: string, now: number): TimeWindow | null {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const today = Date.UTC(y, mo, d.getUTCDate());
  const monday = today - ((d.getUTCDay() + 6) % 7) * DAY;
  const slack = (from: number, to: number): TimeWindow => ({ from: from - DAY, to: to + DAY });
  const week = (back: number) =>
    back === 0 ? slack(monday, now) : slack(monday - 7 * back * DAY, monday - 7 * (back - 1) * DAY);
  const month = (back: number) =>
    back === 0 ? slack(Date.UTC(y, mo, 1), now) : slack(Date.UTC(y, mo - back, 1), Date.UTC(y, mo - back + 1, 1));
  const year = (back: number) =>
    back === 0 ? slack(Date.UTC(y, 0, 1), now) : slack(Date.UTC(y - back, 0, 1), Date.UTC(y - back + 1, 0, 1));
  /**
   * A season: of a calendar year (今年夏天, 去年夏天), "this" one (this year's, last year's while
   * this year's has not begun) or "last" one (the latest that has ended: in December, this
   * year's summer).
   */
  const season = (first: number, which: "this" | "last" | number) => {
    let sy = typeof which === "number" ? y - which : y;
    if (which === "this" && Date.UTC(sy, first, 1) > now) sy--;
    if (which === "last" && Date.UTC(sy, first + 3, 1) > now) sy--;
    return slack(Date.UTC(sy, first, 1), Date.UTC(sy, first + 3, 1));
  };
  if (/\b(?:the\s+)?week\s+before\s+last\b/.test(t) || /上上(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])/.test(t))
    return week(2);
  if (
    /\b(?:this|earlier\s+this)\s+week\b/.test(t) ||
    /(?:这|本)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])/.test(t)
  )
    return week(0);
  if (/\b(?:the\s+)?month\s+before\s+last\b/.test(t) || t.includes("上上个月")) return month(2);
  if (/\b(?:this|earlier\s+this)\s+month\b/.test(t) || /(?:这个|本)月/.test(t)) return month(0);
  if (/\b(?:the\s+)?year\s+before\s+last\b/.test(t) || t.includes("前年")) return year(2);
  if (
    /\b(?:this|earlier\s+this)\s+year\b/.test(t) ||
    /今年(?![\d一二三四五六七八九十]+岁|[\d一二三四五六七八九十]+[了])/.test(t)
  ) {
    const s = /(今年|去年)?\s*(春|夏|秋|冬)(?:天|季)/.exec(t);
    return s ? season(SEASON[s[2] as string] as number, 0) : year(0);
  }
  let m = /\b(this|last)\s+(spring|summer|autumn|fall|winter)\b/.exec(t);
  if (m) return season(SEASON[m[2] as string] as number, m[1] === "last" ? "last" : "this");
  m = /(去年|今年)?(春|夏|秋|冬)(?:天|季)/.exec(t);
  if (m?.[1]) return season(SEASON[m[2] as string] as number, m[1] === "去年" ? 1 : 0);
  if (t.includes("大前天")) return slack(today - 3 * DAY, today - 3 * DAY);
  m = MONTH_ZH.exec(t);
  if (m) {
    const x = m[1] as string;
    // 三 → 3, 十二 → 12, 12 → 12.
    const n = /^\d/.test(x) ? Number(x) : x.length === 2 ? 10 + (NUMBER[x[1] as string] ?? 0) : (NUMBER[x] ?? 0);
    // A month not yet come this year is last year's, as "in March" is.
    const my = n - 1 > mo ? y - 1 : y;
    if (m[2]) {
      const day = Number(m[2]);
      if (day >= 1 && day <= 31) return slack(Date.UTC(my, n - 1, day), Date.UTC(my, n - 1, day));
    }
    return slack(Date.UTC(my, n - 1, 1), Date.UTC(my, n, 1));
  }
  return null;
}

/** The calendar year before `now`'s, with a day's slack either side. */
function lastYear(now: number): TimeWindow {
  const y = new Date(now).getUTCFullYear();
  return { from: Date.UTC(y - 1, 0, 1) - DAY, to: Date.UTC(y, 0, 1) + DAY };
}

const MONTH = "(january|february|march|april|may|june|july|august|september|october|november|december)";
/** "13 October 2023", "31 July, 2023". */
const DAY_MONTH_YEAR = new RegExp(
  `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+((?:19|20)\\d\\d)\\b`,
  "i",
);
/** "October 13, 2023", "October 13th 2023". */
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+((?:19|20)\\d\\d)\\b`, "i");
/** "May 2023", "May, 2023". */
const MONTH_YEAR = new RegExp(`\\b${MONTH},?\\s+((?:19|20)\\d\\d)\\b`, "i");
/** "2023-10-13". */
const ISO_DATE = /\b((?:19|20)\d\d)-(\d{2})-(\d{2})\b/;
/** 2023年10月13日, 2023年5月. */
const HAN_DATE = /((?:19|20)\d\d)\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/;

/**
 * The span a question's calendar date names ("on 13 October 2023", "in May 2023", 2023年5月),
 * which needs no "now": the day with a day's slack on either side (a session dated late on one
 * day, a time zone), or the month. Null when it names no full date or month and year.
 */
export function dateWindow(text: string): TimeWindow | null {
  const day = (y: number, m: number, d: number): TimeWindow | null =>
    m >= 0 && m < 12 && d >= 1 && d <= 31 ? { from: Date.UTC(y, m, d) - DAY, to: Date.UTC(y, m, d + 1) + DAY } : null;
  const month = (y: number, m: number): TimeWindow | null =>
    m >= 0 && m < 12 ? { from: Date.UTC(y, m, 1) - DAY, to: Date.UTC(y, m + 1, 1) + DAY } : null;
  const monthOf = (name: string) => MONTH_INDEX[name.toLowerCase()] as number;
  let m = DAY_MONTH_YEAR.exec(text);
  if (m) return day(Number(m[3]), monthOf(m[2] as string), Number(m[1]));
  m = MONTH_DAY_YEAR.exec(text);
  if (m) return day(Number(m[3]), monthOf(m[1] as string), Number(m[2]));
  m = ISO_DATE.exec(text);
  if (m) return day(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  m = HAN_DATE.exec(text);
  if (m) return m[3] ? day(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : month(Number(m[1]), Number(m[2]) - 1);
  m = MONTH_YEAR.exec(text);
  if (m) return month(Number(m[2]), monthOf(m[1] as string));
  return null;
}

/** Phrases that name a span: what timeWindow and dateWindow read, not what the question is about. */
const TIME_PHRASES = [
  // The calendar's first: 上上周 holds 上周.
  /\b(?:the\s+)?(?:week|month|year)\s+before\s+last\b/gi,
  /\b(?:earlier\s+)?this\s+(?:week|month|year)\b/gi,
  /\b(?:this|last)\s+(?:spring|summer|autumn|fall|winter)\b/gi,
  /上上(?:个)?(?:周|星期|礼拜|月)|(?:这|本)(?:个)?(?:周|星期|礼拜|月)|前年|今年|大前天|[春夏秋冬](?:天|季)/g,
  new RegExp(MONTH_ZH.source, "g"),
  new RegExp(DAY_MONTH_YEAR.source, "gi"),
  new RegExp(MONTH_DAY_YEAR.source, "gi"),
  new RegExp(MONTH_YEAR.source, "gi"),
  new RegExp(ISO_DATE.source, "g"),
  new RegExp(HAN_DATE.source, "g"),
  /\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|several)\s+(?:day|week|month|year)s?\s+ago\b/gi,
  /\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|several)\s+weekends?\s+ago\b/gi,
  /\b(?:in|during|over|within|for)\s+the\s+(?:past|last)\s+(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|couple of|few|several)\s+)?(?:day|week|month|year)s?\b/gi,
  /\byesterday\b/gi,
  /\b(?:this|the)\s+past\s+weekend\b/gi,
  /\blast\s+(?:sunday|monday|tuesday|wednesday|thursday|friday|saturday|weekend|week|month|year)\b/gi,
  /(?:\d+|[一两二三四五六七八九十几])\s*(?:个)?(?:天|日|周|星期|礼拜|月|年)(?:以)?前/g,
  /(?:最近|过去|近)\s*(?:\d+|[一两二三四五六七八九十几])?\s*(?:个)?(?:天|周|星期|礼拜|月|年)/g,
  /(?:\d+|[一两二三四五六七八九十几])\s*个\s*周末(?:以)?前/g,
  /前天|昨天|上(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]?|上个月|去年/g,
];

/**
 * `text` without the phrases that place it in time ("two weeks ago", 上周六, "on 13 October
 * 2023"): once the span they
 * name is used to weigh turns by when they were said, their words ("weeks", "ago") would only
 * match turns that happen to say them.
 */
export function withoutTimePhrases(text: string): string {
  let out = text;
  for (const re of TIME_PHRASES) out = out.replace(re, " ");
  return out;
}

/** Words that place what a text tells on the day it is said. */
const TODAY = /\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b|今天|今晚|今早/i;

/** Common irregular past forms; a regular one ends in -ed. */
const IRREGULAR_PAST =
  "got|went|came|saw|had|made|took|bought|found|ran|met|began|did|won|left|read|wrote|built|heard|felt|spent|paid|sold|gave|brought|caught|taught|thought|told|sent|kept|held|ate|drank|flew|drove|rode|swam|sang|wore|chose|lost|became|threw|grew|knew|fell|hit|put|set|let|cut|shot|sat|stood|broke|spoke|woke|forgot";

/**
 * "just" before a past form ("I just got back from …", "we just finished the 5K", "just turned
 * 32"), 刚 / 刚刚 / 刚才 before what happened (我刚买了): the event is as recent as the turn, as
 * with "today". Not "just" as "only" or before a wish ("just a few", "I just need", "I just
 * wanted to ask"), not 刚 in another word (刚好 "exactly", 刚性, 金刚).
 */
const JUST_PAST = new RegExp(
  `\\bjust\\s+(?:(?!(?:need|want|wanted)\\b)[a-z]{2,}ed|${IRREGULAR_PAST})\\b|(?<![金方])刚(?:刚|才)?(?![好巧性强毅度])`,
  "i",
);

/**
 * Whether `text` tells of something on the day it is said ("I planted tomatoes today", "I just
 * got back from Hawaii"): when a question names a span, such a turn said within it is what
 * happened then, where another turn of the same days may only talk about the topic ("Which app
 * tracks soil moisture?").
 */
export function saysToday(text: string): boolean {
  return TODAY.test(text) || JUST_PAST.test(text);
}
