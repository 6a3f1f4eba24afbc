/** Where things live inside a data dir. Pure: no I/O, safe for clients to import. */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export interface DataPaths {
  dir: string;
  config: string;
  db: string;
  socket: string;
  lock: string;
  logs: string;
}

/** `$XDG_DATA_HOME/homed`, falling back to `~/.local/share/homed` as the XDG spec says. */
export function defaultDataDir(env: Record<string, string | undefined> = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg?.startsWith("/") ? xdg : join(env.HOME || homedir(), ".local", "share");
  return join(base, "homed");
}

export function dataPaths(dir: string): DataPaths {
  const abs = resolve(dir);
  return {
    dir: abs,
    config: join(abs, "config.toml"),
    db: join(abs, "homed.db"),
    socket: join(abs, "homed.sock"),
    lock: join(abs, "homed.lock"),
    logs: join(abs, "logs"),
  };
}
