/**
 * A conversation's transcript (GET /api/conversations/:id) as a test reads it: each stored event
 * of its turns with the words it carries — the person's message on its turn-start, a reply's on
 * its done (or text-delta before a tool call), a tool's arguments and result.
 */
import type { TranscriptItem } from "../../src/protocol/channel.ts";

export interface Said {
  id: number;
  ts: number;
  type: string;
  text: string;
  untrusted: boolean;
  event: Record<string, unknown>;
}

function wordsOf(e: Record<string, unknown>): string {
  const str = (x: unknown) => (typeof x === "string" ? x : "");
  switch (e.type) {
    case "turn-start":
    case "text-delta":
      return str(e.text);
    case "done":
      return str((e.result as { text?: unknown }).text);
    case "tool-call":
      return str(e.arguments);
    case "tool-result":
      return str(e.content);
    default:
      return "";
  }
}

export function saidIn(items: readonly TranscriptItem[]): Said[] {
  return items.map((it) => ({
    id: it.id,
    ts: it.ts,
    type: it.event.type,
    text: wordsOf(it.event),
    untrusted: it.untrusted,
    event: it.event,
  }));
}

/** The transcript of `conv` from the web listener at `url`. */
export async function transcriptAt(url: string, conv: string, headers: Record<string, string> = {}): Promise<Said[]> {
  const res = await fetch(`${url.replace(/\/$/, "")}/api/conversations/${encodeURIComponent(conv)}`, { headers });
  if (!res.ok) throw new Error(`GET transcript of ${conv}: ${res.status} ${await res.text()}`);
  return saidIn((await res.json()) as TranscriptItem[]);
}
