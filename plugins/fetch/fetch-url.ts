/**
 * fetch_url's work: GET through the SSRF guard, decide by media type (HTML → readable text,
 * text/JSON/XML/markdown → the text, anything else refused with its type and size, unread),
 * and return one page of the result with a cursor for the next.
 */
import { HomedError } from "../../src/protocol/errors.ts";
import { pinTarget, type Resolve } from "./address-guard.ts";
import type { FetchConfig } from "./config.ts";
import { htmlToText } from "./html-text.ts";
import { Deadline, guardedGet, httpUrl, readCapped } from "./http-get.ts";
import { pageOf } from "./page.ts";
import { untrustedLine } from "./untrusted.ts";

const TOOL = "fetch_url";

const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,text/*;q=0.8,application/json;q=0.8,*/*;q=0.1";
const TEXT_TYPES =
  /^(text\/.*|application\/([\w.-]+\+)?(json|xml|javascript|x-javascript|ecmascript|yaml|x-yaml|toml|x-ndjson|ndjson|sql|graphql|x-sh|x-httpd-php))$/;

export interface FetchUrlArgs {
  url: string;
  cursor?: number;
}

export interface FetchUrlDeps {
  config: FetchConfig;
  userAgent: string;
  signal?: AbortSignal;
  /** DNS, for tests; the system resolver otherwise. */
  resolve?: Resolve;
}

export interface FetchUrlResult {
  content: string;
  isError: boolean;
}

type Kind = "html" | "text" | "binary";

function kindOf(mediaType: string, head: Uint8Array): Kind {
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml") return "html";
  if (TEXT_TYPES.test(mediaType)) return head.includes(0) ? "binary" : "text";
  if (mediaType !== "") return "binary";
  // No type given: NUL bytes mean binary; markup that opens like HTML is HTML.
  if (head.includes(0)) return "binary";
  const start = new TextDecoder().decode(head.subarray(0, 512)).trimStart().toLowerCase();
  return start.startsWith("<!doctype html") || start.startsWith("<html") ? "html" : "text";
}

function charsetOf(contentType: string, head: Uint8Array, kind: Kind): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  if (declared) return declared;
  if (kind === "html") {
    const start = new TextDecoder("latin1").decode(head.subarray(0, 2048));
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(start)?.[1];
    if (meta) return meta;
  }
  return "utf-8";
}

function decode(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Why fetch_url would refuse `url` at once (a private address the owner has not allowed, not a
 * URL), or null; a host that cannot be resolved now is the call's to report.
 */
export async function fetchRefusal(url: string, config: FetchConfig, resolve?: Resolve): Promise<string | null> {
  try {
    await pinTarget(
      httpUrl(url, TOOL),
      { allowPrivate: config.allow_private, allowHosts: config.allow_hosts },
      TOOL,
      resolve,
    );
    return null;
  } catch (err) {
    return err instanceof HomedError && err.code !== "upstream" ? err.message : null;
  }
}

/** Fetch `args.url` and return the page of readable text `args.cursor` names. */
export async function fetchUrl(args: FetchUrlArgs, d: FetchUrlDeps): Promise<FetchUrlResult> {
  const start = httpUrl(args.url, TOOL);
  const deadline = new Deadline({ timeoutMs: d.config.timeout_ms, signal: d.signal, tool: TOOL });
  const policy = { allowPrivate: d.config.allow_private, allowHosts: d.config.allow_hosts };
  const { url, response, redirects } = await guardedGet(
    start,
    policy,
    deadline,
    { "User-Agent": d.userAgent, Accept: ACCEPT },
    TOOL,
    d.resolve,
  );
  const contentType = response.headers.get("content-type") ?? "";
  // A repeated header arrives joined by commas: the last value counts, as in browsers.
  const lastType =
    contentType
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean)
      .at(-1) ?? "";
  const mediaType = lastType.split(";")[0]?.trim().toLowerCase() ?? "";
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (mediaType !== "" && kindOf(mediaType, new Uint8Array()) === "binary") {
    await response.body?.cancel().catch(() => {});
    const size = Number.isFinite(declared) ? sizeText(declared) : "size not given";
    throw new HomedError(
      "invalid_params",
      `${TOOL}: ${url.href} is ${mediaType} (${size}), not text; ${TOOL} reads HTML and text only, and did not download it`,
    );
  }
  const maxBytes = d.config.max_kb * 1024;
  const body = await readCapped(response, maxBytes, deadline, url.href);
  const kind = kindOf(mediaType, body.bytes.subarray(0, 8192));
  if (kind === "binary")
    throw new HomedError(
      "invalid_params",
      `${TOOL}: ${url.href} is binary data (${mediaType || "no type given"}, ${sizeText(body.bytes.length)}${body.truncated ? " or more" : ""}), not text`,
    );
  const text = decode(body.bytes, charsetOf(lastType, body.bytes, kind));
  let title = "";
  let readable = text;
  let links: string[] = [];
  if (kind === "html") {
    ({ title, text: readable, links } = htmlToText(text, url.href));
  } else if (/json/.test(mediaType) && !body.truncated) {
    try {
      readable = JSON.stringify(JSON.parse(text), null, 2);
    } catch {}
  }

  if (kind === "html" && readable.trim() === "")
    readable = "(no readable text in the HTML: the page may be built by JavaScript, which fetch_url does not run)";
  const page = pageOf(readable, links, args.cursor ?? 0, TOOL);
  const facts = [
    untrustedLine(url.host),
    `URL: ${url.href}${redirects.length > 0 ? ` (redirected from ${start.href})` : ""}`,
    ...(title ? [`Title: ${title}`] : []),
    `Type: ${mediaType || "not given"}, ${sizeText(body.bytes.length)}` +
      (body.truncated ? `; cut at [tools.fetch] max_kb = ${d.config.max_kb}, the rest was not read` : ""),
    page.position,
  ];
  const failed = response.status >= 400;
  if (failed) facts.splice(1, 0, `${TOOL}: the server answered ${response.status} ${response.statusText}`.trim());
  return { content: `${facts.join("\n")}\n\n${page.body}`, isError: failed };
}
