/** What the supervisor is given: the plugins to run and the kernel's side of their channels. */
import type { HelloResult } from "../../protocol/plugin.ts";
import type { PluginManifest } from "../../protocol/manifest.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";

/** Where an external plugin runs (src/kernel/plugins/sandbox.ts). */
export interface PluginRoom {
  /** "bwrap": confined; "none": unconfined, as the owner set in [plugins] sandbox. */
  sandbox: "bwrap" | "none";
  /** Whether it can reach the network (always, unconfined). */
  network: boolean;
  /** Its private folder: its hello's dataDir, and its HOME in the sandbox. */
  stateDir: string;
}

export interface PluginSpec {
  manifest: PluginManifest;
  builtin: boolean;
  command: string[];
  cwd: string;
  /** Variables this plugin's process gets on top of the children's minimal environment. */
  env?: Record<string, string>;
  /** Set when the plugin cannot run at all (bad manifest, missing executable). */
  problem?: string;
  /** Set when configuration turns the plugin off; it is listed as disabled with this reason. */
  disabled?: string;
  /** External plugins: the room they run in. */
  room?: PluginRoom;
}

export interface SupervisorOptions {
  specs: PluginSpec[];
  kernelFacilities: readonly string[];
  clock: Clock;
  log: Logger;
  /** What the plugin's hello is answered (its dataDir differs for external plugins). */
  hello: (spec: PluginSpec) => HelloResult;
  /** Kernel methods plugins may call beyond the supervisor's own (e.g. kernel/status). */
  kernelMethods: Record<string, (params: unknown, plugin: string) => unknown>;
  onEvent?: (plugin: string, type: number, payload: Uint8Array) => void;
  /** A plugin process ended (any reason): what it registered with the kernel must go. */
  onPluginExit?: (plugin: string) => void;
  env: Record<string, string>;
  segmentBytes: number;
  /** How long a send to a plugin waits for room in its ring or arena (default 10 s). */
  bulkWaitMs?: number;
  frameRate: number;
  maxFrameBytes: number;
  inlineBulkLimit: number;
  startTimeoutMs: number;
  pingIntervalMs: number;
  /** Consecutive missed pings before a plugin is declared hung and killed. */
  pingMisses?: number;
  /** A lazy plugin unused this long is stopped (it starts again on next use). 0: never. */
  idleStopMs?: number;
  /** Lazy plugins that last said they must keep running: started at boot like eager ones. */
  keepRunning?: readonly string[];
  /** A plugin said it must keep running, or no longer (for the kernel to remember across restarts). */
  onKeepRunning?: (plugin: string, on: boolean) => void;
}
