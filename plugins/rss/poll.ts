/**
 * Fetching a feed: through the fetch plugin's SSRF guard and capped GET (plugins/fetch, the one
 * network path for web content: private and local addresses refused unless [tools.fetch]
 * allows them), conditional on the ETag and Last-Modified the feed gave last time, and parsed
 * with htmlparser2's parseFeed (RSS 0.9x/1.0/2.0 and Atom).
 */
import { DomUtils, parseDocument, parseFeed } from "htmlparser2";
import { HomedError } from "../../src/protocol/errors.ts";
import { Deadline, guardedGet, httpUrl, readCapped } from "../fetch/http-get.ts";
import type { Feed, ParsedItem } from "./feeds.ts";

export interface FetchSettings {
  allow_private: boolean;
  allow_hosts: string[];
  max_kb: number;
  timeout_ms: number;
}

export type PollResult =
  | { kind: "unchanged" }
  | { kind: "feed"; title: string; items: ParsedItem[]; etag: string; lastModified: string };

/** An item's text: its HTML as plain text, whitespace folded, at most 20000 characters. */
export function plainText(html: string): string {
  const text = DomUtils.textContent(parseDocument(html, { decodeEntities: true }));
  return text
    .replace(/[ \t\r\f\v]+/g, " ")
    .replace(/\n\s*\n+/g, "\n\n")
    .trim()
    .slice(0, 20_000);
}

export async function pollFeed(
  url: string,
  prev: Pick<Feed, "etag" | "lastModified"> | null,
  cfg: FetchSettings,
  userAgent: string,
  tool: string,
  signal?: AbortSignal,
): Promise<PollResult> {
  const start = httpUrl(url, tool);
  const deadline = new Deadline({ timeoutMs: cfg.timeout_ms, signal, tool });
  const headers: Record<string, string> = {
    "user-agent": userAgent,
    accept: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1",
  };
  if (prev?.etag) headers["if-none-match"] = prev.etag;
  if (prev?.lastModified) headers["if-modified-since"] = prev.lastModified;
  const { response, url: at } = await guardedGet(
    start,
    { allowPrivate: cfg.allow_private, allowHosts: cfg.allow_hosts },
    deadline,
    headers,
    tool,
  );
  if (response.status === 304) {
    await response.body?.cancel().catch(() => {});
    return { kind: "unchanged" };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new HomedError("upstream", `${tool}: ${at.href} answered HTTP ${response.status}`);
  }
  const body = await readCapped(response, cfg.max_kb * 1024, deadline, at.href);
  if (body.truncated)
    throw new HomedError("upstream", `${tool}: ${at.href} is over ${cfg.max_kb} KiB ([tools.fetch] max_kb); not read`);
  const text = new TextDecoder().decode(body.bytes);
  const feed = parseFeed(text, { xmlMode: true, decodeEntities: true });
  if (!feed || (feed.items.length === 0 && !feed.title))
    throw new HomedError("invalid_params", `${tool}: ${at.href} is not an RSS or Atom feed`);
  const guids = guidsOf(text);
  return {
    kind: "feed",
    title: (feed.title ?? "").trim() || at.host,
    etag: response.headers.get("etag") ?? "",
    lastModified: response.headers.get("last-modified") ?? "",
    items: feed.items.map((i, n) => ({
      guid: i.id?.trim() || guids[n],
      title: plainText(i.title ?? "").slice(0, 500) || "(untitled)",
      link: i.link?.trim() ?? "",
      published: i.pubDate && !Number.isNaN(i.pubDate.getTime()) ? i.pubDate.getTime() : null,
      text: plainText(i.description ?? ""),
    })),
  };
}

/** RSS 2.0 <guid>s in item order (parseFeed reads them as `id`; this is the fallback). */
function guidsOf(xml: string): (string | undefined)[] {
  return [...xml.matchAll(/<item[\s>][\s\S]*?<\/item>/g)].map((m) =>
    /<guid[^>]*>([^<]*)<\/guid>/.exec(m[0])?.[1]?.trim(),
  );
}
