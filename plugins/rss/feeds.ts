/**
 * The feeds and their items, kept in DATA/rss/feeds.json (written whole to a temporary file and
 * renamed). Items are deduplicated by guid, else link, else title and date; each feed keeps its
 * newest [tools.rss] max_items.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as v from "valibot";

const Item = v.object({
  id: v.string(),
  key: v.string(),
  title: v.string(),
  link: v.string(),
  published: v.nullable(v.number()),
  text: v.string(),
  seen: v.number(),
  read: v.boolean(),
  digested: v.boolean(),
});
const Feed = v.object({
  id: v.string(),
  url: v.string(),
  title: v.string(),
  etag: v.string(),
  lastModified: v.string(),
  polled: v.nullable(v.number()),
  outcome: v.string(),
  items: v.array(Item),
});
const State = v.object({ feeds: v.array(Feed) });
export type Item = v.InferOutput<typeof Item>;
export type Feed = v.InferOutput<typeof Feed>;

export class RssError extends Error {}

const hash = (s: string, n: number) => createHash("sha256").update(s).digest("hex").slice(0, n);
export const feedIdOf = (url: string) => hash(url, 8);

export interface ParsedItem {
  guid?: string;
  title: string;
  link: string;
  published: number | null;
  text: string;
}

export class FeedBook {
  feeds: Feed[] = [];
  /** Where a state file that did not parse was moved at start, if one did not. */
  setAside: string | null = null;

  constructor(private readonly file: string) {
    if (!existsSync(file)) return;
    let raw: unknown = null;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch {}
    const r = v.safeParse(State, raw);
    if (r.success) this.feeds = r.output.feeds;
    else {
      // Kept, not lost: the broken file is moved aside and the plugin starts with no feeds.
      this.setAside = `${file}.broken-${Date.now()}`;
      renameSync(file, this.setAside);
    }
  }

  save(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ feeds: this.feeds }), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  find(ref: string): Feed {
    const f = this.feeds.find((x) => x.id === ref || x.url === ref);
    if (!f)
      throw new RssError(
        `there is no feed ${ref}; subscribed: ${this.feeds.map((x) => `${x.id} (${x.title})`).join(", ") || "none"}`,
      );
    return f;
  }

  item(id: string): { feed: Feed; item: Item } {
    for (const feed of this.feeds) {
      const item = feed.items.find((i) => i.id === id);
      if (item) return { feed, item };
    }
    throw new RssError(`there is no item ${id}; rss_items lists them`);
  }

  /** Fold parsed items into `feed`; returns the new ones. */
  merge(feed: Feed, parsed: ParsedItem[], now: number, maxItems: number): Item[] {
    const known = new Set(feed.items.map((i) => i.key));
    const fresh: Item[] = [];
    for (const p of parsed) {
      const key = p.guid || p.link || `${p.title}\n${p.published ?? ""}`;
      if (!key.trim() || known.has(key)) continue;
      known.add(key);
      fresh.push({
        id: hash(`${feed.id}\n${key}`, 12),
        key,
        title: p.title,
        link: p.link,
        published: p.published,
        text: p.text,
        seen: now,
        read: false,
        digested: false,
      });
    }
    const when = (i: Item) => i.published ?? i.seen;
    feed.items = [...fresh, ...feed.items].sort((a, b) => when(b) - when(a)).slice(0, maxItems);
    const kept = new Set(feed.items.map((i) => i.id));
    return fresh.filter((i) => kept.has(i.id));
  }
}
