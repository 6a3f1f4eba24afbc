/**
 * The one-holder property of block records, checked the hard way: random appends
 * (turns whose user messages name channel images and whose tool results carry images), prunes
 * (context assembly at random budgets, which moves turns to L2 and back), recalls (the Remove
 * step of memory_search, ConversationContext.restore) and forgets, on a real Store, Memory and
 * BlockStore in a temporary data dir. After every operation it audits everything: each block
 * has exactly one holder, that holder is its event's layer as both the log and the context's
 * turn cache see it, no event or block record is lost or changed, block ids never change, and
 * every block's bytes are still in DATA/blocks with the hash its record names. Distills move
 * cold turns to L3 the way the distillation job commits (ConversationContext.distilled) after
 * adding a fact per turn to the graph, whose object is one of the turn's images when it has one
 * (a media node: the image's own block) and whose subject is an entity (a text block of L3's
 * own, without bytes, held by L3). Some user messages carry a long document, logged in
 * `attachment-chunk` events of the turn (src/memory/attachment-chunks.ts): every event of a turn,
 * chunks included, must be in the turn's layer.
 * Used by test/store/block-holders.test.ts and bench/blocks.ts; a seeded PRNG makes a failure
 * reproducible from the seed it prints.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Store } from "../../src/store/store.ts";
import { BlockStore } from "../../src/store/blocks.ts";
import { BlockRecords } from "../../src/store/block-records.ts";
import { Memory } from "../../src/memory/memory.ts";
import { ConversationContext } from "../../src/memory/context.ts";
import { Tokenizer } from "../../src/embed/tokenizer.ts";
import { imageTag, type BlockHolder } from "../../src/protocol/blocks.ts";
import { eventText } from "../../src/memory/event-text.ts";
import { attachmentChunkEvents } from "../../src/memory/attachment-chunks.ts";
import type { Attachment } from "../../src/protocol/attachments.ts";
import { mulberry32 } from "./prng.ts";
import { L3_CONV, L3Graph } from "../../src/store/l3-graph.ts";

export const prng = mulberry32;

export interface BlockOpsResult {
  seed: number;
  ops: number;
  counts: Record<"append" | "prune" | "recall" | "distill" | "forget", number>;
  events: number;
  blocks: number;
  /** Attachment chunk events appended. */
  chunks: number;
  /** Blocks held by L3 at the end (distilled images and entity names). */
  l3Blocks: number;
  /** Audits run (one after every operation). */
  audits: number;
  /** The first violation found, with the operation that caused it; null when none. */
  violation: string | null;
}

const WORDS =
  "red bike garden photo kitchen river train ticket dentist monday invoice cat sunset mountain receipt map paper lamp violin tea".split(
    " ",
  );

/** Audits between two that re-read every event body and look for every block's bytes. */
const FULL_EVERY = 50;

interface Expected {
  eventId: number;
  seq: number;
  sha256: string;
  kind: string;
}

export interface BlockOpsOptions {
  /** Called after operation `i` before its audit (a test breaks the store here to see the audit catch it). */
  sabotage?: (store: Store, i: number) => void;
}

