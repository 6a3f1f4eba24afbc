/**
 * Which images of the prompt (tools' and the person's attachments) go to the model with their bytes: the newest few only. An image
 * costs a model a thousand tokens or more, and what the agent looked at three screenshots ago is
 * rarely what it needs now; older ones stay in the prompt as "[image: sha… omitted]" lines
 * (src/llm/image-parts.ts), so the model knows they were there.
 */
import { sendsNoImages } from "../llm/image-parts.ts";
import type { ChatMessage } from "../llm/types.ts";
import { type Attachment, userMessageText } from "../protocol/attachments.ts";

/** Images sent with their bytes in one request, newest first. */
export const IMAGES_PER_REQUEST = 3;

/** Reads a stored block; null when it is gone. */
export type BlockReader = (sha256: string) => Uint8Array | null;

/** `messages` with the bytes (base64) of the newest `keep` readable images filled in. */
export function withImageData(
  messages: readonly ChatMessage[],
  read: BlockReader | undefined,
  keep = IMAGES_PER_REQUEST,
): ChatMessage[] {
  const out = [...messages];
  let left = read ? keep : 0;
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i] as ChatMessage;
    // A tool's images (a screenshot) and a person's (an attached photo) alike.
    if ((m.role !== "tool" && m.role !== "user") || !m.images?.length) continue;
    // Nothing to add or take away: the message stays the same object (a provider reuses the
    // bytes it wrote for it last time, src/llm/message-bytes.ts).
    if (left === 0 && m.images.every((i) => i.data === undefined)) continue;
    const images = [...m.images];
    for (let j = images.length - 1; j >= 0; j--) {
      const img = images[j] as (typeof images)[number];
      const bytes = left > 0 && read ? read(img.sha256) : null;
      images[j] = bytes
        ? { sha256: img.sha256, mime: img.mime, data: Buffer.from(bytes).toString("base64") }
        : { sha256: img.sha256, mime: img.mime };
      if (bytes) left--;
    }
    out[i] = { ...m, images };
  }
  // Every image with bytes is one read here: the layers a request passes need not look again.
  if (left === (read ? keep : 0)) sendsNoImages(out);
  return out;
}

/** The person's message as the model reads it: words and attachments' text, images as images. */
function userInput(text: string, attachments: readonly Attachment[] | undefined): ChatMessage {
  const images = (attachments ?? []).filter((a) => a.kind === "image").map(({ sha256, mime }) => ({ sha256, mime }));
  const content = userMessageText(text, attachments);
  return images.length ? { role: "user", content, images } : { role: "user", content };
}

/** The new input as the model reads it: the person's message, or the results of a client's tools. */
export function inputMessages(
  text: string,
  input: { attachments?: readonly Attachment[]; toolResults?: { callId: string; name: string; content: string }[] },
): ChatMessage[] {
  if (text || input.attachments?.length) return [userInput(text, input.attachments)];
  return (input.toolResults ?? []).map((r) => ({
    role: "tool",
    toolCallId: r.callId,
    name: r.name,
    content: r.content,
  }));
}

/** What memory searches for: the words, else what the attachments say, else the last thing the person said. */
export function inputQuery(
  text: string,
  attachments: readonly Attachment[] | undefined,
  given: readonly ChatMessage[] | null,
): string {
  const attached = userMessageText("", attachments).slice(0, 2000);
  return text || attached || [...(given ?? [])].reverse().find((m) => m.role === "user")?.content || "";
}
