/**
 * One conversation of a Claude data export (`conversations.json`, a JSON array of them). As the
 * format is publicly described: `uuid`, `name` (the title; often "": the conversation is then
 * titled by its first words, as a chat is), `created_at` (ISO 8601) and `chat_messages` in the
 * order they were said, each `{uuid, sender: "human" | "assistant", text, content?,
 * attachments?, files?, created_at}`.
 *
 * A message's words may be in any of three places, and a reader that looks in one loses the
 * person's turns: `content`, the message as blocks (`{type: "text", text}`, and others for tool
 * use, tool results, thinking, images) — its text blocks are the words when they say anything,
 * else `text` is (it is "" in some exports where the blocks hold the words, and the words in
 * others where the blocks are only an image); and `attachments`, files the person attached or
 * long text they pasted, each `{file_name, file_type, file_size, extracted_content}`, whose
 * extracted text follows the words as a chat message's attachment does (often the whole of what
 * the person said: a paste leaves `text` empty). Other blocks, `files` (names only) and
 * attachments with nothing extracted are counted as left out.
 */
import * as v from "valibot";
import {
  ImportedConversation,
  type ImportedMessage,
  MAX_IMPORTED_TEXT_CHARS,
  MAX_IMPORTED_TITLE_CHARS,
} from "../protocol/import.ts";
import {
  attachedText,
  conversationTitle,
  firstWords,
  type ImportRecord,
  issuesAt,
  type LeftOut,
  leave,
} from "./import-record.ts";
import { epochMs } from "./times.ts";

/** The conversation id prefix: Claude's ids stay apart from every other source's. */
export const CLAUDE_CONV_PREFIX = "claude-";

const Block = v.object({ type: v.string(), text: v.optional(v.nullable(v.string())) });

const Attachment = v.object({
  file_name: v.optional(v.nullable(v.string())),
  extracted_content: v.optional(v.nullable(v.string())),
});

const ChatMessage = v.object({
  uuid: v.pipe(v.string(), v.minLength(1)),
  sender: v.string(),
  text: v.optional(v.nullable(v.string())),
  content: v.optional(v.nullable(v.array(Block))),
  attachments: v.optional(v.nullable(v.array(Attachment))),
  files: v.optional(v.nullable(v.array(v.unknown()))),
  created_at: v.optional(v.nullable(v.string())),
});

const Conversation = v.object({
  uuid: v.pipe(v.string(), v.minLength(1)),
  name: v.optional(v.nullable(v.string())),
  created_at: v.optional(v.nullable(v.string())),
  chat_messages: v.array(ChatMessage),
});

const ROLE_OF: Record<string, "user" | "assistant"> = { human: "user", assistant: "assistant" };

const hasWords = (s: string) => s.trim() !== "";

/** An attachment's text as it follows the message's words. */
const attachmentText = (a: v.InferOutput<typeof Attachment>) => attachedText(a.file_name, a.extracted_content ?? "");

/**
 * A message's text: its words (text blocks, else `text`), then each attachment's extracted text,
 * the whole cut to MAX_IMPORTED_TEXT_CHARS (a long PDF must not make its conversation bad); and
 * what it says first, for a title (its words, else its first attachment's text). What holds no
 * text is counted in `left`.
 */
function messageText(m: v.InferOutput<typeof ChatMessage>, left: LeftOut): { text: string; words: string } {
  const blocks = m.content ?? [];
  const texts = blocks.filter((b) => b.type === "text").map((b) => b.text ?? "");
  leave(left, "non-text parts", blocks.length - texts.length);
  const fromBlocks = texts.filter(hasWords).join("\n\n");
  const words = hasWords(fromBlocks) ? fromBlocks : (m.text ?? "");
  const attached = (m.attachments ?? []).filter((a) => hasWords(a.extracted_content ?? ""));
  leave(left, "non-text parts", (m.attachments ?? []).length - attached.length + (m.files ?? []).length);
  const text = [words, ...attached.map(attachmentText)].filter(hasWords).join("\n\n");
  return {
    text: text.length > MAX_IMPORTED_TEXT_CHARS ? `${text.slice(0, MAX_IMPORTED_TEXT_CHARS - 1)}…` : text,
    words: hasWords(words) ? words : (attached[0]?.extracted_content ?? ""),
  };
}

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
  const said: { role: string; words: string }[] = [];
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
    const { text, words } = messageText(m, left);
    if (!hasWords(text)) {
      leave(left, "empty");
      continue;
    }
    messages.push({ role, text, ref: m.uuid, ...(time !== undefined ? { time } : {}) });
    said.push({ role, words });
  }
  const title = conversationTitle(c.output.name, firstWords(said), MAX_IMPORTED_TITLE_CHARS);
  const conv = v.safeParse(ImportedConversation, {
    conv: `${CLAUDE_CONV_PREFIX}${c.output.uuid}`,
    ...(title ? { title } : {}),
    messages,
  });
  if (!conv.success) return { kind: "bad", line, reason: issuesAt("", conv.issues) };
  return { kind: "conversation", line, conversation: conv.output, left };
}
