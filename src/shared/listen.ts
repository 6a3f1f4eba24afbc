/** HOST:PORT listen addresses, as in config.toml's `listen` and the -listen flag. */
import { isLoopbackAddress } from "./ip-address.ts";

/** Split HOST:PORT; null when malformed. IPv6 hosts are bracketed: [::1]:8080. */
export function parseListen(addr: string): { host: string; port: number } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(addr);
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  const host = (m[1] as string).replace(/^\[|\]$/g, "");
  return { host, port };
}

/**
 * True for hosts only this machine can reach: an IP literal in 127.0.0.0/8, ::1 (bracketed or
 * not), or exactly the name localhost (any case). Every other name is not loopback, whatever it
 * starts with.
 */
export function isLoopback(host: string): boolean {
  return host.toLowerCase() === "localhost" || isLoopbackAddress(host);
}
