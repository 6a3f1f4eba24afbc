/** How the agent reaches plugins: injected, so the agent never depends on the supervisor. */
export interface PluginCaller {
  call(plugin: string, method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  /** A notification to a running plugin; dropped when it is not running. */
  notify?(plugin: string, method: string, params: unknown): void;
  /** True if the plugin is critical (its failures must fail closed). */
  isCritical(plugin: string): boolean;
  /** Critical plugins that are down right now. */
  failClosed(): string[];
}
