/**
 * Checks on what connects to homed: the access token (`Authorization: Bearer …`, or
 * `?access_token=` as OneBot v11 also allows) and the X-Signature of an HTTP-POST report
 * (`sha1=` + hex HMAC-SHA1 of the raw body). Both compare in constant time, and both are guesses
 * counted per client by the listener's GuessLimiter: after 5 wrong ones a client gets 429 with
 * Retry-After before anything it sends is looked at.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { GuessLimiter } from "../sdk/index.ts";

/** 429 with Retry-After when `address` must wait before its credentials are checked; else null. */
export function guessesBlocked(limiter: GuessLimiter, address: string): Response | null {
  const seconds = limiter.retryAfter(address);
  if (seconds === 0) return null;
  return new Response(`too many wrong access tokens from this address; try again in ${seconds} s\n`, {
    status: 429,
    headers: { "retry-after": String(seconds) },
  });
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `req` carries `token` (always true when no token is configured). */
export function tokenOk(req: Request, token: string): boolean {
  if (!token) return true;
  const header = req.headers.get("authorization") ?? "";
  const m = /^(?:Bearer|Token)\s+(.+)$/i.exec(header);
  if (m && same(m[1] as string, token)) return true;
  const q = new URL(req.url).searchParams.get("access_token");
  return q !== null && same(q, token);
}

/** `sha1=<hex>` of `body` under `secret`. */
export function signature(secret: string, body: string | Uint8Array): string {
  return `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`;
}

/** Whether the X-Signature header matches the body (true when no secret is configured). */
export function signatureOk(header: string | null, secret: string, body: Uint8Array): boolean {
  if (!secret) return true;
  return header !== null && same(header.toLowerCase(), signature(secret, body));
}
