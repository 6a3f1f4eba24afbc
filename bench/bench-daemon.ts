/**
 * The real daemon (dist/homed) as the benchmarks drive it: spawned on a data dir, ready when its
 * stderr says so (never a sleep), reached over its control socket, measured through /proc.
 * Stderr is kept as a bounded tail, so a ten-minute soak does not grow the bench process.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { connectUnixRpc, type RpcClient } from "../src/ipc/unix-rpc.ts";
import type { StatusResult } from "../src/protocol/control.ts";
import type { FakeModel } from "./fake-model.ts";

export const ROOT = resolve(import.meta.dir, "..");
export const HOMED = join(ROOT, "dist/homed");
export const quietRpcLog = { warn: () => {}, debug: () => {} };

/** Characters of stderr kept for readiness checks and failure messages. */
const STDERR_TAIL = 256 * 1024;

/** Resident memory of a process in MiB, from /proc (0 once it is gone). */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory of a daemon and its plugin processes together (MiB): what a person sees homed
 * take. `plugins` is the `status` answer's list; a plugin without a process counts nothing.
 */
export function daemonRssMiB(pid: number, plugins: readonly { pid: number | null }[]): number {
  return rssMiB(pid) + plugins.reduce((sum, p) => sum + (p.pid ? rssMiB(p.pid) : 0), 0);
}

/** Open file descriptors of a process, from /proc. */
export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

export interface BenchDaemonOptions {
  /** Reuse this data dir (kept on stop); default a fresh temp dir removed on stop. */
  data?: string;
  /** Written to DATA/config.toml before the start (when given). */
  config?: string;
  /** Extra environment (HOMED_* settings). */
  env?: Record<string, string>;
  /** Point the daemon's LLM settings at this model once it is up. */
  model?: FakeModel;
  /** The model's context window (tokens) given with `model`; default the daemon's own. */
  contextWindow?: number;
  /** External plugins to install under DATA/plugins: name → plugin.json contents. */
  plugins?: Record<string, Record<string, unknown>>;
  /** Wait for the web plugin to listen (default true). */
  web?: boolean;
  /** Run this instead of dist/homed (e.g. `bun src/main.ts` with an inspector attached). */
  bin?: string[];
}

export class BenchDaemon {
  private err = "";
  /** The web plugin's newest URL, kept apart from the tail (which may have dropped its line). */
  private web: string | null = null;
  private scanned = 0;
  private readonly waiters: { match: RegExp; resolve: () => void }[] = [];
  private clients: RpcClient[] = [];

  private constructor(
    readonly proc: Subprocess<"ignore", "ignore", "pipe">,
    readonly data: string,
    private readonly ownData: boolean,
  ) {
    void (async () => {
      const dec = new TextDecoder();
      for await (const chunk of proc.stderr) {
        this.err += dec.decode(chunk, { stream: true });
        this.scanWeb();
        this.check();
        if (this.err.length > STDERR_TAIL * 2) {
          this.scanned -= this.err.length - STDERR_TAIL;
          this.err = this.err.slice(-STDERR_TAIL);
        }
      }
    })();
  }

  static async start(opts: BenchDaemonOptions = {}): Promise<BenchDaemon> {
    const data = opts.data ?? mkdtempSync(join(tmpdir(), "homed-bench-"));
    mkdirSync(data, { recursive: true });
    if (opts.config !== undefined) writeFileSync(join(data, "config.toml"), opts.config);
    for (const [name, manifest] of Object.entries(opts.plugins ?? {})) {
      mkdirSync(join(data, "plugins", name), { recursive: true });
      writeFileSync(join(data, "plugins", name, "plugin.json"), JSON.stringify({ name, ...manifest }));
    }
    const proc = Bun.spawn([...(opts.bin ?? [HOMED]), "-data", data, "-listen", "127.0.0.1:0"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...opts.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const d = new BenchDaemon(proc, data, opts.data === undefined);
    try {
      await d.waitFor(/msg="homed ready"/, 60_000);
      if (opts.web ?? true) await d.waitFor(/msg="web listening"/, 60_000);
      if (opts.model)
        await d.request("llm.set", {
          provider: "openai",
          baseURL: opts.model.url,
          model: "bench",
          apiKey: "k",
          contextWindow: opts.contextWindow,
        });
    } catch (err) {
      await d.stop();
      throw err;
    }
    return d;
  }

  get pid(): number {
    return this.proc.pid;
  }

  get socket(): string {
    return join(this.data, "homed.sock");
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** The newest part of the daemon's stderr. */
  stderr(): string {
    return this.err;
  }

  private check(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i] as { match: RegExp; resolve: () => void };
      if (w.match.test(this.err)) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  /** Resolves when stderr matches `match`; rejects on timeout or when the daemon exits first. */
  waitFor(match: RegExp, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = setTimeout(
        () => finish(new Error(`timed out waiting for ${match} in daemon stderr:\n${this.err.slice(-4000)}`)),
        timeoutMs,
      );
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      this.waiters.push({ match, resolve: () => finish() });
      this.check();
      void this.proc.exited.then((code) =>
        finish(new Error(`daemon exited (${code}) before ${match}:\n${this.err.slice(-4000)}`)),
      );
    });
  }

  /** Note the URL of every complete "web listening" line that arrived since the last look. */
  private scanWeb(): void {
    const end = this.err.lastIndexOf("\n") + 1;
    if (end <= this.scanned) return;
    for (const m of this.err
      .slice(Math.max(0, this.scanned), end)
      .matchAll(/msg="web listening" plugin=web url=(http:\/\/\S+?)\/? /g))
      this.web = m[1] as string;
    this.scanned = end;
  }

  /** The web plugin's base URL, from the newest line it logged once listening. */
  webUrl(): string {
    if (!this.web) throw new Error("the web plugin has not said where it listens");
    return this.web;
  }

  /** What an API client sends to /v1 and /api: the login token of DATA/web-token as a bearer token. */
  bearer(): { authorization: string } {
    return { authorization: `Bearer ${readFileSync(join(this.data, "web-token"), "utf8").trim()}` };
  }

  /** A new control-socket connection (closed with the daemon). */
  async connect(opts: Parameters<typeof connectUnixRpc>[2] = {}): Promise<RpcClient> {
    const c = await connectUnixRpc(this.socket, quietRpcLog, { timeoutMs: 60_000, ...opts });
    this.clients.push(c);
    return c;
  }

  /** One request on a shared control connection. */
  async request(method: string, params?: unknown): Promise<unknown> {
    const c = this.clients.find((x) => !x.peer.isClosed) ?? (await this.connect());
    return await c.peer.request(method, params);
  }

  status(): Promise<StatusResult> {
    return this.request("status") as Promise<StatusResult>;
  }

  /** Resident memory of the daemon alone, and of each running plugin by name (MiB). */
  async rss(): Promise<{ kernel: number; plugins: Record<string, number> }> {
    const st = await this.status();
    const plugins: Record<string, number> = {};
    for (const p of st.plugins) if (p.pid) plugins[p.name] = rssMiB(p.pid);
    return { kernel: rssMiB(this.pid), plugins };
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.alive) this.proc.kill(signal);
  }

  /** SIGTERM, wait for the exit, remove a data dir this daemon created. */
  async stop(): Promise<number> {
    for (const c of this.clients) c.close();
    this.clients = [];
    this.kill("SIGTERM");
    const code = await this.proc.exited;
    if (this.ownData) rmSync(this.data, { recursive: true, force: true });
    return code;
  }
}
