/** What memory indexes of an event: its text, by kind. */

/** The text of an event that memory indexes, by kind; null for events with none. */
export function eventText(kind: string, body: string): string | null {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
  const s = (x: unknown) => (typeof x === "string" ? x : "");
  switch (kind) {
    case "user-message":
      return s(b.text) || null;
    case "agent-reply":
      // A reply the model wrote is indexed as its model-output; only other replies stand alone.
      return b.fromModel === true ? null : s(b.text) || null;
    case "recall-turn":
      return [s(b.text), s(b.caption)].filter(Boolean).join("\n") || null;
    case "model-output":
      return s(b.text) || null;
    case "tool-result":
      return `${s(b.name)}\n${s(b.content).slice(0, 20_000)}`;
    default:
      return typeof b.text === "string" ? b.text : null;
  }
}
