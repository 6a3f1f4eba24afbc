/**
 * The Host header check against DNS rebinding. A page on attacker.example whose name is made to
 * resolve to 127.0.0.1 talks to us from the browser with `Host: attacker.example`; answering only
 * names that cannot be rebound (IP literals of this machine, localhost) and the names the owner
 * lists keeps such a page out even though the loopback bind has no login.
 */
import { isLoopback } from "../../src/shared/listen.ts";

/**
 * The host part of a Host header value, lower-cased, brackets kept for IPv6; null when the value
 * is malformed or holds several hosts. Bun joins repeated Host headers with ", ", so a comma is a
 * second Host header — which one a proxy or framework would use is anyone's guess.
 */
export function hostHeaderName(value: string): string | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^\s[\]:,/\\@?#]+)(?::\d{1,5})?$/.exec(value);
  return m ? (m[1] as string).toLowerCase() : null;
}

/** Whether a loopback-bound homed answers requests for `name` (from hostHeaderName). */
export function loopbackHostAllowed(name: string, allowedHosts: ReadonlySet<string>): boolean {
  return isLoopback(name) || allowedHosts.has(name);
}
