/**
 * The generated regression set of bench/scenes.ts (seeded, so every run is the same): twelve
 * weeks of recurring situations whose facts change — a weekly call with Bob (Mondays 10:00) and
 * one with Carol (Thursdays 15:00) over A2A, a family group chat on QQ (untrusted, evenings), a
 * morning routine on the CLI (daily 07:00, with the calendar tool) — between one-off web chats
 * that use the same words. Each situation states facts in the same slots ("the meeting room",
 * "the budget", …) and changes them now and then; questions asked in a situation ("which meeting
 * room is it now?") do not name it, so only knowing the situation tells the facts apart. The
 * gold answer is the situation's latest statement of that slot. Synthetic: it guards against
 * regressions of the scene path, it says nothing of real conversations.
 */
import { mulberry32 } from "../test/harness/prng.ts";

export interface SetTurn {
  kind: "turn";
  at: number;
  conv: string;
  channel: string;
  scene?: string;
  untrusted: boolean;
  text: string;
  tools: string[];
  /** A fact statement: its situation and slot (for gold answers). */
  fact?: { situation: string; slot: string };
}

export interface SetQuery {
  kind: "query";
  at: number;
  conv: string;
  channel: string;
  scene?: string;
  untrusted: boolean;
  text: string;
  situation: string;
  slot: string;
}

const rng = mulberry32;

const SLOTS: Record<string, { say: string; ask: string[]; values: string[] }> = {
  room: {
    say: "the meeting room is",
    ask: ["which meeting room is it now?", "remind me of the meeting room", "where do we meet, what room?"],
    values: ["Orion", "Lyra", "Vega", "Atlas", "Juno", "Ceres", "Pavo", "Draco", "Hydra", "Norma", "Volans", "Carina"],
  },
  budget: {
    say: "the budget is",
    ask: ["what is the budget now?", "how much budget do we have?", "remind me of the budget"],
    values: ["1200", "1500", "2000", "2400", "3100", "3600", "4200", "4800", "5500", "6100"],
  },
  time: {
    say: "the start time is",
    ask: ["what time do we start?", "when is the start time?", "remind me of the start time"],
    values: ["8:15", "8:30", "9:00", "9:45", "17:30", "18:00", "18:30", "19:15", "20:00"],
  },
  host: {
    say: "the host this time is",
    ask: ["who is the host?", "who hosts now?", "remind me who the host is"],
    values: ["Mia", "Leo", "Ava", "Noah", "Ivy", "Finn", "Zoe", "Owen", "Ruby", "Eli"],
  },
};

interface Situation {
  name: string;
  channel: string;
  scene: string;
  untrusted: boolean;
  tools: string[];
  /** Small talk that makes its topic. */
  talk: string[];
  /** When it happens: day offsets within a week and the hour. */
  days: number[];
  hour: number;
  /** One conversation for all (a group) or one per occurrence (calls, days). */
  conv: (occurrence: number) => string;
}

const SITUATIONS: Situation[] = [
  {
    name: "bob",
    channel: "a2a",
    scene: "chan:a2a/peer:bob",
    untrusted: false,
    tools: [],
    talk: [
      "Bob's garden project status update",
      "garden project: the greenhouse order",
      "Bob asks about the garden irrigation",
    ],
    days: [0],
    hour: 10,
    conv: (i) => `call-bob-${i}`,
  },
  {
    name: "carol",
    channel: "a2a",
    scene: "chan:a2a/peer:carol",
    untrusted: false,
    tools: [],
    talk: [
      "Carol's kitchen renovation progress",
      "kitchen renovation: tiles and cabinets",
      "Carol on the kitchen plumbing",
    ],
    days: [3],
    hour: 15,
    conv: (i) => `call-carol-${i}`,
  },
  {
    name: "family",
    channel: "qq",
    scene: "chan:qq/peer:group_family",
    untrusted: true,
    tools: [],
    talk: [
      "family dinner plans for the weekend",
      "who brings dessert to the family dinner",
      "grandma's birthday dinner",
    ],
    days: [1, 4, 6],
    hour: 20,
    conv: () => "qq:group_family",
  },
  {
    name: "morning",
    channel: "cli",
    scene: "chan:cli/peer:owner",
    untrusted: false,
    tools: ["calendar"],
    talk: [
      "morning plan: standup and gym",
      "plan my morning, standup first",
      "morning routine check, gym after standup",
    ],
    days: [0, 1, 2, 3, 4, 5, 6],
    hour: 7,
    conv: (i) => `cli-morning-${i}`,
  },
];

