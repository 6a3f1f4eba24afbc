/**
 * One process of a plugin, from spawn to exit, as the supervisor tracks it: what the plugin has
 * said (hello, facilities, ready), why the kernel is stopping it, and its liveness pings. A new
 * process gets a new `PluginRun`, so nothing of the last one leaks into it.
 */
import type { PluginManifest } from "../../protocol/manifest.ts";
import type { PluginProcess } from "./process.ts";
import type { PluginSession } from "./rpc.ts";

/** Why the kernel itself stops a process (then its exit is not a crash). */
export type StopIntent = "shutdown" | "restart" | "idle";

/** One process of a plugin, from spawn to exit: what it has said and why it is being stopped. */
export class PluginRun implements PluginSession {
  helloDone = false;
  said = false;
  readonly ready = new Set<string>();
  stopIntent: StopIntent | null = null;
  missedPings = 0;
  /** Number of the latest ping, so a late reply to an older one is not taken for this one. */
  pingSeq = 0;

  constructor(
    readonly proc: PluginProcess,
    readonly manifest: PluginManifest,
    readonly builtin: boolean,
    /** Called when readiness may have changed (after the reply is on its way). */
    private readonly onProgress: () => void,
  ) {}

  get name(): string {
    return this.manifest.name;
  }
  get provides(): readonly string[] {
    return this.manifest.provides;
  }
  get requires(): readonly string[] {
    return this.manifest.requires;
  }
  greeted(): void {
    this.helloDone = true;
  }
  facilityReady(facility: string): void {
    this.ready.add(facility);
    queueMicrotask(this.onProgress);
  }
  saidReady(): void {
    this.said = true;
    queueMicrotask(this.onProgress);
  }
  /** hello done and every facility announced (or plugin/ready when it provides none). */
  get complete(): boolean {
    if (!this.helloDone || !this.manifest.provides.every((f) => this.ready.has(f))) return false;
    return this.manifest.provides.length > 0 || this.said;
  }
}
