/**
 * The OpenAI chat-completions request as homed reads it: the body's schema (what Open WebUI,
 * LibreChat and the official clients send; fields homed does not use, like `temperature`, are
 * accepted and ignored) and its split into the conversation so far and the new input — the last
 * user message, or the results of the client's tools the model called last time.
 */
import * as v from "valibot";
import type { ClientMessage } from "../../src/protocol/channel.ts";

/** An id that names a conversation (header or `user`): what the log and the UI can show. */
export const CONVERSATION_NAME = /^[A-Za-z0-9._:@-]{1,100}$/;

const TextPart = v.looseObject({ type: v.literal("text"), text: v.string() });
/** An image part: `image_url` as `{url}` (the documented form) or a bare string (some clients). */
const ImagePart = v.looseObject({
  type: v.literal("image_url"),
  image_url: v.union([v.looseObject({ url: v.string() }), v.string()]),
});
const Content = v.nullish(
  v.union(
    [v.string(), v.array(v.looseObject({ type: v.string(), text: v.optional(v.string()) }))],
    "content must be a string or an array of content parts",
  ),
);
const ToolCallIn = v.looseObject({
  id: v.pipe(v.string(), v.minLength(1)),
  type: v.optional(v.literal("function")),
  function: v.looseObject({ name: v.string(), arguments: v.optional(v.string(), "") }),
});
const MessageIn = v.looseObject({
  role: v.picklist(
    ["system", "developer", "user", "assistant", "tool"],
    "role must be system, developer, user, assistant or tool",
  ),
  content: Content,
  tool_calls: v.nullish(v.array(ToolCallIn)),
  tool_call_id: v.optional(v.string()),
});
const ToolIn = v.looseObject({
  type: v.literal("function", 'only tools of type "function" are supported'),
  function: v.looseObject({
    name: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1-64 letters, digits, _ or -")),
    description: v.optional(v.string(), ""),
    parameters: v.optional(v.record(v.string(), v.unknown())),
  }),
});

export const CompletionBody = v.looseObject({
  model: v.optional(v.pipe(v.string(), v.maxLength(200)), "homed"),
  messages: v.pipe(v.array(MessageIn), v.minLength(1, "messages is empty")),
  stream: v.nullish(v.boolean(), false),
  stream_options: v.nullish(v.looseObject({ include_usage: v.optional(v.boolean()) })),
  /** Any string a client uses for its user (OpenAI takes any); conversationName() makes it a name. */
  user: v.optional(v.pipe(v.string(), v.maxLength(256, "user is longer than 256 characters"))),
  tools: v.nullish(v.pipe(v.array(ToolIn), v.maxLength(500))),
});
export type CompletionBody = v.InferOutput<typeof CompletionBody>;
type MessageIn = v.InferOutput<typeof MessageIn>;

/**
 * The conversation name for a request's `user`: itself when it is a plain name, else a stable
 * digest of it (an e-mail with "+", a display name with spaces must not make a client's request
 * fail), or null when it is empty.
 */
export function conversationName(user: string | undefined): string | null {
  if (!user) return null;
  if (CONVERSATION_NAME.test(user)) return user;
  return `user-${new Bun.CryptoHasher("sha256").update(user).digest("hex").slice(0, 16)}`;
}

/** A request homed cannot take, with the sentence for the client (an HTTP 400). */
export class BadCompletionRequest extends Error {}

/** A message's text; image parts are allowed only where `images` collects them (user messages). */
function textOf(m: MessageIn, images?: string[]): string {
  if (m.content == null) return "";
  if (typeof m.content === "string") return m.content;
  return m.content
    .map((p) => {
      if (images && v.is(ImagePart, p)) {
        images.push(typeof p.image_url === "string" ? p.image_url : p.image_url.url);
        return "";
      }
      if (!v.is(TextPart, p))
        throw new BadCompletionRequest(
          `content parts of type "${p.type}" are not supported${images ? "" : ` in ${m.role} messages`}`,
        );
      return p.text;
    })
    .join("");
}

export interface SplitRequest {
  history: ClientMessage[];
  /** The image URLs of user messages in `history`, by index (stored as blocks before the turn). */
  historyImages: Map<number, string[]>;
  /** The new user message ("" when the new input is tool results). */
  text: string;
  /** The new user message's image URLs (they become its attachments). */
  images: string[];
  toolResults: { callId: string; name: string; content: string }[];
}

/**
 * The conversation before the new input, and the new input: a trailing user message, or the
 * trailing tool results (each answering a call an earlier assistant message made).
 */
export function splitMessages(messages: readonly MessageIn[]): SplitRequest {
  const calls = new Map<string, string>();
  const history: ClientMessage[] = [];
  const historyImages = new Map<number, string[]>();
  for (const m of messages) {
    if (m.role === "system" || m.role === "developer") history.push({ role: "system", content: textOf(m) });
    else if (m.role === "user") {
      const images: string[] = [];
      history.push({ role: "user", content: textOf(m, images) });
      if (images.length) historyImages.set(history.length - 1, images);
    } else if (m.role === "assistant") {
      const toolCalls = (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      }));
      for (const c of toolCalls) calls.set(c.id, c.name);
      history.push(
        toolCalls.length
          ? { role: "assistant", content: textOf(m), toolCalls }
          : { role: "assistant", content: textOf(m) },
      );
    } else {
      const id = m.tool_call_id ?? "";
      const name = calls.get(id);
      if (name === undefined)
        throw new BadCompletionRequest(
          `a tool message answers tool_call_id "${id}", which no earlier assistant message called`,
        );
      history.push({ role: "tool", toolCallId: id, name, content: textOf(m) });
    }
  }
  const last = history.at(-1);
  if (last?.role === "user") {
    const images = historyImages.get(history.length - 1) ?? [];
    historyImages.delete(history.length - 1);
    if (!last.content.trim() && !images.length) throw new BadCompletionRequest("the last user message is empty");
    return { history: history.slice(0, -1), historyImages, text: last.content, images, toolResults: [] };
  }
  let start = history.length;
  while (start > 0 && history[start - 1]?.role === "tool") start--;
  if (start === history.length)
    throw new BadCompletionRequest("the last message must be the user's, or tool results for the last tool calls");
  const toolResults = history
    .slice(start)
    .map((m) => (m.role === "tool" ? { callId: m.toolCallId, name: m.name, content: m.content } : null))
    .filter((r) => r !== null);
  return { history: history.slice(0, start), historyImages, text: "", images: [], toolResults };
}

/** The request's function tools as homed offers them to the model. */
export function clientToolsOf(body: CompletionBody) {
  return (body.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    parameters: t.function.parameters ?? { type: "object", properties: {} },
  }));
}
