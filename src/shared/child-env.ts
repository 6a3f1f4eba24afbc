/**
 * The environment a child of the daemon starts with: plugins, MCP servers and whatever they
 * spawn. Never the daemon's whole environment — it may hold HOMED_WEB_TOKEN, cloud keys and the
 * like, and a tool that prints its environment would hand them to the model. Children get the
 * few variables a program needs to run, plus what the caller adds on purpose.
 */

/** The variables passed through from the parent, when set. */
export const BASE_CHILD_ENV = ["PATH", "HOME", "LANG", "TZ", "TMPDIR"] as const;

/** BASE_CHILD_ENV from `parent`, then `extra` on top (which may name anything, HOMED_* included). */
export function childEnvironment(
  parent: Record<string, string | undefined>,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BASE_CHILD_ENV) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * `names` taken from `parent` for a child the owner configured: what is unset is skipped, and a
 * HOMED_* name never passes (config validation refuses it; this is the second lock).
 */
export function passThrough(
  parent: Record<string, string | undefined>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = parent[name];
    if (value !== undefined && !name.startsWith("HOMED_")) out[name] = value;
  }
  return out;
}
