/**
 * A real terminal for the suites: a detached tmux session on a private server socket, driven
 * with send-keys and read back with capture-pane — what a person at a terminal types and sees.
 * Waits are on the screen's content (poll), never on sleeps.
 */
import { join } from "node:path";
import { poll } from "./poll.ts";

export interface Tmux {
  /** Type text literally (no key names), without Enter. */
  type(text: string): Promise<void>;
  /** Press keys by tmux name: "Enter", "C-c", "C-d", "Up". */
  press(...keys: string[]): Promise<void>;
  /** Paste text as a terminal pastes it (bracketed paste when the program asked for it). */
  paste(text: string): Promise<void>;
  /** The pane's visible text; tmux drops spaces at the end of each line, and blank lines at the end are dropped. */
  screen(): Promise<string>;
  /** Wait until the screen matches; returns it. */
  waitFor(match: string | RegExp, what?: string, timeoutMs?: number): Promise<string>;
  /** Whether the command in the pane has ended, and its status (128 + N for signal N). */
  exited(): Promise<{ dead: boolean; status: number | null }>;
  /** Wait for the command to end; its exit status. */
  waitExit(what?: string): Promise<number>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function tmux(socket: string, ...args: string[]): Promise<string> {
  const p = Bun.spawn(["tmux", "-S", socket, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`tmux ${args[0]} failed (${code}): ${err.trim()}`);
  return out;
}

/** Servers started by this process: each gets a socket of its own. */
let servers = 0;

/** Run `cmd` in a fresh 120×40 pane; `dir` holds the tmux server's socket. */
export async function startTmux(dir: string, cmd: string[], env: Record<string, string> = {}): Promise<Tmux> {
  // A socket per server, never reused: `kill-server` returns before the old server has gone, and
  // a new client on the same path could reach the dying server ("server exited unexpectedly").
  const socket = join(dir, `tmux-${++servers}.sock`);
  // The command's status is printed by a shell around it: tmux 3.3 sometimes marks a pane dead
  // without recording the status of what ran in it.
  // It starts on an Enter sent once the session exists: tmux 3.3 can lose what a command writes
  // in its first moments (seen with a bare `echo >&2`).
  const quoted = ["sh", "-c", 'read _; "$@"; echo "[exit $?]"', "sh", ...cmd]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(" ");
  const envArgs = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  // remain-on-exit from the start: a command that ends at once still leaves its screen and status.
  const conf = join(dir, "tmux.conf");
  await Bun.write(conf, "set -g remain-on-exit on\nset -g history-limit 5000\n");
  await tmux(socket, "-f", conf, "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", ...envArgs, quoted);
  const screen = async () => (await tmux(socket, "capture-pane", "-p", "-t", "t")).replace(/^\n+|\n+$/g, "");
  await tmux(socket, "send-keys", "-t", "t", "Enter");
  const exited = async () => {
    const m = /\[exit (\d+)\]$/m.exec(await screen());
    return m ? { dead: true, status: Number(m[1]) } : { dead: false, status: null };
  };
  return {
    type: async (text) => void (await tmux(socket, "send-keys", "-t", "t", "-l", text)),
    press: async (...keys) => void (await tmux(socket, "send-keys", "-t", "t", ...keys)),
    async paste(text) {
      await tmux(socket, "set-buffer", "--", text);
      await tmux(socket, "paste-buffer", "-p", "-t", "t");
    },
    screen,
    waitFor: (match, what, timeoutMs = 15_000) =>
      poll(screen, (s) => (typeof match === "string" ? s.includes(match) : match.test(s)), {
        what: what ?? `the screen to show ${match}`,
        timeoutMs,
      }),
    exited,
    async waitExit(what = "the command to exit") {
      return (await poll(exited, (x) => x.dead, { what })).status as number;
    },
    async [Symbol.asyncDispose]() {
      await tmux(socket, "kill-server").catch(() => {});
    },
  };
}
