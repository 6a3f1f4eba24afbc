/**
 * fetch_search: web search through the provider the owner configured — a SearXNG instance's
 * JSON API, or the Brave Search API with a key from DATA/secrets.json. The endpoint is the
 * owner's own setting (a SearXNG on the LAN is normal), so the SSRF guard does not apply to it;
 * it applies when the model fetches a result with fetch_url.
 */
import * as v from "valibot";
import { HomedError } from "../../src/protocol/errors.ts";
import { describeIssues } from "../../src/protocol/jsonrpc.ts";
import type { FetchConfig } from "./config.ts";
import { htmlToText } from "./html-text.ts";
import { Deadline, readCapped } from "./http-get.ts";
import { untrustedLine } from "./untrusted.ts";

const TOOL = "fetch_search";

/** Brave's web search endpoint; [tools.fetch] search_url replaces it (a proxy, or a test's fake). */
export const BRAVE_API = "https://api.search.brave.com/res/v1/web/search";

export interface SearchArgs {
  query: string;
  count?: number;
}

export interface SearchDeps {
  config: FetchConfig;
  userAgent: string;
  signal?: AbortSignal;
}

interface Hit {
  title: string;
  url: string;
  snippet: string;
}

const SearxngAnswer = v.object({
  results: v.array(
    v.object({ url: v.string(), title: v.optional(v.string(), ""), content: v.optional(v.string(), "") }),
  ),
});
const BraveAnswer = v.object({
  web: v.optional(
    v.object({
      results: v.array(
        v.object({ url: v.string(), title: v.optional(v.string(), ""), description: v.optional(v.string(), "") }),
      ),
    }),
    { results: [] },
  ),
});

const HOW_TO_CONFIGURE =
  'set [tools.fetch] search_provider = "searxng" and search_url = "http://<your SearXNG>" (its JSON ' +
  'format enabled), or search_provider = "brave" and search_key_secret = "<name>" with the API key in ' +
  'DATA/secrets.json under "values"; config.toml changes take effect when homed restarts';

/** Provider text (snippets may hold <strong> and entities) as one plain line. */
function plain(s: string, max: number): string {
  const text = s.includes("<") || s.includes("&") ? htmlToText(`<p>${s}</p>`, "about:blank").text : s;
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

async function getJson(url: URL, headers: Record<string, string>, d: SearchDeps, what: string): Promise<unknown> {
  const deadline = new Deadline({ timeoutMs: d.config.timeout_ms, signal: d.signal, tool: TOOL });
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { "User-Agent": d.userAgent, Accept: "application/json", ...headers },
      signal: deadline.signal,
    });
  } catch (err) {
    throw deadline.failure(err, `${what} (${url.origin})`);
  }
  const body = await readCapped(response, d.config.max_kb * 1024, deadline, url.href);
  const text = new TextDecoder().decode(body.bytes);
  if (!response.ok) {
    const status = `${response.status} ${response.statusText}`.trim();
    let hint = "";
    if (what === "SearXNG" && response.status === 403)
      hint = ": is the json format enabled (search.formats in its settings.yml)?";
    else if (what === "Brave Search" && (response.status === 401 || response.status === 403 || response.status === 422))
      hint = `: the API key in DATA/secrets.json ("${d.config.search_key_secret}") was refused`;
    else if (response.status === 429) hint = ": rate limited, try again later";
    throw new HomedError("upstream", `${TOOL}: ${what} at ${url.origin} answered ${status}${hint}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HomedError(
      "upstream",
      `${TOOL}: ${what} at ${url.origin} did not answer JSON${body.truncated ? ` within max_kb = ${d.config.max_kb}` : ""}`,
    );
  }
}

function parsed<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const r = v.safeParse(schema, value);
  if (!r.success)
    throw new HomedError("upstream", `${TOOL}: ${what} answered an unexpected shape (${describeIssues(r.issues)})`);
  return r.output;
}

async function searxng(query: string, count: number, d: SearchDeps): Promise<Hit[]> {
  if (!d.config.search_url)
    throw new HomedError(
      "config",
      `${TOOL}: search_provider is "searxng" but search_url is empty; ${HOW_TO_CONFIGURE}`,
    );
  const base = new URL(d.config.search_url);
  const url = /\/search\/?$/.test(base.pathname)
    ? base
    : new URL("search", base.href.endsWith("/") ? base : `${base.href}/`);
  url.searchParams.set("q", query);
  url.searchParams.set("format", "json");
  const answer = parsed(SearxngAnswer, await getJson(url, {}, d, "SearXNG"), "SearXNG");
  return answer.results.slice(0, count).map((r) => ({ title: r.title, url: r.url, snippet: r.content }));
}

async function brave(query: string, count: number, d: SearchDeps): Promise<Hit[]> {
  const name = d.config.search_key_secret;
  if (!name)
    throw new HomedError(
      "config",
      `${TOOL}: search_provider is "brave" but search_key_secret is empty; ${HOW_TO_CONFIGURE}`,
    );
  if (!d.config.search_key)
    throw new HomedError(
      "config",
      `${TOOL}: DATA/secrets.json has no entry "${name}" under "values" (search_key_secret); put the Brave Search API key there`,
    );
  const url = new URL(d.config.search_url || BRAVE_API);
  url.searchParams.set("q", query);
  url.searchParams.set("count", String(count));
  const answer = parsed(
    BraveAnswer,
    await getJson(url, { "X-Subscription-Token": d.config.search_key }, d, "Brave Search"),
    "Brave Search",
  );
  return answer.web.results.slice(0, count).map((r) => ({ title: r.title, url: r.url, snippet: r.description }));
}

/** Search the web; numbered results (title, URL, snippet) under the untrusted-content line. */
export async function webSearch(args: SearchArgs, d: SearchDeps): Promise<string> {
  const count = args.count ?? 8;
  const provider = d.config.search_provider;
  if (provider === "") throw new HomedError("config", `${TOOL}: web search is not configured: ${HOW_TO_CONFIGURE}`);
  const hits = (
    provider === "searxng" ? await searxng(args.query, count, d) : await brave(args.query, count, d)
  ).filter((h) => /^https?:\/\//i.test(h.url));
  const lines = [untrustedLine(`${provider} search`), `Results for ${JSON.stringify(args.query)}: ${hits.length}`];
  hits.forEach((h, i) => {
    lines.push("", `${i + 1}. ${plain(h.title, 200) || "(no title)"}`, `   ${h.url}`);
    const snippet = plain(h.snippet, 400);
    if (snippet) lines.push(`   ${snippet}`);
  });
  return lines.join("\n");
}
