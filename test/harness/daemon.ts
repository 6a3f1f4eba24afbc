/**
 * Start a real daemon (dist/homed) on a data dir and wait for its readiness line on stderr —
 * never a sleep. The returned handle collects stderr and stops the process when disposed.
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { HOMED } from "./binary.ts";

export interface Daemon {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  dataDir: string;
  socket: string;
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string;
  /** Resolves when stderr contains `text` (or rejects after timeoutMs). */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** How long a disposed daemon may take to stop its plugins before it is killed. */
const DISPOSE_GRACE_MS = 5000;

/**
 * Spawn `homed -data DIR`. Unless the test passes its own -listen, the web plugin gets port 0
 * (any free port), so suites run side by side and next to a daemon on 8080.
 */
export function spawnDaemon(
  dataDir: string,
  opts: {
    args?: string[];
    env?: Record<string, string>;
    bin?: string[];
    /** In a process group of its own, as a daemon in a terminal is (signals to -pid reach it all). */
    detached?: boolean;
    /**
     * Keep the daemon's default loopback login ([web] auth = "token"). Without it the suites talk
     * to the web API as the owner on a machine of their own (HOMED_WEB_AUTH=none), and the
     * login on loopback has suites of its own (test/web/loopback-login.test.ts).
     */
    loopbackLogin?: boolean;
    /**
     * Run external plugins in their bubblewrap rooms, as the daemon does by default. Without it
     * the suites' plugins (fixtures that import the SDK from this repository and write where
     * the test reads) run unconfined (HOMED_PLUGINS_SANDBOX=none); the rooms have suites of
     * their own (test/plugins/plugin-sandbox.test.ts).
     */
    pluginSandbox?: boolean;
  } = {},
): Daemon {
  const args = opts.args ?? [];
  const listen = args.some((a) => /^--?listen/.test(a)) || opts.env?.HOMED_LISTEN ? [] : ["-listen", "127.0.0.1:0"];
  const proc = Bun.spawn([...(opts.bin ?? [HOMED]), "-data", dataDir, ...listen, ...args], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      ...(opts.loopbackLogin ? {} : { HOMED_WEB_AUTH: "none" }),
      ...(opts.pluginSandbox ? {} : { HOMED_PLUGINS_SANDBOX: "none" }),
      ...opts.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: opts.detached === true,
  });
  let err = "";
  const waiters: { match: string | RegExp; resolve: () => void }[] = [];
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (typeof w.match === "string" ? err.includes(w.match) : w.match.test(err)) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr) {
      err += dec.decode(chunk, { stream: true });
      check();
    }
  })();
  void new Response(proc.stdout).text();
  const d: Daemon = {
    proc,
    dataDir,
    socket: join(dataDir, "homed.sock"),
    stderr: () => err,
    waitFor(text, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${text} in daemon stderr:\n${err}`)),
          timeoutMs,
        );
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push({ match: text, resolve: done });
        check();
        void proc.exited.then((code) => {
          if (waiters.some((w) => w.resolve === done)) {
            clearTimeout(timer);
            reject(new Error(`daemon exited (${code}) before ${text}:\n${err}`));
          }
        });
      });
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      return await proc.exited;
    },
    // As a person stops it (SIGTERM: the daemon stops its plugins, and the browser plugin its
    // Chromium), so nothing a plugin left running writes into the data dir after the test
    // removed it; SIGKILL only for a daemon that does not stop within DISPOSE_GRACE_MS.
    async [Symbol.asyncDispose]() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), DISPOSE_GRACE_MS);
      await proc.exited;
      clearTimeout(timer);
    },
  };
  return d;
}

/**
 * Start a daemon and wait until it says it is ready (15 s, or `readyTimeoutMs`: an emulated
 * arm64 daemon on a loaded machine takes longer).
 */
export async function startDaemon(
  dataDir: string,
  opts: Parameters<typeof spawnDaemon>[1] & { readyTimeoutMs?: number } = {},
): Promise<Daemon> {
  const d = spawnDaemon(dataDir, opts);
  await d.waitFor('msg="homed ready"', opts.readyTimeoutMs);
  return d;
}

/** The web plugin's URL, from the line it logs once listening (0.0.0.0 binds reached via 127.0.0.1). */
export async function webUrlOf(d: Daemon): Promise<string> {
  await d.waitFor(/msg="web listening" plugin=web url=http:\/\/\S+/);
  return (/msg="web listening" plugin=web url=(http:\/\/\S+)/.exec(d.stderr())![1] as string).replace(
    "0.0.0.0",
    "127.0.0.1",
  );
}
