/**
 * Ten years of one person talking to homed every day, generated deterministically (a seeded
 * PRNG, bench/scale/words.ts's own words) as the JSON lines `homed import` reads
 * (src/import/json-lines.ts): the person's messages — some with a document attached, its text
 * carried with them — the assistant's replies, and the tools it called with what they returned
 * (a fetched page's text marked untrusted), each with its original time, in English and in
 * Chinese. A handful of facts (facts.ts) are told once on days of their own.
 *
 * Each day has a few conversations of a topic or two, and each year one long "journal"
 * conversation that the person adds to every day, so the history has both many conversations and
 * a few very long ones. `events` sets how dense the days are: the log holds about that many
 * events after the import (a message is one event, a tool line two: its call and its result).
 *
 * `bun bench/scale/history.ts [EVENTS] [FILE]` writes the file and prints what it holds.
 */
import { mulberry32 } from "../../test/harness/prng.ts";
import { PLANTED_FACTS } from "./facts.ts";
import { ATTACHMENT_KINDS, EN_GLUE, EN_NAME_PARTS, type Topic, TOPICS, ZH_GLUE, ZH_NAME_PARTS } from "./words.ts";

/** The first day of the ten years (UTC). */
export const HISTORY_START = Date.UTC(2016, 0, 1);
export const HISTORY_DAYS = 3652;
const DAY = 86_400_000;

/** Bump when the output changes, so a cached file of the old shape is not reused. */
export const HISTORY_VERSION = 1;

export interface HistoryOptions {
  /** About how many events the imported log holds. */
  events: number;
  seed?: number;
}

export interface HistoryCounts {
  lines: number;
  events: number;
  conversations: number;
  turns: number;
  userMessages: number;
  replies: number;
  toolCalls: number;
  attachments: number;
  zhConversations: number;
  bytes: number;
  /** The longest conversation (the export figure's) and its events. */
  longest: { conv: string; events: number };
}

type Lang = "en" | "zh";
type Line = Record<string, unknown>;

/** Events a turn logs on average: its message and reply, and two per tool call (call, result). */
const EVENTS_PER_TURN = 2 + 0.33 * 1.5 * 2;
/** Share of a day's turns that go to the year's journal conversation. */
const JOURNAL_SHARE = 0.08;

