/**
 * The tools built-in plugins list in their manifests (files_*, shell_*, …), which every daemon
 * offers from boot. Suites that count the tools of their own fixtures leave these out, so a new
 * built-in tool does not change what they assert.
 */
import { BUILTIN_PLUGINS } from "../../src/generated/builtin-plugins.ts";

/** Names of every built-in plugin's tools (not the kernel's own memory_search). */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set(
  BUILTIN_PLUGINS.flatMap((m) => m.tools.map((t) => t.name)),
);

/** `tools` without the built-in plugins' tools; entries are names or `{ name }` objects. */
export function withoutBuiltinTools<T extends string | { name: string }>(tools: readonly T[]): T[] {
  return tools.filter((t) => !BUILTIN_TOOL_NAMES.has(typeof t === "string" ? t : t.name));
}