const NOISE = [
  "the dentist said the waiting room is {v}",
  "for the hackathon the budget is {v}",
  "my cousin's party: the start time is {v}",
  "at the book club the host this time is {v}",
  "hotel booking, the meeting room is {v}",
];

export const SCENES_SEED = 20261201;

/** How a situation's facts start ("Call with bob: the budget is 2000."). */
const whoOf = (name: string) =>
  name === "morning" ? "Morning plan" : name === "family" ? "Family" : `Call with ${name}`;
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Twelve weeks of turns and questions, in time order. */
export function scenesSet(seed = SCENES_SEED, weeks = 12): (SetTurn | SetQuery)[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const start = Date.UTC(2026, 0, 5); // a Monday
  const out: (SetTurn | SetQuery)[] = [];
  const known = new Map<string, Set<string>>(); // situation → slots stated so far
  const count = new Map<string, number>();
  for (let week = 0; week < weeks; week++)
    for (let day = 0; day < 7; day++) {
      const date = start + (week * 7 + day) * DAY;
      for (const s of SITUATIONS) {
        if (!s.days.includes(day)) continue;
        const n = count.get(s.name) ?? 0;
        count.set(s.name, n + 1);
        const at = date + s.hour * HOUR;
        const base = { conv: s.conv(n), channel: s.channel, scene: s.scene, untrusted: s.untrusted };
        const slots = known.get(s.name) ?? new Set<string>();
        known.set(s.name, slots);
        // A question first (the person arrives and asks), about a slot this situation has stated;
        // now and then about another situation, which the question then names (the scene must not
        // hide the answer from elsewhere).
        if (slots.size > 0 && r() < 0.6) {
          const slot = pick([...slots]);
          out.push({
            kind: "query",
            at,
            ...base,
            text: pick((SLOTS[slot] as { ask: string[] }).ask),
            situation: s.name,
            slot,
          });
        } else if (r() < 0.5) {
          const other = pick(SITUATIONS.filter((o) => o !== s && !o.untrusted && (known.get(o.name)?.size ?? 0) > 0));
          const slot = other ? pick([...(known.get(other.name) ?? [])]) : undefined;
          if (other && slot && !s.untrusted)
            out.push({
              kind: "query",
              at,
              ...base,
              text: `${whoOf(other.name)}: ${pick((SLOTS[slot] as { ask: string[] }).ask)}`,
              situation: other.name,
              slot,
            });
        }
        out.push({ kind: "turn", at: at + 60_000, ...base, text: pick(s.talk), tools: s.tools });
        // Facts: every slot stated at first, then changed now and then.
        for (const slot of Object.keys(SLOTS)) {
          if (slots.has(slot) && r() > 0.25) continue;
          if (!slots.has(slot) && r() > 0.5) continue;
          slots.add(slot);
          const sl = SLOTS[slot] as { say: string; values: string[] };
          const who = whoOf(s.name);
          out.push({
            kind: "turn",
            at: at + 120_000,
            ...base,
            text: `${who}: ${sl.say} ${pick(sl.values)}.`,
            tools: s.tools,
            fact: { situation: s.name, slot },
          });
        }
      }
      // One-off web chats using the same words, most days.
      if (r() < 0.7) {
        const slot = pick(Object.keys(SLOTS));
        const text = pick(NOISE).replace("{v}", pick((SLOTS[slot] as { values: string[] }).values));
        out.push({
          kind: "turn",
          at: date + (11 + Math.floor(r() * 8)) * HOUR,
          conv: `web-${week}-${day}`,
          channel: "web",
          untrusted: false,
          text,
          tools: [],
        });
      }
    }
  return out.sort((a, b) => a.at - b.at);
}
