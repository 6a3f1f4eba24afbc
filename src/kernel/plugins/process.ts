/**
 * One running plugin process, seen from the kernel: spawns it with its channels, speaks
 * JSON-RPC on its stdin/stdout, owns its shared segment (shm transport), keeps the last lines
 * of its stderr, and reports its exit. Nothing a plugin writes can throw into the kernel: bad
 * frames become JSON-RPC errors and counters, floods are rate-limited, and log lines from it
 * are throttled.
 */
import type { Subprocess } from "bun";
import { RpcPeer, type RequestHandler } from "../../ipc/rpc-peer.ts";
import { SharedSegment } from "../../ipc/shared-memory.ts";
import { closeFd, socketPair } from "../../ipc/shim.ts";
import { planLayout, writeLayout } from "../../ipc/segment-layout.ts";
import { ShmLink } from "../../ipc/shm-link.ts";
import { ShmPluginLink, StdioPluginLink, type PluginLink } from "../../ipc/plugin-link.ts";
import { LineDecoder } from "../../ipc/line-decoder.ts";
import { RpcError } from "../../protocol/errors.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { PluginManifest } from "../../protocol/manifest.ts";
import { LOG_LEVELS, parseLogLine } from "../../protocol/logfmt.ts";
import type { Logger } from "../log.ts";

export const STDERR_TAIL_LINES = 50;
const STDERR_LINE_MAX = 2000;

export interface PluginLaunch {
  manifest: PluginManifest;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  segmentBytes: number;
  /** How long a send waits for room in a full ring or arena before failing. */
  waitTimeoutMs?: number;
  /** Inbound frames per second allowed (burst: twice that). */
  frameRate: number;
  maxFrameBytes: number;
  /** stdio transport: largest bulk payload sent inline (bytes, before base64). */
  inlineBulkLimit: number;
}

export interface PluginProcessEvents {
  onRequest: RequestHandler;
  onEvent(type: number, payload: Uint8Array): void;
  onExit(code: number | null, signal: string | null): void;
}

/** Token bucket: `rate` per second, bursts up to `2 × rate`. */
class RateLimiter {
  private tokens: number;
  private last = performance.now();
  dropped = 0;
  constructor(private readonly rate: number) {
    this.tokens = rate * 2;
  }
  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.rate * 2, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped++;
    return false;
  }
}

/** At most `max` log lines per `windowMs`; then one line saying how many were suppressed. */
function throttledLog(log: Logger, max = 20, windowMs = 10_000): Logger {
  let windowStart = 0;
  let count = 0;
  let suppressed = 0;
  const gate = (): boolean => {
    const now = Date.now();
    if (now - windowStart > windowMs) {
      if (suppressed > 0) log.warn("plugin log lines suppressed", { count: suppressed });
      windowStart = now;
      count = 0;
      suppressed = 0;
    }
    if (count++ < max) return true;
    suppressed++;
    return false;
  };
  const wrap =
    (fn: Logger["warn"]): Logger["warn"] =>
    (msg, fields) => {
      if (gate()) fn(msg, fields);
    };
  return {
    debug: wrap(log.debug),
    info: wrap(log.info),
    warn: wrap(log.warn),
    error: wrap(log.error),
    raw: (line, level) => {
      if (gate()) log.raw(line, level);
    },
    with: (f) => throttledLog(log.with(f), max, windowMs),
  };
}

export class PluginProcess {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  readonly rpc: RpcPeer;
  /** Events and bulk data to and from the plugin, whichever its transport. */
  readonly link: PluginLink;
  /** The shared-memory rings themselves (shm transport), for batching senders and figures. */
  readonly shm: ShmLink | null = null;
  private readonly segment: SharedSegment | null = null;
  readonly stderrTail: string[] = [];
  readonly startedAt = new Date();
  private readonly limiter: RateLimiter;
  private readonly plog: Logger;
  private exited = false;
  readonly exitedPromise: Promise<void>;

