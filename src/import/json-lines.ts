/**
 * JSON lines, one message per line, for histories from anywhere else (a script's output, another
 * tool's export): `{conv, role, text, time?, session?, id?}`, where `role` is "user" or
 * "assistant" — or instead `speaker`, a name: someone in a dialogue, taken as a person speaking
 * ("user" and "assistant" as a speaker mean those roles) — or "tool": a tool the assistant called,
 * `{conv, role: "tool", name, arguments?, status?, text}`, `text` being what it returned
 * (`arguments` JSON text or any JSON value; a line for each call, before the reply of its turn).
 * A message may carry the documents attached to it, `attachments: [{name?, text}]`, whose text
 * follows its words. `time` is ISO 8601 or epoch seconds or
 * milliseconds. `conv` is the conversation's id as it is (lines of one conversation need not be
 * together). `id` is the message's id in the source; without one, a hash of the conversation and
 * the line stands for it, so importing the same file again adds nothing (and the same line twice
 * is one message). Blank lines are skipped; other keys are ignored.
 */
import * as v from "valibot";
import { createHash } from "node:crypto";
import { ImportedConversation, MAX_IMPORTED_TEXT_CHARS } from "../protocol/import.ts";
import { attachedText, type ImportRecord, issuesAt, type LeftOut } from "./import-record.ts";
import { epochMs } from "./times.ts";

const Line = v.object({
  conv: v.string(),
  role: v.optional(v.picklist(["user", "assistant", "tool"], 'must be "user", "assistant" or "tool"')),
  speaker: v.optional(v.string()),
  text: v.string(),
  time: v.optional(v.nullable(v.union([v.string(), v.number()]))),
  session: v.optional(v.union([v.string(), v.number()])),
  id: v.optional(v.union([v.pipe(v.string(), v.minLength(1), v.maxLength(200)), v.number()])),
  /** Where the text came from when it is not the person's own words; `untrusted: true` says only that it is not. */
  mark: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  untrusted: v.optional(v.boolean()),
  /** A tool line's tool, its arguments and how it ended. */
  name: v.optional(v.string()),
  arguments: v.optional(v.unknown()),
  status: v.optional(v.string()),
  attachments: v.optional(v.array(v.object({ name: v.optional(v.nullable(v.string())), text: v.string() }))),
});

/** The ref of a line without an id: stable across imports of the same file. */
function lineRef(conv: string, text: string): string {
  return `line:${createHash("sha256").update(conv).update("\n").update(text).digest("hex").slice(0, 32)}`;
}

/** Read one line (1-based `line`); null for a blank one. */
export function jsonLine(text: string, line: number): ImportRecord | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed);
  } catch (err) {
    return { kind: "bad", line, reason: `not JSON (${(err as Error).message})` };
  }
  const p = v.safeParse(Line, raw);
  if (!p.success) return { kind: "bad", line, reason: issuesAt("", p.issues) };
  const l = p.output;
  let role = l.role;
  let speaker: string | undefined;
  if (role === "tool") {
    if (!l.name) return { kind: "bad", line, reason: 'name: a line of role "tool" names its tool' };
  } else if (l.speaker !== undefined && l.speaker !== "user" && l.speaker !== "assistant") {
    if (role !== "assistant") speaker = l.speaker;
  } else role ??= l.speaker as "user" | "assistant" | undefined;
  if (role === undefined && speaker === undefined) return { kind: "bad", line, reason: "role or speaker: missing" };
  let time: number | undefined;
  if (l.time != null) {
    const t = epochMs(l.time);
    if (t === null) return { kind: "bad", line, reason: `time: not a time: ${JSON.stringify(l.time)}` };
    time = t;
  }
  const attached = (l.attachments ?? []).filter((a) => a.text.trim());
  const joined = [l.text, ...attached.map((a) => attachedText(a.name, a.text))].filter((t) => t.trim()).join("\n\n");
  const said = joined.length > MAX_IMPORTED_TEXT_CHARS ? `${joined.slice(0, MAX_IMPORTED_TEXT_CHARS - 1)}…` : joined;
  // A call that returned nothing is still a call.
  const empty = role !== "tool" && !said.trim();
  const tool =
    role === "tool"
      ? {
          tool: {
            name: l.name,
            arguments:
              typeof l.arguments === "string"
                ? l.arguments
                : l.arguments === undefined
                  ? "{}"
                  : JSON.stringify(l.arguments),
            ...(l.status !== undefined ? { status: l.status } : {}),
          },
        }
      : {};
  const conv = v.safeParse(ImportedConversation, {
    conv: l.conv,
    messages: empty
      ? []
      : [
          {
            role: role ?? "user",
            ...(speaker !== undefined ? { speaker } : {}),
            ...tool,
            text: said,
            ...(time !== undefined ? { time } : {}),
            ...(l.session !== undefined ? { session: l.session } : {}),
            ref: l.id ?? lineRef(l.conv, trimmed),
            ...(l.mark !== undefined || l.untrusted
              ? { mark: `imported, from ${l.mark ?? "an untrusted source"} (line ${line})` }
              : {}),
          },
        ],
  });
  if (!conv.success) return { kind: "bad", line, reason: issuesAt("", conv.issues).replace(/^messages\.0\./, "") };
  const left: LeftOut = empty ? { empty: 1 } : {};
  return { kind: "conversation", line, conversation: conv.output, left };
}
