/**
 * Conversations in the sidebar and the bar above a chat: where each came from (web, CLI, API),
 * search over titles and — through memory's search — what was said, rename, export, and forget.
 */
import { api } from "./api.ts";
import { clear, h, timeAgo } from "./dom.ts";
import type { ConversationSummary, MemoryHit } from "../../../src/protocol/channel.ts";

const CHANNEL_LABEL: Record<string, string> = { web: "web", cli: "CLI", api: "API" };

/** A small tag saying where a conversation started. */
export function channelTag(channel: string): HTMLElement {
  const known = channel in CHANNEL_LABEL ? channel : "other";
  return h(
    "span",
    { class: `chan chan-${known}`, title: `started from ${channel || "an unknown channel"}` },
    CHANNEL_LABEL[channel] ?? (channel || "?"),
  );
}

/** A line of `text` around the first word of `q` found in it (search is by words, so any may be). */
function around(text: string, q: string): string {
  const flat = text.replace(/\s+/g, " ");
  const lower = flat.toLowerCase();
  const at = Math.max(
    0,
    ...q
      .toLowerCase()
      .split(/\s+/)
      .map((w) => lower.indexOf(w))
      .filter((i) => i >= 0)
      .slice(0, 1),
  );
  const start = Math.max(0, at - 30);
  return `${start > 0 ? "…" : ""}${flat.slice(start, start + 90)}`;
}

const turnsText = (n: number) => `${n} ${n === 1 ? "turn" : "turns"}`;

function convLink(c: ConversationSummary, active: string, snippet?: string): HTMLElement {
  return h(
    "a",
    {
      class: `conv${c.id === active ? " active" : ""}`,
      href: `#/chat/${encodeURIComponent(c.id)}`,
      title: c.id,
      "data-conv": c.id,
    },
    h("span", { class: "conv-head" }, channelTag(c.channel), h("span", { class: "title" }, c.title)),
    snippet ? h("span", { class: "snippet" }, snippet) : null,
    h("span", { class: "when" }, `${timeAgo(c.updatedAt)} · ${turnsText(c.turns)}`),
  );
}

/**
 * The list with its search box. Typing filters titles at once; from two characters on, memory's
 * search (the same scope as the memory page: forgotten conversations are never found) adds the
 * conversations whose messages match, with the matching line.
 */
export function conversationList(convs: ConversationSummary[], active: string): HTMLElement {
  const input = h("input", {
    id: "conv-search",
    type: "search",
    placeholder: "Search conversations…",
    autocomplete: "off",
  });
  const list = h("div", { class: "convs", id: "conv-list" });
  let asked = 0;
  const render = async () => {
    const q = input.value.trim();
    const mine = ++asked;
    const byTitle = q ? convs.filter((c) => c.title.toLowerCase().includes(q.toLowerCase())) : convs;
    const draw = (hits: MemoryHit[]) => {
      clear(list);
      for (const c of byTitle) list.append(convLink(c, active));
      const shown = new Set(byTitle.map((c) => c.id));
      const inText: HTMLElement[] = [];
      for (const hit of hits) {
        const c = convs.find((x) => x.id === hit.conv);
        if (!c || shown.has(c.id)) continue;
        shown.add(c.id);
        inText.push(convLink(c, active, around(hit.text, q)));
      }
      if (inText.length) list.append(h("div", { class: "convs-head" }, "In messages"), ...inText);
      if (q && shown.size === 0) list.append(h("div", { class: "convs-none" }, `Nothing matches “${q}”.`));
    };
    draw([]);
    if (q.length < 2) return;
    const hits = await api<MemoryHit[]>(`/api/memory/search?q=${encodeURIComponent(q)}`).catch(() => []);
    if (mine === asked) draw(hits);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => void render(), 200);
  });
  void render();
  return h("div", { class: "conv-panel" }, input, list);
}

const FORGET_TEXT =
  "It leaves this list, the search box, and everything homed recalls — in other conversations and in this one. " +
  "Nothing is erased: homed's log is append-only, so the messages stay in DATA/homed.db, marked forgotten.";

/** Ask before forgetting; resolves true when the person confirms. */
function confirmForget(title: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { id: "forget-dialog", class: "card" },
      h("h3", {}, `Forget “${title}”?`),
      h("p", { class: "hint" }, FORGET_TEXT),
      h(
        "div",
        { class: "row end" },
        h("button", { type: "button", id: "forget-cancel", onclick: () => dialog.close("cancel") }, "Cancel"),
        h(
          "button",
          { type: "button", id: "forget-confirm", class: "danger", onclick: () => dialog.close("forget") },
          "Forget",
        ),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "forget");
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * The bar above a chat: the menu button (phone width), the title with its channel, and a menu to
 * rename, export or forget. `conv` is null for a chat that has no turn yet.
 */
export function conversationBar(
  id: string,
  conv: ConversationSummary | null,
  hooks: { renamed(): void; forgotten(): void; menu(): void },
): HTMLElement {
  const title = h("span", { class: "bar-title", id: "conv-title" }, conv?.title ?? "New chat");
  const head = h("div", { class: "bar-head" }, conv ? channelTag(conv.channel) : null, title);
  const menu = h("details", { class: "conv-menu", id: "conv-menu" });
  const close = () => menu.removeAttribute("open");
  const rename = () => {
    close();
    const input = h("input", { id: "rename-input", value: conv?.title ?? "", maxlength: "200" });
    const save = async () => {
      await api(`/api/conversations/${encodeURIComponent(id)}/rename`, { title: input.value });
      hooks.renamed();
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") void save();
      if (e.key === "Escape") hooks.renamed();
    });
    title.replaceWith(input);
    input.focus();
    input.select();
  };
  const exportLink = (format: "md" | "json", label: string) =>
    h(
      "a",
      {
        class: "menu-item",
        id: `export-${format}`,
        href: `/api/conversations/${encodeURIComponent(id)}/export?format=${format}`,
        download: `homed-${id}.${format}`,
        onclick: close,
      },
      label,
    );
  menu.append(
    h("summary", { title: "Conversation menu", "aria-label": "Conversation menu" }, "⋯"),
    h(
      "div",
      { class: "menu-list" },
      h("button", { type: "button", class: "menu-item", id: "rename", onclick: rename }, "Rename"),
      exportLink("md", "Export as Markdown"),
      exportLink("json", "Export as JSON"),
      h(
        "button",
        {
          type: "button",
          class: "menu-item bad",
          id: "forget",
          onclick: async () => {
            close();
            if (!(await confirmForget(conv?.title ?? id))) return;
            await api(`/api/conversations/${encodeURIComponent(id)}/forget`, {});
            hooks.forgotten();
          },
        },
        "Forget…",
      ),
    ),
  );
  return h("header", { class: "bar" }, menuButton(hooks.menu), head, conv ? menu : null);
}

/** The ☰ button that opens the sidebar at phone width (hidden on wider screens). */
export function menuButton(open: () => void): HTMLElement {
  return h(
    "button",
    { type: "button", class: "menu-button", id: "menu", "aria-label": "Conversations and pages", onclick: open },
    "☰",
  );
}

/** A bar for the other pages: the menu button and the page's name. */
export function pageBar(name: string, open: () => void): HTMLElement {
  return h(
    "header",
    { class: "bar page-bar" },
    menuButton(open),
    h("div", { class: "bar-head" }, h("span", { class: "bar-title" }, name)),
  );
}
