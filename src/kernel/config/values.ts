/**
 * Reading a configuration by dotted path, with nothing else imported: the plugin catalog and
 * the config sections both need it, and the catalog is below the sections.
 */

/** The value at a dotted path of a configuration (undefined if absent). */
export function valueAt(config: unknown, path: string): unknown {
  let cur: unknown = config;
  for (const key of path.split("."))
    cur = typeof cur === "object" && cur !== null ? (cur as Record<string, unknown>)[key] : undefined;
  return cur;
}

/**
 * Whether a setting a plugin is `enabled_by` says "nothing to do": absent, false, empty text or
 * an empty list (no MCP servers: no mcp plugin).
 */
export function isEmptySetting(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === false ||
    value === "" ||
    (Array.isArray(value) && value.length === 0)
  );
}
