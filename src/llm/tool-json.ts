/**
 * The tools a request offers, as JSON. Every model call offers the same few dozen tools, each
 * with its JSON Schema; writing them anew took ~0.2 ms a call at 10k events (docs/BENCHMARKS.md,
 * the turn-overhead entries), about as much as the whole request's messages once those are reused. A tool's JSON
 * is kept by its schema object (one per registered tool, the same object every call) and used
 * again while its name and description are unchanged.
 */
import type { ToolSpec } from "./types.ts";

export class ToolJson {
  private readonly kept = new WeakMap<object, { name: string; description: string; json: string }>();

  /** @param wire a tool as the provider's wire writes it */
  constructor(private readonly wire: (t: ToolSpec) => unknown) {}

  /** `tools` as a JSON array. */
  array(tools: readonly ToolSpec[]): string {
    const parts: string[] = [];
    for (const t of tools) {
      const k = this.kept.get(t.parameters);
      if (k && k.name === t.name && k.description === t.description) {
        parts.push(k.json);
        continue;
      }
      const json = JSON.stringify(this.wire(t));
      this.kept.set(t.parameters, { name: t.name, description: t.description, json });
      parts.push(json);
    }
    return `[${parts.join(",")}]`;
  }

  /**
   * The start of a request body: `body`'s JSON, then `tools` (when there are any), then the key
   * of the messages array, open for its first message.
   */
  head(body: Record<string, unknown>, tools: readonly ToolSpec[] | undefined): string {
    let json = JSON.stringify(body).slice(0, -1);
    const key = (k: string) => `${json === "{" ? "" : ","}"${k}":`;
    if (tools && tools.length > 0) json += key("tools") + this.array(tools);
    return `${json + key("messages")}[`;
  }
}
