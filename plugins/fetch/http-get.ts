/**
 * HTTP GET for the fetch tools: one deadline over the whole exchange (redirects and body), the
 * body read as a stream and dropped past a byte cap, and — for fetch_url — every hop pinned to
 * an address the SSRF guard checked: the request goes to that IP with the name in the Host
 * header and in TLS (SNI and the certificate check), so DNS is asked once per hop, by the guard.
 */
import { HomedError } from "../../src/protocol/errors.ts";
import { type GuardPolicy, pinTarget, type Resolve } from "./address-guard.ts";

/** Redirects followed by fetch_url; each hop is checked like the first URL. */
export const MAX_REDIRECTS = 5;

export interface HttpLimits {
  timeoutMs: number;
  /** The tool call's cancellation (the turn was stopped). */
  signal?: AbortSignal;
  /** Name in error messages (fetch_url, fetch_search). */
  tool: string;
}

/** A deadline for one tool call, turning a fetch failure into an error the model can read. */
export class Deadline {
  private readonly timer: AbortSignal;
  readonly signal: AbortSignal;

  constructor(private readonly limits: HttpLimits) {
    this.timer = AbortSignal.timeout(limits.timeoutMs);
    this.signal = limits.signal ? AbortSignal.any([this.timer, limits.signal]) : this.timer;
  }

  /** The error to throw for `err`, which happened while talking to `url`. */
  failure(err: unknown, url: string): HomedError {
    if (err instanceof HomedError) return err;
    const { tool, timeoutMs } = this.limits;
    if (this.limits.signal?.aborted) return new HomedError("cancelled", `${tool}: stopped`);
    if (this.timer.aborted)
      return new HomedError(
        "upstream",
        `${tool}: ${url} did not answer within ${timeoutMs} ms ([tools.fetch] timeout_ms)`,
      );
    const message = (err as Error).message.replace(/ For more information, pass `verbose: true`.*$/, "");
    return new HomedError("upstream", `${tool}: cannot fetch ${url}: ${message}`, {}, { cause: err });
  }
}

/** A response after redirects, its URL, and the hops that led there. */
export interface Arrival {
  url: URL;
  response: Response;
  redirects: string[];
}

/** The URL, when it is one fetch_url may fetch: absolute, http or https. */
export function httpUrl(text: string, tool: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HomedError("invalid_params", `${tool}: ${JSON.stringify(text)} is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new HomedError("invalid_params", `${tool}: only http and https URLs are fetched, not ${url.protocol}`);
  return url;
}

/**
 * GET `start`, following up to MAX_REDIRECTS redirects by hand; every hop passes the guard and
 * is sent to the address it checked. The body of the returned response is not read yet.
 */
export async function guardedGet(
  start: URL,
  policy: GuardPolicy,
  deadline: Deadline,
  headers: Record<string, string>,
  tool: string,
  resolve?: Resolve,
): Promise<Arrival> {
  let url = start;
  const redirects: string[] = [];
  for (;;) {
    const target = await pinTarget(url, policy, tool, resolve);
    const direct = new URL(url);
    direct.hostname = target.address;
    direct.hash = "";
    let response: Response;
    try {
      response = await fetch(direct, {
        headers: { ...headers, Host: url.host },
        redirect: "manual",
        signal: deadline.signal,
        // A fresh connection per request: a pooled one to the same address could carry another
        // name's TLS session.
        keepalive: false,
        tls: url.protocol === "https:" && !target.literal ? { serverName: target.host } : undefined,
      });
    } catch (err) {
      throw deadline.failure(err, url.href);
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || response.status === 304 || !location)
      return { url, response, redirects };
    await response.body?.cancel().catch(() => {});
    if (redirects.length >= MAX_REDIRECTS)
      throw new HomedError("upstream", `${tool}: ${start.href} redirects more than ${MAX_REDIRECTS} times`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new HomedError("upstream", `${tool}: ${url.href} redirects to ${JSON.stringify(location)}, not a URL`);
    }
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new HomedError("upstream", `${tool}: ${url.href} redirects to ${next.protocol}, which is not fetched`);
    redirects.push(next.href);
    url = next;
  }
}

/** A body read up to a cap: the bytes, and whether more were dropped. */
export interface CappedBody {
  bytes: Uint8Array;
  truncated: boolean;
}

/** Read `response`'s body as a stream, stopping (and closing it) once `maxBytes` are in. */
export async function readCapped(
  response: Response,
  maxBytes: number,
  deadline: Deadline,
  url: string,
): Promise<CappedBody> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), truncated };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
      // One chunk past the cap tells a cut from a body of exactly max bytes.
      if (total > maxBytes) {
        truncated = true;
        break;
      }
    }
  } catch (err) {
    throw deadline.failure(err, url);
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes: truncated ? bytes.subarray(0, maxBytes) : bytes, truncated };
}
