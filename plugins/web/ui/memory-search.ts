/** The memory page's search box over everything the person may see, and the events memory_search brought. */
import { api } from "./api.ts";
import { clear, h } from "./dom.ts";
import { attachmentView } from "./attach.ts";
import type { MemoryHit } from "../../../src/protocol/channel.ts";
import { formatTime } from "../../../src/shared/time-format.ts";

/** An event's picture blocks, each a thumbnail linking to its full size, captioned by its text. */
function blockViews(e: MemoryHit): HTMLElement | null {
  const pics = (e.blocks ?? []).filter((b) => b.kind === "image" && b.sha256);
  if (pics.length === 0) return null;
  return h(
    "div",
    { class: "tool-images hit-blocks" },
    ...pics.map((b) => {
      const src = `/api/blocks/${encodeURIComponent(b.sha256 ?? "")}`;
      return h(
        "a",
        {
          href: src,
          target: "_blank",
          rel: "noopener",
          "data-block": String(b.id),
          title: `block ${b.id} · ${b.holder}`,
        },
        h("img", { class: "tool-image", src, alt: b.text || `picture (${b.mime})`, loading: "lazy" }),
      );
    }),
  );
}

/** An event's other blocks (a voice message, a document): a player or a chip, named by the first line of its text. */
function fileViews(e: MemoryHit): HTMLElement | null {
  const files = (e.blocks ?? []).filter((b) => b.kind !== "image" && b.sha256);
  if (files.length === 0) return null;
  return h(
    "div",
    { class: "attachments hit-files" },
    ...files.map((b) =>
      attachmentView({ sha256: b.sha256 ?? "", kind: b.kind, mime: b.mime, name: b.text.split("\n")[0] || undefined }),
    ),
  );
}

const when = formatTime;

/** One remembered event: when, which conversation (a link to it), who, the snippet. */
export function hitView(e: MemoryHit): HTMLElement {
  return h(
    "div",
    { class: "ctx hit", "data-event": String(e.id) },
    h(
      "div",
      { class: "ctx-head" },
      h("b", {}, e.role),
      h("span", { class: "when" }, when(e.ts)),
      h(
        "a",
        { class: "tag conv-link", href: `#/chat/${encodeURIComponent(e.conv)}`, title: e.conv },
        `${e.channel ? `${e.channel} · ` : ""}${e.title ?? e.conv}`,
      ),
      e.untrusted ? h("span", { class: "tag untrusted" }, "untrusted") : null,
      e.score !== null ? h("span", { class: "tokens" }, `score ${e.score.toFixed(2)}`) : null,
    ),
    h("pre", {}, e.text),
    blockViews(e),
    fileViews(e),
  );
}

export function memorySearchBox(): HTMLElement {
  const input = h("input", { id: "recall-search", type: "search", placeholder: "Search your memory…" });
  const results = h("div", { class: "context", id: "recall-results" });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const q = input.value.trim();
    clear(results);
    if (!q) return;
    try {
      const hits = await api<MemoryHit[]>(`/api/memory/search?q=${encodeURIComponent(q)}`);
      if (hits.length === 0) results.append(h("p", { class: "hint no-matches" }, `No matches for “${q}”.`));
      for (const e of hits) results.append(hitView(e));
    } catch (err) {
      results.append(h("p", { class: "form-msg bad" }, (err as Error).message));
    }
  };
  return h(
    "form",
    { class: "recall", onsubmit: submit },
    h("h2", {}, "Memory"),
    h(
      "p",
      { class: "hint" },
      "Everything you may recall: all your trusted conversations (web, CLI, API), and untrusted ones when [memory] recall_untrusted is on.",
    ),
    h("div", { class: "row" }, input, h("button", { class: "primary", type: "submit", id: "recall-go" }, "Search")),
    results,
  );
}
