/**
 * The login token of the web UI and HTTP APIs. A token set in config.toml wins; otherwise one is
 * generated at first start into DATA/web-token (0600) and printed once on the daemon's stderr —
 * directly, not through the logger, so it never lands in DATA/logs.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isLoopback, parseListen } from "../protocol/listen.ts";

export function ensureWebToken(dataDir: string, configured: string, listen: string): string {
  if (configured) return configured;
  const file = join(dataDir, "web-token");
  if (existsSync(file)) {
    const token = readFileSync(file, "utf8").trim();
    if (token.length >= 16) return token;
  }
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
  writeFileSync(file, token + "\n", { mode: 0o600 });
  const host = parseListen(listen)?.host ?? "";
  const note = isLoopback(host) ? "needed only when -listen is not a loopback address" : "needed to log in";
  process.stderr.write(`\nweb login token (${note}): ${token}\nkept in ${file}; it is not shown again.\n\n`);
  return token;
}
