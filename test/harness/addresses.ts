/**
 * A source address of this machine that is not loopback (eth0's, say), or null when it has none.
 * Every loopback address counts as one client for the guess limit (127.0.0.2 is the same machine
 * as 127.0.0.1), so a test that needs a second client connects from this one: Linux lets a local
 * address reach 127.0.0.1.
 */
import { networkInterfaces } from "node:os";

export function otherLocalAddress(): string | null {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return null;
}
