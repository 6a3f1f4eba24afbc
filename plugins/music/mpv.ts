/**
 * mpv driven over its JSON IPC (--input-ipc-server): one mpv process per plugin, idle between
 * tracks, started on the first play and quit on stop. Requests carry a request_id and wait for
 * the matching reply; events (end-file, playback-restart) are kept for the player to wait on.
 * mpv gets a small environment (no secrets): what it needs to find the sound server.
 */
import { existsSync, unlinkSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { childEnvironment, passThrough } from "../../src/shared/child-env.ts";

export class MpvError extends Error {}

export interface MpvEvent {
  event: string;
  reason?: string;
  file_error?: string;
  /** property-change: the observed property's name and value. */
  name?: string;
  data?: unknown;
}

/** What mpv needs beyond a child's base environment to reach the sound server, when set. */
const AUDIO_ENV = ["XDG_RUNTIME_DIR", "PULSE_SERVER", "PIPEWIRE_RUNTIME_DIR"];

export class Mpv {
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  private sock: Socket | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { ok(v: unknown): void; fail(e: Error): void }>();
  private readonly listeners = new Set<(e: MpvEvent) => void>();
  /** The end of mpv's stderr (why it could not open audio, say). */
  stderr = "";

  constructor(
    private readonly binary: string,
    private readonly socketPath: string,
    private readonly audioOutput: string,
  ) {}

  get running(): boolean {
    return this.proc !== null && this.proc.exitCode === null && this.sock !== null;
  }

  async start(): Promise<void> {
    if (this.running) return;
    if (!existsSync(this.binary))
      throw new MpvError(
        `mpv is not installed at ${this.binary} ([tools.music] mpv); install it (Debian: apt install mpv) to play music`,
      );
    if (existsSync(this.socketPath)) unlinkSync(this.socketPath);
    const env = childEnvironment(process.env, passThrough(process.env, AUDIO_ENV));
    const args = [
      this.binary,
      "--no-config",
      "--idle=yes",
      "--no-video",
      "--no-terminal",
      "--msg-level=all=warn",
      `--input-ipc-server=${this.socketPath}`,
      ...(this.audioOutput ? [`--ao=${this.audioOutput}`] : []),
    ];
    this.stderr = "";
    const proc = Bun.spawn(args, { env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    this.proc = proc;
    // mpv gone on its own (not by quit): its listeners hear an "exited" event.
    void proc.exited.then(() => {
      if (this.proc !== proc) return;
      this.proc = null;
      this.sock?.destroy();
      this.sock = null;
      for (const l of this.listeners) l({ event: "exited" });
    });
    void (async () => {
      const dec = new TextDecoder();
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>)
        this.stderr = (this.stderr + dec.decode(chunk)).slice(-4000);
    })().catch(() => {});
    const until = Date.now() + 5000;
    while (!existsSync(this.socketPath)) {
      if (proc.exitCode !== null)
        throw new MpvError(`mpv exited at start (status ${proc.exitCode}): ${this.stderr.trim().slice(-500)}`);
      if (Date.now() > until) {
        proc.kill();
        throw new MpvError("mpv did not open its IPC socket within 5 s");
      }
      await Bun.sleep(20);
    }
    await this.connect();
  }

  private connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const sock = createConnection(this.socketPath);
      let buf = "";
      sock.setEncoding("utf8");
      sock.once("connect", () => {
        this.sock = sock;
        resolve();
      });
      sock.once("error", (err) => reject(new MpvError(`cannot talk to mpv: ${err.message}`)));
      sock.on("data", (chunk: string) => {
        buf += chunk;
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          this.onLine(line);
        }
      });
      sock.on("close", () => {
        this.sock = null;
        for (const w of this.waiting.values()) w.fail(new MpvError("mpv went away"));
        this.waiting.clear();
      });
    });
  }

  private onLine(line: string): void {
    let msg: { request_id?: number; error?: string; data?: unknown; event?: string };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.event) {
      for (const l of this.listeners) l(msg as MpvEvent);
      return;
    }
    const w = msg.request_id === undefined ? undefined : this.waiting.get(msg.request_id);
    if (!w) return;
    this.waiting.delete(msg.request_id as number);
    if (msg.error === "success") w.ok(msg.data);
    else w.fail(new MpvError(msg.error ?? "mpv error"));
  }

  command(...args: unknown[]): Promise<unknown> {
    const sock = this.sock;
    if (!sock) return Promise.reject(new MpvError("mpv is not running"));
    const id = this.nextId++;
    return new Promise((ok, fail) => {
      this.waiting.set(id, { ok, fail });
      sock.write(`${JSON.stringify({ command: args, request_id: id })}\n`);
      setTimeout(() => {
        if (this.waiting.delete(id)) fail(new MpvError(`mpv did not answer ${String(args[0])}`));
      }, 3000);
    });
  }

  /** A property's value, or null when mpv has none now (no file loaded). */
  async get(name: string): Promise<unknown> {
    try {
      return await this.command("get_property", name);
    } catch (err) {
      if (err instanceof MpvError && err.message === "property unavailable") return null;
      throw err;
    }
  }

  /** Every event from now on (mpv's, and "exited" when it ends on its own). */
  onEvent(l: (e: MpvEvent) => void): void {
    this.listeners.add(l);
  }

  /** The next event `pick` accepts, within `ms`; null on timeout. */
  waitFor(pick: (e: MpvEvent) => boolean, ms: number): Promise<MpvEvent | null> {
    return new Promise((resolve) => {
      const l = (e: MpvEvent) => {
        if (!pick(e)) return;
        this.listeners.delete(l);
        clearTimeout(timer);
        resolve(e);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(l);
        resolve(null);
      }, ms);
      this.listeners.add(l);
    });
  }

  async quit(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    if (!proc) return;
    await this.command("quit").catch(() => {});
    const t = setTimeout(() => proc.kill("SIGKILL"), 2000);
    await proc.exited;
    clearTimeout(t);
    this.sock?.destroy();
    this.sock = null;
    if (existsSync(this.socketPath)) unlinkSync(this.socketPath);
  }
}