export async function runBlockOps(
  dataDir: string,
  seed: number,
  ops: number,
  opts: BlockOpsOptions = {},
): Promise<BlockOpsResult> {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const store = Store.open(join(dataDir, "homed.db"), { imageTagChannels: ["qq"] });
  const bytes = new BlockStore(dataDir);
  const records = new BlockRecords(store.db);
  const memory = new Memory(store, new Tokenizer());
  const ctx = new ConversationContext(store, memory, 3);
  const convs = ["qq-group", "web-1", "cli-2"];
  const events = new Map<number, { conv: string; body: string }>();
  const expected = new Map<number, Expected>();
  const counts = { append: 0, prune: 0, recall: 0, distill: 0, forget: 0 };
  const graph = new L3Graph(store);
  let l3Seen = 0;
  /** Entity events the graph appended join the oracle like any other event. */
  const noteL3Events = () => {
    for (const e of store.conversationEventsAfter(L3_CONV, l3Seen)) {
      events.set(e.id, { conv: L3_CONV, body: e.body });
      l3Seen = e.id;
    }
  };
  let turnNo = 0;
  let audits = 0;
  const hashed = new Set<string>();
  let checkedUpTo = 0;

  const image = (): { sha256: string; mime: "image/png"; bytes: number } => {
    const b = new Uint8Array(64 + Math.floor(rand() * 64));
    b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    for (let i = 8; i < b.length; i++) b[i] = Math.floor(rand() * 256);
    return { sha256: bytes.put(b), mime: "image/png", bytes: b.length };
  };
  /** A stored "PDF" of `pages` pages of words, with page anchors, as an attachment names it. */
  const document = (pages: number): Attachment => {
    const raw = new TextEncoder().encode(`%PDF-1.4 ${rand()}`);
    const anchors: { label: string; offset: number }[] = [];
    let text = "";
    for (let p = 1; p <= pages; p++) {
      anchors.push({ label: `page ${p}`, offset: text.length });
      text += `${Array.from({ length: 30 }, () => `${words(8)}.`).join(" ")}\n\n`;
    }
    const sha256 = bytes.put(raw);
    return { sha256, mime: "application/pdf", bytes: raw.length, kind: "file", name: "doc.pdf", text, anchors };
  };
  let chunks = 0;
  const append = (conv: string, kind: string, actor: string, body: unknown) => {
    const r = store.append({ conv, kind, actor, body });
    const stored = store.eventsByIds([r.id])[0];
    if (stored) events.set(r.id, { conv, body: stored.body });
    const text = stored ? eventText(kind, stored.body) : null;
    if (text !== null) memory.add(r.id);
    return r.id;
  };

  const appendTurn = () => {
    const conv = pick(convs);
    const turn = `t${++turnNo}`;
    store.beginTurn(turn, conv, conv.split("-")[0] as string);
    const pics = Array.from({ length: Math.floor(rand() * 3) }, image);
    const text = `${words(3 + Math.floor(rand() * 6))}${pics.map((p) => ` ${imageTag(p)}`).join("")}`;
    const doc = rand() < 0.15 ? [document(2 + Math.floor(rand() * 6))] : [];
    append(conv, "user-message", "user", { turn, text, channel: "qq", ...(doc.length ? { attachments: doc } : {}) });
    for (const c of attachmentChunkEvents(turn, doc)) {
      append(conv, c.event.kind, "user", c.event.body);
      chunks++;
    }
    if (rand() < 0.5) {
      const call = { id: `c-${turn}`, name: "browser_screenshot", arguments: "{}" };
      append(conv, "model-output", "agent", { turn, text: "", toolCalls: [call] });
      const shots = Array.from({ length: Math.floor(rand() * 3) }, () => ({
        ...image(),
        alt: `Screenshot of ${words(2)}`,
      }));
      append(conv, "tool-result", "browser", {
        turn,
        callId: call.id,
        name: call.name,
        status: "ok",
        content: `page about ${words(4)}`,
        ...(shots.length ? { images: shots } : {}),
      });
    }
    const reply = words(4 + Math.floor(rand() * 10));
    append(conv, "model-output", "agent", { turn, text: reply });
    append(conv, "agent-reply", "agent", { turn, text: reply, fromModel: true });
  };

  /**
   * Everything the property promises, checked against the log, the turn cache and the oracle.
   * Records and holders are checked in full every time; event bodies and block bytes (which no
   * code path can change: triggers, content addressing) in full every FULL_EVERY audits and at
   * the end, and otherwise for what the last operation added.
   */
  const audit = (full: boolean): string | null => {
    audits++;
    if (store.eventCount() !== events.size) return `events: ${store.eventCount()} stored, ${events.size} appended`;
    const check = full ? [...events.keys()] : [...events.keys()].filter((id) => id > checkedUpTo);
    for (const e of store.eventsByIds(check)) if (events.get(e.id)?.body !== e.body) return `event ${e.id} changed`;
    checkedUpTo = Math.max(checkedUpTo, ...check);
    const all = records.all();
    const byId = new Map(all.map((b) => [b.id, b]));
    // Every block seen before is still there, unchanged; new ones join the oracle.
    for (const [id, x] of expected) {
      const b = byId.get(id);
      if (!b) return `block ${id} lost`;
      if (b.eventId !== x.eventId || b.seq !== x.seq || (b.sha256 ?? "") !== x.sha256 || b.kind !== x.kind)
        return `block ${id} changed: ${JSON.stringify(b)} was ${JSON.stringify(x)}`;
    }
    for (const b of all)
      if (!expected.has(b.id)) {
        if (!events.has(b.eventId)) return `block ${b.id} of unknown event ${b.eventId}`;
        expected.set(b.id, { eventId: b.eventId, seq: b.seq, sha256: b.sha256 ?? "", kind: b.kind });
      }
    if (expected.size !== all.length) return `${all.length} block records, ${expected.size} expected`;
    // Exactly one holder: listing each layer's blocks names every block once.
    const held = new Map<number, BlockHolder[]>();
    for (const h of ["L1", "L2", "L3"] as const)
      for (const b of records.heldBy(null, h)) held.set(b.id, [...(held.get(b.id) ?? []), h]);
    if (held.size !== all.length) return `${all.length} blocks, ${held.size} held`;
    for (const b of all)
      if (b.conv === L3_CONV && (held.get(b.id)?.length !== 1 || b.holder !== "L3"))
        return `entity block ${b.id} held by ${held.get(b.id)?.join(", ")}`;
    for (const conv of convs) {
      const l1 = new Set(memory.layerIds(conv, 1));
      const l2 = new Set(memory.layerIds(conv, 2));
      const l3 = new Set(memory.layerIds(conv, 3));
      const turnLayer = new Map<number, number>();
      for (const t of ctx.log.turns(conv))
        for (const id of t.events) {
          turnLayer.set(id, t.layer);
          // Whole turns move: every event of one (a long attachment's chunks too) is in its layer.
          const layer = l1.has(id) ? 1 : l2.has(id) ? 2 : l3.has(id) ? 3 : 0;
          if (layer !== t.layer) return `event ${id} of turn ${t.id} in L${layer}, its turn in L${t.layer}`;
        }
      for (const b of all) {
        if (b.conv !== conv) continue;
        const hs = held.get(b.id) ?? [];
        if (hs.length !== 1) return `block ${b.id} has ${hs.length} holders (${hs.join(", ")})`;
        const layer = l1.has(b.eventId) ? "L1" : l2.has(b.eventId) ? "L2" : l3.has(b.eventId) ? "L3" : "none";
        if (hs[0] !== layer || b.holder !== layer) return `block ${b.id} held by ${hs[0]}, its event in ${layer}`;
        if (`L${turnLayer.get(b.eventId)}` !== layer)
          return `block ${b.id}: its turn is in L${turnLayer.get(b.eventId)} as context sees it, its event in ${layer}`;
      }
    }
    // Bytes are hashed once, when their block is first seen; after that they are looked for.
    for (const b of all) {
      if (b.conv === L3_CONV) continue; // an entity is its name: no bytes
      if (!b.sha256) return `block ${b.id} has no bytes`;
      if (hashed.has(b.sha256)) {
        if (full && !existsSync(bytes.path(b.sha256))) return `bytes of block ${b.id} lost`;
        continue;
      }
      const got = bytes.read(b.sha256);
      if (!got || createHash("sha256").update(got).digest("hex") !== b.sha256) return `bytes of block ${b.id} wrong`;
      hashed.add(b.sha256);
    }
    return null;
  };

  let violation: string | null = null;
  try {
    for (let i = 0; i < ops && violation === null; i++) {
      const r = rand();
      let op: string;
      if (r < 0.45 || events.size === 0) {
        appendTurn();
        counts.append++;
        op = "append";
      } else if (r < 0.75) {
        const conv = pick(convs);
        await ctx.assemble({ conv, input: words(3), budgetTokens: 40 + Math.floor(rand() * 400) });
        counts.prune++;
        op = `prune ${conv}`;
      } else if (r < 0.87) {
        const conv = pick(convs);
        const cold = memory.layerIds(conv, 2);
        const chosen = cold.filter(() => rand() < 0.4);
        const pics = records.ofEvents(chosen);
        for (const id of chosen.slice(0, 3)) {
          const img = pics.get(id)?.find((b) => b.kind === "image");
          graph.add({
            subject: { label: pick(WORDS) },
            predicate: "shows",
            object: img ? { blockId: img.id } : { label: pick(WORDS) },
            sources: [id],
            validFrom: Date.now(),
            origin: "distill",
            version: "test",
          });
        }
        noteL3Events();
        ctx.distilled(conv, chosen);
        counts.distill++;
        op = `distill ${conv} ${chosen.length}`;
      } else if (r < 0.97) {
        const conv = pick(convs);
        const cold = memory.layerIds(conv, 2);
        const chosen = cold.filter(() => rand() < 0.3);
        ctx.restore(conv, chosen);
        counts.recall++;
        op = `recall ${conv} ${chosen.length}`;
      } else {
        const conv = pick(convs);
        if (store.listConversations().some((c) => c.id === conv)) store.forgetConversation(conv);
        counts.forget++;
        op = `forget ${conv}`;
      }
      opts.sabotage?.(store, i);
      const bad = audit(i % FULL_EVERY === FULL_EVERY - 1 || i === ops - 1);
      if (bad) violation = `op ${i + 1} (${op}): ${bad}`;
    }
    const l3Blocks = records.heldBy(null, "L3").length;
    return { seed, ops, counts, events: events.size, blocks: expected.size, chunks, l3Blocks, audits, violation };
  } finally {
    store.close();
  }
}
