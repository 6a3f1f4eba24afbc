/**
 * One conversation of a ChatGPT data export (`conversations.json`, a JSON array of them). As
 * the format is publicly described: `id` (or `conversation_id`), `title` (null in some: the
 * conversation is then titled by its first words, as a chat is), `create_time` in epoch
 * seconds, and `mapping` — the messages as a tree keyed by node id, each node `{id, message,
 * parent, children}` — with `current_node` the leaf of the branch the person last saw. Editing a message or regenerating a reply starts a sibling branch; only the current
 * branch is the conversation as it was left, so it alone is read, from `current_node` up
 * through the parents, then put in order.
 *
 * A message is `{id, author: {role}, content: {content_type, parts}, create_time, weight?,
 * recipient?, metadata?}`. The person's and the assistant's messages with text are kept;
 * system and tool messages, an assistant's calls to a tool (`recipient` other than "all"),
 * hidden ones (`weight` 0, `metadata.is_visually_hidden_from_conversation`), content that is
 * not text (code, execution output, thoughts …) and empty ones are left out and counted. Of a
 * multimodal message the text parts are kept and the others (images, files) counted, and so
 * are the messages of the other branches.
 */
import * as v from "valibot";
import { ImportedConversation, type ImportedMessage, MAX_IMPORTED_TITLE_CHARS } from "../protocol/import.ts";
import { conversationTitle, firstWords, type ImportRecord, issuesAt, type LeftOut, leave } from "./import-record.ts";

/** The conversation id prefix: ChatGPT's ids stay apart from every other source's. */
export const CHATGPT_CONV_PREFIX = "chatgpt-";

const Seconds = v.optional(v.nullable(v.number()));

const Conversation = v.object({
  id: v.optional(v.nullable(v.string())),
  conversation_id: v.optional(v.nullable(v.string())),
  title: v.optional(v.nullable(v.string())),
  create_time: Seconds,
  mapping: v.record(v.string(), v.unknown()),
  current_node: v.optional(v.nullable(v.string())),
});

const Node = v.object({
  id: v.optional(v.nullable(v.string())),
  message: v.optional(v.nullable(v.unknown())),
  parent: v.optional(v.nullable(v.string())),
  children: v.optional(v.nullable(v.array(v.string()))),
});

const Message = v.object({
  id: v.optional(v.nullable(v.string())),
  author: v.object({ role: v.string() }),
  content: v.object({
    content_type: v.string(),
    parts: v.optional(v.nullable(v.array(v.unknown()))),
  }),
  create_time: Seconds,
  weight: v.optional(v.nullable(v.number())),
  recipient: v.optional(v.nullable(v.string())),
  metadata: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
});

/** Content types whose string parts are the message's text. */
const TEXT_CONTENT = new Set(["text", "multimodal_text"]);

/** The ids of the current branch, root first; a string when the tree is broken. */
function branch(mapping: Record<string, unknown>, current: string | null | undefined): string[] | string {
  const parent = (id: string): string | null | undefined => {
    const p = v.safeParse(Node, mapping[id]);
    return p.success ? p.output.parent : undefined;
  };
  let leaf: string | undefined = current ?? undefined;
  if (leaf === undefined || !(leaf in mapping)) {
    // No current node named (older exports): follow the newest child from the root down.
    leaf = Object.keys(mapping).find((id) => {
      const up = parent(id);
      return up === null || (up !== undefined && !(up in mapping));
    });
    if (leaf === undefined) return "mapping: no root node";
    const seen = new Set<string>();
    for (;;) {
      seen.add(leaf);
      const p: v.SafeParseResult<typeof Node> = v.safeParse(Node, mapping[leaf]);
      const next: string | undefined = p.success ? (p.output.children ?? []).at(-1) : undefined;
      if (next === undefined || !(next in mapping) || seen.has(next)) break;
      leaf = next;
    }
  }
  const ids: string[] = [];
  const seen = new Set<string>();
  for (let id: string | null | undefined = leaf; id != null && id in mapping; ) {
    if (seen.has(id)) return `mapping.${id}: the parents go round in a circle`;
    seen.add(id);
    ids.push(id);
    const node: v.SafeParseResult<typeof Node> = v.safeParse(Node, mapping[id]);
    if (!node.success) return issuesAt(`mapping.${id}`, node.issues);
    id = node.output.parent;
  }
  return ids.reverse();
}

/** Why a message is left out, or its text (parts that are not text counted in `left`). */
function messageText(m: v.InferOutput<typeof Message>, left: LeftOut): string | { leftOut: string } {
  const role = m.author.role;
  if (role !== "user" && role !== "assistant") return { leftOut: role || "no role" };
  if (role === "assistant" && m.recipient != null && m.recipient !== "all") return { leftOut: "tool" };
  if (m.weight === 0 || m.metadata?.is_visually_hidden_from_conversation === true) return { leftOut: "hidden" };
  if (!TEXT_CONTENT.has(m.content.content_type)) return { leftOut: `content ${m.content.content_type}` };
  const parts = m.content.parts ?? [];
  const texts = parts.filter((p): p is string => typeof p === "string");
  leave(left, "non-text parts", parts.length - texts.length);
  const text = texts.join("\n");
  return text.trim() ? text : { leftOut: "empty" };
}

/** Read one element of the array (already JSON-parsed), found at `line`. */
export function chatgptConversation(raw: unknown, line: number): ImportRecord {
  const c = v.safeParse(Conversation, raw);
  if (!c.success) return { kind: "bad", line, reason: issuesAt("", c.issues) };
  const id = c.output.id || c.output.conversation_id;
  if (!id) return { kind: "bad", line, reason: "id: missing (and no conversation_id)" };
  const ids = branch(c.output.mapping, c.output.current_node);
  if (typeof ids === "string") return { kind: "bad", line, reason: ids };
  const fallback = c.output.create_time != null ? Math.round(c.output.create_time * 1000) : undefined;
  const left: LeftOut = {};
  const messages: ImportedMessage[] = [];
  for (const nodeId of ids) {
    const node = v.parse(Node, c.output.mapping[nodeId]); // checked by branch()
    if (node.message == null) continue; // the root holds no message
    const m = v.safeParse(Message, node.message);
    if (!m.success) return { kind: "bad", line, reason: issuesAt(`mapping.${nodeId}.message`, m.issues) };
    const text = messageText(m.output, left);
    if (typeof text !== "string") {
      leave(left, text.leftOut);
      continue;
    }
    const t = m.output.create_time != null ? Math.round(m.output.create_time * 1000) : fallback;
    messages.push({
      role: m.output.author.role as "user" | "assistant",
      text,
      ref: m.output.id || nodeId,
      ...(t !== undefined ? { time: t } : {}),
    });
  }
  // Messages of the branches left behind by edits and regenerated replies: counted, not read.
  const onBranch = new Set(ids);
  let elsewhere = 0;
  for (const [id, node] of Object.entries(c.output.mapping))
    if (!onBranch.has(id) && typeof node === "object" && node !== null && (node as { message?: unknown }).message)
      elsewhere++;
  leave(left, "on other branches", elsewhere);
  const said = messages.map((m) => ({ role: m.role, words: m.text }));
  const title = conversationTitle(c.output.title, firstWords(said), MAX_IMPORTED_TITLE_CHARS);
  const conv = v.safeParse(ImportedConversation, {
    conv: `${CHATGPT_CONV_PREFIX}${id}`,
    ...(title ? { title } : {}),
    messages,
  });
  if (!conv.success) return { kind: "bad", line, reason: issuesAt("", conv.issues) };
  return { kind: "conversation", line, conversation: conv.output, left };
}
