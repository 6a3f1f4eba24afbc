/**
 * homed's own export of a conversation (the web UI's "Export JSON": `{conversation, exportedAt,
 * events}`, the transcript's events: its turns as their streams carried them; exports before that
 * held `messages`, the transcript's lines, and read the same) read back: the person's messages
 * and the replies, each with its time and its id in the source. Text that came from outside the
 * person's own words keeps its mark: a message the export says was untrusted (from an untrusted
 * source) or marked (written with such text in view) is imported marked, so a page's
 * instruction that rode in a reply does not become the person's own by a round trip. Tool calls
 * and results are left out (counted), as ChatGPT's and Claude's are; only JSON lines carry them.
 */
import * as v from "valibot";
import { MAX_MARK_CHARS } from "../protocol/agent.ts";
import { MAX_IMPORTED_TITLE_CHARS } from "../protocol/import.ts";
import { conversationTitle, firstWords, type ImportRecord, issuesAt, type LeftOut, leave } from "./import-record.ts";

/** A line of an older export: kind user, assistant, tool-call, tool-result or context. */
const Line = v.object({
  id: v.number(),
  ts: v.number(),
  kind: v.string(),
  text: v.string(),
  untrusted: v.optional(v.boolean(), false),
  mark: v.optional(v.string()),
});

/** An event of an export (TranscriptItem): only what it says is read. */
const Event = v.object({
  id: v.number(),
  ts: v.number(),
  untrusted: v.optional(v.boolean(), false),
  mark: v.optional(v.string()),
  event: v.looseObject({ type: v.string() }),
});

const Conversation = v.object({ id: v.pipe(v.string(), v.minLength(1)), title: v.optional(v.nullable(v.string())) });
const HomedExport = v.union([
  v.object({ conversation: Conversation, events: v.array(Event) }),
  v.object({ conversation: Conversation, messages: v.array(Line) }),
]);

type Item = v.InferOutput<typeof Line>;

/** An event as an older export's line: the person's message, a reply's words, or what is left out. */
function lineOf(e: v.InferOutput<typeof Event>): Item {
  const ev = e.event;
  const str = (x: unknown) => (typeof x === "string" ? x : "");
  const [kind, text] =
    ev.type === "turn-start"
      ? ["user", str(ev.text)]
      : ev.type === "text-delta"
        ? ["assistant", str(ev.text)]
        : ev.type === "done"
          ? ["assistant", str((ev.result as { text?: unknown } | undefined)?.text)]
          : ev.type === "context"
            ? ["context", ""]
            : ["tool", ""];
  return { id: e.id, ts: e.ts, kind, text, untrusted: e.untrusted, ...(e.mark ? { mark: e.mark } : {}) };
}

/** Whether the start of a file reads as homed's export (a JSON object whose first key is "conversation"). */
export function looksLikeHomedExport(head: string): boolean {
  return /^\uFEFF?\s*\{\s*"conversation"\s*:/.test(head);
}

/** The mark an exported message keeps, or undefined for the person's own words. */
function markOf(item: Item, conv: string): string | undefined {
  const where = item.mark ?? (item.untrusted ? "an untrusted source" : undefined);
  if (where === undefined) return undefined;
  const mark = `imported from homed's export of ${conv}, where it came from ${where}`;
  return mark.length > MAX_MARK_CHARS ? `${mark.slice(0, MAX_MARK_CHARS - 1)}…` : mark;
}

export function homedConversation(value: unknown, line: number): ImportRecord {
  const p = v.safeParse(HomedExport, value);
  if (!p.success) return { kind: "bad", line, reason: issuesAt("", p.issues) };
  const { conversation } = p.output;
  const messages = "events" in p.output ? p.output.events.map(lineOf) : p.output.messages;
  const left: LeftOut = {};
  const kept: { role: "user" | "assistant"; text: string; time: number; ref: string; mark?: string }[] = [];
  for (const m of messages) {
    // What memory put before the model for a turn: the new log makes its own.
    if (m.kind === "context") continue;
    if (m.kind !== "user" && m.kind !== "assistant") {
      leave(left, "tool");
      continue;
    }
    if (!m.text.trim()) {
      leave(left, "empty");
      continue;
    }
    const mark = markOf(m, conversation.id);
    kept.push({ role: m.kind, text: m.text, time: m.ts, ref: `homed:${m.id}`, ...(mark ? { mark } : {}) });
  }
  const title = conversationTitle(
    conversation.title,
    firstWords(kept.map((m) => ({ role: m.role, words: m.text }))),
    MAX_IMPORTED_TITLE_CHARS,
  );
  return {
    kind: "conversation",
    line,
    conversation: { conv: conversation.id, ...(title ? { title } : {}), messages: kept },
    left,
  };
}
