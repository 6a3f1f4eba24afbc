/** HOST:PORT listen addresses, as in config.toml's `listen` and the -listen flag. */

/** Split HOST:PORT; null when malformed. IPv6 hosts are bracketed: [::1]:8080. */
export function parseListen(addr: string): { host: string; port: number } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):(\d{1,5})$/.exec(addr);
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  const host = (m[1] as string).replace(/^\[|\]$/g, "");
  return { host, port };
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}