  constructor(
    readonly launch: PluginLaunch,
    events: PluginProcessEvents,
    log: Logger,
  ) {
    const name = launch.manifest.name;
    const plog = throttledLog(log.with({ plugin: name }));
    this.plog = plog;
    this.limiter = new RateLimiter(launch.frameRate);
    const shm = launch.manifest.transport === "shm";
    const env = { ...launch.env, HOMED_PLUGIN_NAME: name, HOMED_PLUGIN_TRANSPORT: launch.manifest.transport };
    // The segment and both ends of the doorbell socketpair are close-on-exec in the kernel (no
    // other child inherits them); the spawn dup2s the segment to this child's fd 3 and its end
    // of the doorbell to fd 4. We make the socketpair ourselves rather than ask Bun.spawn for an
    // extra "pipe": Bun closes such a pipe only when the Subprocess is garbage-collected (one fd
    // leaked per plugin start until then), and closing it ourselves would race that finalizer
    // onto a reused fd number. Ours: the kernel's end is owned by the link, closed once at exit.
    let bell: [number, number] | null = null;
    try {
      let extra: number[] = [];
      if (shm) {
        this.segment = SharedSegment.create(`homed-${name}`, launch.segmentBytes);
        // The header is in place before the child exists: reading it is the plugin's first act
        // on the segment, and a child on a busy machine can get there before the spawn returns.
        writeLayout(this.segment.buffer, planLayout(this.segment.size));
        bell = socketPair({ nonBlockingFirst: true });
        extra = [this.segment.fd, bell[1]];
      }
      this.proc = Bun.spawn(launch.command, {
        cwd: launch.cwd,
        env,
        stdio: ["pipe", "pipe", "pipe", ...extra],
        // A session of its own: the terminal's Ctrl-C and hang-up reach the kernel, which stops
        // or reloads, not the plugins, which it stops in order (a plugin outliving a killed
        // kernel sees its stdin end and exits).
        detached: true,
      }) as Subprocess<"pipe", "pipe", "pipe">;
    } catch (err) {
      this.segment?.close();
      if (bell) closeFd(bell[0]);
      throw err;
    } finally {
      // The child has its own copy (or was never born): the kernel never uses this end.
      if (bell) closeFd(bell[1]);
    }
    const stdin = this.proc.stdin;
    this.rpc = new RpcPeer({
      name,
      log: plog,
      maxFrameBytes: launch.maxFrameBytes,
      send: (line) => {
        if (this.exited) return;
        try {
          stdin.write(line);
          stdin.flush();
        } catch {
          // The pipe closed under us: the exit handler deals with the process.
        }
      },
      onRequest: (method, params, ctx) => {
        if (!this.limiter.take())
          throw new RpcError(RpcErrorCode.Application, "rate limited: too many frames", { code: "rate_limited" });
        return events.onRequest(method, params, ctx);
      },
      onNotification: (method, params) => {
        if (this.limiter.take()) this.link.takeNotification(method, params);
      },
    });
    if (this.segment && bell) {
      const layout = planLayout(this.segment.size);
      const shmLink = new ShmLink({
        buffer: this.segment.buffer,
        layout,
        role: "kernel",
        doorbellFd: bell[0],
        ownsDoorbellFd: true,
        waitTimeoutMs: launch.waitTimeoutMs,
        onEvent: (type, payload) => events.onEvent(type, payload),
        onHandlerError: (err, type) => plog.warn("event handler failed", { type, err }),
        onCorrupt: (err) => {
          plog.error("plugin corrupted its event ring; killing it", { err });
          this.kill("SIGKILL");
        },
      });
      void shmLink.run().catch((err) => plog.warn("doorbell failed", { err }));
      this.shm = shmLink;
      this.link = new ShmPluginLink(shmLink);
    } else {
      this.link = new StdioPluginLink({
        notify: (method, params) => this.rpc.notify(method, params),
        inlineBulkLimit: () => launch.inlineBulkLimit,
        onEvent: (type, payload) => events.onEvent(type, payload),
        onBadEvent: (reason) => plog.warn("bad event notification", { reason }),
      });
    }
    void this.pump(this.proc.stdout, (chunk) => this.rpc.feed(chunk));
    const lines = new LineDecoder(
      {
        line: (text) => this.stderrLine(text),
        oversized: (bytes) => this.stderrLine(`[${bytes} bytes without a newline, dropped]`),
      },
      STDERR_LINE_MAX * 4,
    );
    void this.pump(this.proc.stderr, (chunk) => lines.push(chunk));
    this.exitedPromise = this.proc.exited.then(() => {
      this.exited = true;
      this.rpc.close(`${name} exited`);
      this.link.close();
      // The child is gone, so nothing else maps its segment through us: unmap and close.
      this.segment?.close();
      events.onExit(this.proc.exitCode, this.proc.signalCode === null ? null : String(this.proc.signalCode));
    });
  }

  get pid(): number {
    return this.proc.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  get badFrames(): number {
    return this.rpc.stats.badFrames + this.rpc.stats.oversized;
  }

  kill(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    if (!this.exited) this.proc.kill(signal);
  }

  private stderrLine(text: string): void {
    const line = text.length > STDERR_LINE_MAX ? `${text.slice(0, STDERR_LINE_MAX)}…` : text;
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    // The plugin's log joins the kernel's: logfmt lines as they are, anything else wrapped.
    const parsed = parseLogLine(line);
    const level = LOG_LEVELS.find((l) => l === parsed.level);
    if (level && parsed.msg !== undefined) this.plog.raw(line, level);
    else this.plog.info(line, { stream: "stderr" });
  }

  private async pump(stream: ReadableStream<Uint8Array>, feed: (chunk: Uint8Array) => void): Promise<void> {
    try {
      for await (const chunk of stream) feed(chunk);
    } catch {
      // A broken pipe ends with the process; its exit is reported by `exited`.
    }
  }
}
