/**
 * One conversation of a Claude data export (`conversations.json`, a JSON array of them). As the
 * format is publicly described: `uuid`, `name` (the title), `created_at` (ISO 8601) and
 * `chat_messages` in the order they were said, each `{uuid, sender: "human" | "assistant",
 * text, content?, created_at}`. `content` is the message as blocks (`{type: "text", text}`,
 * and others for tool use, tool results, thinking, images); when it is there, its text blocks
 * are the message's text and the other blocks are counted as left out, else `text` is.
 */
import * as v from "valibot";
import { ImportedConversation, type ImportedMessage, MAX_IMPORTED_TITLE_CHARS } from "../protocol/import.ts";
import { type ImportRecord, issuesAt, type LeftOut, leave, titleOf } from "./import-record.ts";
import { epochMs } from "./times.ts";

/** The conversation id prefix: Claude's ids stay apart from every other source's. */
export const CLAUDE_CONV_PREFIX = "claude-";

const Block = v.object({ type: v.string(), text: v.optional(v.nullable(v.string())) });

const ChatMessage = v.object({
  uuid: v.pipe(v.string(), v.minLength(1)),
  sender: v.string(),
  text: v.optional(v.nullable(v.string())),
  content: v.optional(v.nullable(v.array(Block))),
  created_at: v.optional(v.nullable(v.string())),
});

const Conversation = v.object({
  uuid: v.pipe(v.string(), v.minLength(1)),
  name: v.optional(v.nullable(v.string())),
  created_at: v.optional(v.nullable(v.string())),
  chat_messages: v.array(ChatMessage),
});

const ROLE_OF: Record<string, "user" | "assistant"> = { human: "user", assistant: "assistant" };

/** Read one element of the array (already JSON-parsed), found at `line`. */
export function claudeConversation(raw: unknown, line: number): ImportRecord {
  const c = v.safeParse(Conversation, raw);
  if (!c.success) return { kind: "bad", line, reason: issuesAt("", c.issues) };
  let fallback: number | undefined;
  if (c.output.created_at != null) {
    const t = epochMs(c.output.created_at);
    if (t === null)
      return { kind: "bad", line, reason: `created_at: not a time: ${JSON.stringify(c.output.created_at)}` };
    fallback = t;
  }
  const left: LeftOut = {};
  const messages: ImportedMessage[] = [];
  for (const [i, m] of c.output.chat_messages.entries()) {
    let time = fallback;
    if (m.created_at != null) {
      const t = epochMs(m.created_at);
      if (t === null)
        return {
          kind: "bad",
          line,
          reason: `chat_messages.${i}.created_at: not a time: ${JSON.stringify(m.created_at)}`,
        };
      time = t;
    }
    const role = ROLE_OF[m.sender];
    if (!role) {
      leave(left, m.sender || "no sender");
      continue;
    }
    let text = m.text ?? "";
    if (m.content && m.content.length > 0) {
      const texts = m.content.filter((b) => b.type === "text").map((b) => b.text ?? "");
      leave(left, "non-text parts", m.content.length - texts.length);
      text = texts.join("\n\n");
    }
    if (!text.trim()) {
      leave(left, "empty");
      continue;
    }
    messages.push({ role, text, ref: m.uuid, ...(time !== undefined ? { time } : {}) });
  }
  const title = titleOf(c.output.name, MAX_IMPORTED_TITLE_CHARS);
  const conv = v.safeParse(ImportedConversation, {
    conv: `${CLAUDE_CONV_PREFIX}${c.output.uuid}`,
    ...(title ? { title } : {}),
    messages,
  });
  if (!conv.success) return { kind: "bad", line, reason: issuesAt("", conv.issues) };
  return { kind: "conversation", line, conversation: conv.output, left };
}