class Gen {
  constructor(readonly rand: () => number) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)] as T;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  person(lang: Lang): string {
    if (lang === "zh") {
      const given = this.pick(ZH_NAME_PARTS.given) + (this.chance(0.6) ? this.pick(ZH_NAME_PARTS.given) : "");
      return this.pick(ZH_NAME_PARTS.surname) + given;
    }
    const p = EN_NAME_PARTS;
    return this.pick(p.first) + (this.chance(0.5) ? this.pick(p.mid) : "") + this.pick(p.last);
  }

  /** A template of words.ts with its slots filled from `topic`. */
  fill(template: string, lang: Lang, topic: Topic): string {
    const t = topic[lang];
    const glue = lang === "en" ? EN_GLUE : ZH_GLUE;
    const word = (s: string) => (lang === "en" ? s.replaceAll("-", " ") : s);
    return template.replace(/%(pl|[vnatpkd])/g, (_, slot: string) => {
      switch (slot) {
        case "v":
          return word(this.pick(t.verbs));
        case "n":
          return word(this.pick(t.nouns));
        case "a":
          return word(this.pick(t.adjs));
        case "t":
          return word(this.pick(glue.times));
        case "p":
          return this.person(lang);
        case "pl":
          return this.pick(lang === "en" ? EN_NAME_PARTS.places : ZH_NAME_PARTS.places);
        case "k":
          return lang === "en" ? `£${this.int(2, 400)}` : `${this.int(5, 3000)}元`;
        default:
          return String(this.int(2, 60));
      }
    });
  }

  sentences(kind: "asks" | "tells" | "replies", lang: Lang, topic: Topic, n: number): string {
    const glue = lang === "en" ? EN_GLUE : ZH_GLUE;
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const s = this.fill(this.pick(glue[kind]), lang, topic);
      out.push(lang === "en" ? s.charAt(0).toUpperCase() + s.slice(1) : s);
    }
    return out.join(lang === "en" ? " " : "");
  }

  userText(lang: Lang, topic: Topic): string {
    const glue = lang === "en" ? EN_GLUE : ZH_GLUE;
    const opener = this.pick(glue.openers);
    const body = [
      ...(this.chance(0.6) ? [this.sentences("tells", lang, topic, this.int(1, 2))] : []),
      this.sentences("asks", lang, topic, 1),
    ].join(lang === "en" ? " " : "");
    if (!opener) return body;
    if (lang === "zh") return `${opener}${body}`;
    // "Hey, what's…", but "Hey, I…".
    return `${opener} ${/^I\b/.test(body) ? body : body.charAt(0).toLowerCase() + body.slice(1)}`;
  }

  replyText(lang: Lang, topic: Topic): string {
    return this.sentences("replies", lang, topic, this.int(1, 4));
  }

  document(lang: Lang, topic: Topic): { name: string; text: string } {
    const kind = this.pick(ATTACHMENT_KINDS[lang]);
    const noun = this.pick(topic[lang].nouns).replaceAll("-", "_");
    const name = lang === "en" ? `${noun}-${kind}-${this.int(1, 99)}.txt` : `${noun}${kind}${this.int(1, 99)}.txt`;
    const paragraphs: string[] = [];
    for (let i = this.int(2, 6); i > 0; i--)
      paragraphs.push(this.sentences(this.chance(0.5) ? "tells" : "replies", lang, topic, this.int(3, 7)));
    return { name, text: paragraphs.join("\n\n") };
  }

  /** A tool call of the topic: its name, arguments (JSON text), what it returned, whether that is untrusted. */
  tool(lang: Lang, topic: Topic, day: number): { name: string; args: string; result: string; untrusted: boolean } {
    const name = this.pick(topic.tools);
    const t = topic[lang];
    const noun = this.pick(t.nouns);
    const slug = noun.replaceAll("-", "_");
    const lines = (n: number, kind: "tells" | "replies") =>
      Array.from({ length: n }, () => this.sentences(kind, lang, topic, 1));
    const date = new Date(HISTORY_START + (day + this.int(1, 20)) * DAY).toISOString().slice(0, 10);
    switch (name) {
      case "fetch_url": {
        const url = `https://${topic.name}.example.org/${encodeURIComponent(slug)}/${this.int(1, 9999)}`;
        return {
          name,
          args: JSON.stringify({ url }),
          result: `${url}\n\n${lines(this.int(3, 10), "replies").join("\n")}`,
          untrusted: true,
        };
      }
      case "shell_run":
        return {
          name,
          args: JSON.stringify({ command: `grep -rn ${JSON.stringify(slug)} ~/projects/${topic.name} | head` }),
          result: lines(this.int(2, 8), "tells")
            .map((l, i) => `projects/${topic.name}/${slug}.txt:${i * 7 + 3}: ${l}`)
            .join("\n"),
          untrusted: false,
        };
      case "files_read":
        return {
          name,
          args: JSON.stringify({ path: `~/Documents/${topic.name}/${slug}.md` }),
          result: lines(this.int(3, 9), "tells").join("\n"),
          untrusted: false,
        };
      case "files_grep":
        return {
          name,
          args: JSON.stringify({ pattern: noun, path: "~/notes" }),
          result: lines(this.int(1, 5), "tells")
            .map((l, i) => `notes/${topic.name}-${i}.md: ${l}`)
            .join("\n"),
          untrusted: false,
        };
      case "files_write": {
        const content = lines(this.int(1, 3), "replies").join("\n");
        return {
          name,
          args: JSON.stringify({ path: `~/Documents/${topic.name}/${slug}-${date}.md`, content }),
          result: `wrote ${content.length * 2} bytes to ~/Documents/${topic.name}/${slug}-${date}.md`,
          untrusted: false,
        };
      }
      case "notes_add": {
        const text = this.sentences("tells", lang, topic, 1);
        return {
          name,
          args: JSON.stringify({ title: noun, text }),
          result: `saved note ${this.int(1, 90_000)}: ${noun}`,
          untrusted: false,
        };
      }
      case "notes_search":
        return {
          name,
          args: JSON.stringify({ query: noun }),
          result: lines(this.int(1, 4), "tells")
            .map((l) => `- ${l}`)
            .join("\n"),
          untrusted: false,
        };
      case "calendar_add": {
        const title = this.fill(lang === "en" ? "%v the %n with %p" : "和%p%v%n", lang, topic);
        return {
          name,
          args: JSON.stringify({ title, start: `${date}T${String(this.int(8, 20)).padStart(2, "0")}:00` }),
          result: `added "${title}" on ${date}`,
          untrusted: false,
        };
      }
      default: {
        const text = this.fill(lang === "en" ? "%v the %n" : "%v%n", lang, topic);
        return {
          name,
          args: JSON.stringify({ when: `${date}T09:00`, text }),
          result: `scheduled job ${this.int(1, 5000)} for ${date} 09:00: ${text}`,
          untrusted: false,
        };
      }
    }
  }
}

/**
 * Write the history line by line to `write` (each call one line with its newline); returns what
 * it holds. The same options give the same bytes.
 */
