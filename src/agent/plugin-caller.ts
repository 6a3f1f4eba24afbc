/** How the agent reaches plugins: injected, so the agent never depends on the supervisor. */
export interface PluginCaller {
  call(plugin: string, method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  /** A notification to a running plugin; dropped when it is not running. */
  notify?(plugin: string, method: string, params: unknown): void;
  /**
   * Bytes a running plugin handed over as bulk (a tool's images), copied out; the plugin's
   * block is released either way. Throws when the reference is not a live block of its.
   */
  takeBulk?(plugin: string, ref: unknown): Uint8Array;
  /** Release a plugin's bulk block unread (an answer nobody waits for any more). */
  releaseBulk?(plugin: string, ref: unknown): void;
  /** True if the plugin is critical (its failures must fail closed). */
  isCritical(plugin: string): boolean;
  /**
   * True if the plugin is built in: it speaks this kernel's newest tool/run (the call's `mark`);
   * an external plugin built with an older SDK would refuse the field.
   */
  isBuiltin?(plugin: string): boolean;
  /** Critical plugins that are down right now. */
  failClosed(): string[];
}
