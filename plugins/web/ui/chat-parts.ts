/**
 * The pieces the chat pane is built of: message bubbles with copy, tool cards (arguments,
 * result, images, approval buttons), usage lines, and copying to the clipboard.
 */
import { clear, h } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";
import { attachmentList, type AttachmentView } from "./attach.ts";
import type { StoredImage } from "../../../src/protocol/images.ts";
import type { TokenUsage } from "../../../src/protocol/usage.ts";

/** An image a tool returned, stored by the kernel as a block: what the page needs of it. */
export type ToolImageRef = Pick<StoredImage, "sha256" | "mime">;

/** The images of a tool result, each a link to its full size. */
export function toolImages(images: readonly ToolImageRef[]): HTMLElement | null {
  if (images.length === 0) return null;
  return h(
    "div",
    { class: "tool-images" },
    ...images.map((i) => {
      const src = `/api/blocks/${encodeURIComponent(i.sha256)}`;
      return h(
        "a",
        { href: src, target: "_blank", rel: "noopener" },
        h("img", { class: "tool-image", src, alt: `image from the tool (${i.mime})`, loading: "lazy" }),
      );
    }),
  );
}

/** Put `text` on the clipboard; falls back to a selection copy where the Clipboard API is refused. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h("textarea", { class: "copy-buffer" });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

/** A button that copies what `text()` returns and says so for a moment. */
export function copyButton(text: () => string, cls = "msg-copy"): HTMLButtonElement {
  const b: HTMLButtonElement = h("button", { type: "button", class: `small ghost ${cls}`, title: "Copy" }, "Copy");
  b.addEventListener("click", () => {
    void copyText(text()).then(() => flash(b));
  });
  return b;
}

export function flash(b: HTMLElement): void {
  b.textContent = "Copied";
  setTimeout(() => {
    b.textContent = "Copy";
  }, 1200);
}

/** A turn's tokens as the other channels word them (src/protocol/usage.ts tokenWords), cached input included. */
export const usageText = (u: TokenUsage, stopReason = "done") =>
  `${stopReason === "done" ? "" : `${stopReason === "cancelled" ? "stopped" : stopReason.replace(/_/g, " ")} · `}${u.inputTokens} in${u.cachedInputTokens ? ` (${u.cachedInputTokens} cached)` : ""} / ${u.outputTokens} out tokens`;

export function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/**
 * A message bubble; `source` keeps the text as written (what Copy and Edit take). A person's
 * attachments show under the words (attach.ts: thumbnails, players, document chips).
 */
export function bubble(role: "user" | "assistant", text: string, attachments?: readonly AttachmentView[]): HTMLElement {
  const body = h("div", { class: "body" });
  if (role === "assistant") body.innerHTML = renderMarkdown(text);
  else body.textContent = text;
  if (!text && attachments?.length) body.hidden = true;
  const el = h("div", { class: `msg ${role}` }, body, attachmentList(attachments));
  el.dataset.source = text;
  return el;
}

export function toolCard(
  name: string,
  args: string,
): {
  el: HTMLElement;
  result(status: string, text: string, images?: readonly ToolImageRef[]): void;
  approval(el: HTMLElement): void;
} {
  const status = h("span", { class: "tool-status running" }, "running");
  const out = h("pre", { class: "tool-result" });
  const slot = h("div", { class: "approval-slot" });
  const pictures = h("div", { class: "tool-pictures" });
  const el = h(
    "details",
    { class: "tool", open: true },
    h("summary", {}, h("span", { class: "tool-name" }, `⚙ ${name}`), status),
    h("pre", { class: "tool-args" }, pretty(args)),
    slot,
    out,
    pictures,
  );
  return {
    el,
    result(s, text, images = []) {
      status.textContent = s;
      status.className = `tool-status ${s}`;
      out.textContent = text;
      clear(slot);
      clear(pictures);
      const shown = toolImages(images);
      // A card with pictures stays open, also when reloaded: the pictures are what it is about.
      if (shown) {
        pictures.append(shown);
        el.open = true;
      }
    },
    approval(node) {
      clear(slot);
      slot.append(node);
      status.textContent = "waiting for you";
      status.className = "tool-status waiting";
    },
  };
}