export function generateHistory(opts: HistoryOptions, write: (line: string) => void): HistoryCounts {
  const g = new Gen(mulberry32(opts.seed ?? 44));
  const counts: HistoryCounts = {
    lines: 0,
    events: 0,
    conversations: 0,
    turns: 0,
    userMessages: 0,
    replies: 0,
    toolCalls: 0,
    attachments: 0,
    zhConversations: 0,
    bytes: 0,
    longest: { conv: "", events: 0 },
  };
  const perConv = new Map<string, number>();
  let ref = 0;
  const emit = (line: Line, events: number) => {
    const text = `${JSON.stringify(line)}\n`;
    counts.lines++;
    counts.events += events;
    counts.bytes += Buffer.byteLength(text);
    const conv = line.conv as string;
    const n = (perConv.get(conv) ?? 0) + events;
    perConv.set(conv, n);
    if (n > counts.longest.events) counts.longest = { conv, events: n };
    write(text);
  };
  const factsByDay = new Map(PLANTED_FACTS.map((f) => [f.day, f]));
  const turnsPerDay = opts.events / HISTORY_DAYS / EVENTS_PER_TURN;
  const seenConv = new Set<string>();

  /** One exchange: the message, maybe a document, maybe tool calls, the reply; returns its end time. */
  const turn = (conv: string, lang: Lang, topic: Topic, at: number, day: number, told?: string): number => {
    if (!seenConv.has(conv)) {
      seenConv.add(conv);
      counts.conversations++;
      if (lang === "zh") counts.zhConversations++;
    }
    counts.turns++;
    const user: Line = { conv, role: "user", text: told ?? g.userText(lang, topic), time: at, id: ++ref };
    if (!told && g.chance(0.03)) {
      user.attachments = [g.document(lang, topic)];
      counts.attachments++;
    }
    emit(user, 1);
    counts.userMessages++;
    let t = at + g.int(2_000, 20_000);
    if (!told && g.chance(0.33)) {
      for (let i = g.chance(0.5) ? 2 : 1; i > 0; i--) {
        const call = g.tool(lang, topic, day);
        emit(
          {
            conv,
            role: "tool",
            name: call.name,
            arguments: call.args,
            text: call.result,
            time: t,
            id: ++ref,
            ...(call.untrusted ? { untrusted: true } : {}),
          },
          2,
        );
        counts.toolCalls++;
        t += g.int(500, 8_000);
      }
    }
    const reply = told ? (lang === "en" ? "Got it, I'll remember that." : "好的，记住了。") : g.replyText(lang, topic);
    emit({ conv, role: "assistant", text: reply, time: t, id: ++ref }, 1);
    counts.replies++;
    return t + g.int(20_000, 300_000);
  };

  for (let day = 0; day < HISTORY_DAYS; day++) {
    const dayStart = HISTORY_START + day * DAY;
    const date = new Date(dayStart).toISOString().slice(0, 10);
    const year = date.slice(0, 4);
    // Poisson-like spread around the mean: quiet days and busy ones.
    let budget = Math.max(1, Math.round(turnsPerDay * (0.4 + 1.2 * g.rand())));
    const journal = Math.max(1, Math.round(budget * JOURNAL_SHARE));
    budget -= journal;
    let k = 0;
    let clock = dayStart + 7 * 3_600_000 + g.int(0, 3_600_000);
    const fact = factsByDay.get(day);
    while (budget > 0) {
      const n = Math.min(budget, g.int(4, 26));
      budget -= n;
      const lang: Lang = g.chance(0.4) ? "zh" : "en";
      const topic = g.pick(TOPICS);
      const conv = `d${date}-${++k}`;
      let t = clock;
      for (let i = 0; i < n; i++) {
        // The day's fact is told in the middle of its first conversation of that language.
        const told = fact && fact.lang === lang && i === Math.floor(n / 2) ? fact.told : undefined;
        t = turn(conv, lang, g.chance(0.15) ? g.pick(TOPICS) : topic, t, day, told);
        if (told) factsByDay.delete(day);
      }
      clock = Math.min(t + g.int(600_000, 7_200_000), dayStart + 23.5 * 3_600_000);
    }
    // A fact whose day had no conversation in its language gets one of its own.
    if (fact && factsByDay.has(day)) {
      clock = turn(`d${date}-${++k}`, fact.lang, g.pick(TOPICS), clock, day, fact.told);
      factsByDay.delete(day);
    }
    // The year's journal, last in the evening, in the language the person writes it in that year.
    const jLang: Lang = Number(year) % 3 === 0 ? "zh" : "en";
    let jt = Math.max(clock, dayStart + 21 * 3_600_000) + g.int(0, 1_800_000);
    for (let i = 0; i < journal; i++) jt = turn(`journal-${year}`, jLang, g.pick(TOPICS), jt, day);
  }
  return counts;
}

/** The file a history of these options is cached in (bench/out is not committed). */
export function historyPath(dir: string, opts: HistoryOptions): string {
  return `${dir}/history-v${HISTORY_VERSION}-${opts.events}-${opts.seed ?? 44}.jsonl`;
}

/** Write the history to `file` (buffered); returns its counts. */
export async function writeHistory(file: string, opts: HistoryOptions): Promise<HistoryCounts> {
  const out = Bun.file(file).writer({ highWaterMark: 1 << 20 });
  let pending = 0;
  const counts = generateHistory(opts, (line) => {
    out.write(line);
    pending += line.length;
    if (pending > 8 << 20) {
      pending = 0;
      void out.flush();
    }
  });
  await out.end();
  return counts;
}

if (import.meta.main) {
  const events = Number(process.argv[2] ?? 1_000_000);
  const file = process.argv[3] ?? `/tmp/homed-history-${events}.jsonl`;
  const t0 = performance.now();
  const counts = await writeHistory(file, { events });
  console.log(JSON.stringify({ file, seconds: (performance.now() - t0) / 1000, ...counts }, null, 1));
}
