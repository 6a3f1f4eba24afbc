/**
 * Which images of the prompt go to the model with their bytes: the newest few only. An image
 * costs a model a thousand tokens or more, and what the agent looked at three screenshots ago is
 * rarely what it needs now; older ones stay in the prompt as "[image: sha… omitted]" lines
 * (src/llm/image-parts.ts), so the model knows they were there.
 */
import type { ChatMessage } from "../llm/types.ts";

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
    if (m.role !== "tool" || !m.images?.length) continue;
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
  return out;
}
