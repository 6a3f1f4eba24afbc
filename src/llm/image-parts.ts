/**
 * How the images of a tool message or a person's message read on the wire, shared by both
 * providers: which ones go as image parts (those with bytes), and the text that stands in for
 * the others.
 */
import type { ChatImage, ChatMessage } from "./types.ts";

/** The messages that may carry images: a tool's result, a person's message with attachments. */
type ImageMessage = Extract<ChatMessage, { role: "tool" | "user" }>;

const carriesImages = (m: ChatMessage): m is ImageMessage =>
  (m.role === "tool" || m.role === "user") && !!m.images?.length;

/** The images of `m` this request sends. */
export function sentImages(m: ImageMessage): (ChatImage & { data: string })[] {
  return (m.images ?? []).filter((i): i is ChatImage & { data: string } => typeof i.data === "string");
}

/** The message's text with a line for each image not sent ("[image: 3f2a9c1b0d4e… omitted]"). */
export function textWithOmitted(m: ImageMessage): string {
  const omitted = (m.images ?? []).filter((i) => i.data === undefined);
  if (omitted.length === 0) return m.content;
  const notes = omitted.map((i) => `[image: ${i.sha256.slice(0, 12)}… omitted]`);
  return [m.content, ...notes].filter(Boolean).join("\n");
}

/** `data:` URL of an image sent inline (OpenAI's image_url). */
export function dataUrl(image: ChatImage & { data: string }): string {
  return `data:${image.mime};base64,${image.data}`;
}

/**
 * Message lists known to send no image: a request passes through layers that each ask (the image
 * fallback, the provider), and at 10k events its list is ~6,700 messages. A list is not changed
 * once it is a request's.
 */
const sendsNone = new WeakSet<readonly ChatMessage[]>();

/** True when any message sends an image. */
export function sendsImages(messages: readonly ChatMessage[]): boolean {
  if (sendsNone.has(messages)) return false;
  if (messages.some((m) => carriesImages(m) && sentImages(m).length > 0)) return true;
  sendsNone.add(messages);
  return false;
}

/** Tell `sendsImages` that `messages` sends none, as the one who filled in their bytes knows. */
export function sendsNoImages(messages: readonly ChatMessage[]): void {
  sendsNone.add(messages);
}

/** The same messages with every image's bytes dropped (each becomes its "omitted" line). */
export function withoutImageData(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) =>
    carriesImages(m) ? { ...m, images: (m.images ?? []).map(({ sha256, mime }) => ({ sha256, mime })) } : m,
  );
}
