/**
 * Where the desktop launcher finds things on this machine: a Chromium-family browser (Chromium,
 * Chrome or Edge; $HOMED_BROWSER or -browser first), the user's config folder (its browser
 * profile and remembered tokens live there), and the login token remembered for one homed,
 * kept 0600 in a file named after the homed's origin.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";

type Env = Record<string, string | undefined>;

/** The per-user config folder for homed: $XDG_CONFIG_HOME/homed, %APPDATA%\homed, or the OS's. */
export function configDir(env: Env = process.env, platform: string = process.platform): string {
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "homed");
  if (env.XDG_CONFIG_HOME?.startsWith("/")) return join(env.XDG_CONFIG_HOME, "homed");
  const home = env.HOME || homedir();
  if (platform === "darwin") return join(home, "Library", "Application Support", "homed");
  return join(home, ".config", "homed");
}

/** Browsers that take `--app=URL` and `--remote-debugging-pipe`, in the order they are tried. */
function candidates(env: Env, platform: string): string[] {
  if (platform === "win32") {
    const roots = [env["ProgramFiles(x86)"], env.ProgramFiles, env.LOCALAPPDATA].filter((r): r is string => !!r);
    return roots.flatMap((r) => [
      join(r, "Microsoft", "Edge", "Application", "msedge.exe"),
      join(r, "Google", "Chrome", "Application", "chrome.exe"),
      join(r, "Chromium", "Application", "chrome.exe"),
    ]);
  }
  if (platform === "darwin") {
    return ["Google Chrome", "Microsoft Edge", "Chromium"].map(
      (app) => `/Applications/${app}.app/Contents/MacOS/${app}`,
    );
  }
  return ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge"];
}

/** The browser to open the window with; a usage error naming what was looked for when none is. */
export function findBrowser(given: string | undefined, env: Env = process.env, platform = process.platform): string {
  const wanted = given ?? env.HOMED_BROWSER;
  if (wanted) {
    const found = existsSync(wanted) ? wanted : Bun.which(wanted);
    if (!found) throw new HomedError("usage", `browser ${wanted} not found`, { flag: "browser" });
    return found;
  }
  for (const c of candidates(env, platform)) {
    const found = c.includes("/") || c.includes("\\") ? (existsSync(c) ? c : null) : Bun.which(c);
    if (found) return found;
  }
  throw new HomedError(
    "usage",
    `no Chromium, Chrome or Edge found (looked for ${candidates(env, platform).join(", ")}); install one or pass -browser PATH`,
    { flag: "browser" },
  );
}

/** The file that remembers the token for `origin` (one per homed the person opens). */
export function tokenFile(origin: string, env: Env = process.env): string {
  const key = createHash("sha256").update(origin).digest("hex").slice(0, 16);
  return join(configDir(env), "desktop", "tokens", key);
}

export function rememberedToken(origin: string): string | null {
  const file = tokenFile(origin);
  if (!existsSync(file)) return null;
  const token = readFileSync(file, "utf8").trim();
  return token || null;
}

/** Keep `token` for `origin`, readable by this user alone (0600, in a 0700 folder). */
export function rememberToken(origin: string, token: string): void {
  const file = tokenFile(origin);
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
