/**
 * The login token of the web UI and HTTP APIs. A token set in config.toml (or HOMED_WEB_TOKEN)
 * wins; otherwise one is generated at first start into DATA/web-token (0600). It is printed once,
 * on that first start, and only when listening beyond loopback (where it is needed to log in) —
 * directly on stderr, not through the logger, so it never lands in DATA/logs. A loopback daemon
 * never prints it: its stderr often ends up in a journal or terminal scrollback others can read,
 * and the token is not needed there.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLoopback, parseListen } from "../shared/listen.ts";

export function ensureWebToken(dataDir: string, configured: string, listen: string): string {
  if (configured) return configured;
  const file = join(dataDir, "web-token");
  if (existsSync(file)) {
    const token = readFileSync(file, "utf8").trim();
    if (token.length >= 16) return token;
  }
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  if (!isLoopback(parseListen(listen)?.host ?? "")) {
    process.stderr.write(`\nweb login token (needed to log in): ${token}\nkept in ${file}; it is not shown again.\n\n`);
  }
  return token;
}
