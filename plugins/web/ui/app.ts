/** The web UI: a conversation list, the chat, plugins, memory, scenes, knowledge, skills and settings pages. Hash routes. */
import { api, whenUnauthorized } from "./api.ts";
import { ChatPane } from "./chat.ts";
import { conversationBar, conversationList, pageBar } from "./conversations.ts";
import { clear, h } from "./dom.ts";
import { loginView, memoryView, pluginsView, providerView } from "./views.ts";
import { settingsView } from "./settings.ts";
import { scenesView } from "./scenes.ts";
import { knowledgeView } from "./knowledge.ts";
import { skillsView } from "./skills.ts";
import type { ConversationSummary } from "../../../src/protocol/channel.ts";
import type { LlmSettingsView } from "../../../src/protocol/control.ts";
import type { WebSession } from "../../../src/protocol/web.ts";

const root = document.getElementById("app") as HTMLElement;
const side = h("nav", { class: "side", id: "side" });
const scrim = h("div", { class: "scrim", onclick: () => openSide(false) });
const main = h("main", { class: "main" });
let stopPage: (() => void) | null = null;

/** At phone width the sidebar is a drawer over the page. */
function openSide(open: boolean): void {
  document.body.classList.toggle("side-open", open);
}

const newConvId = () => `web-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

function currentConv(): string {
  const m = /^#\/(?:chat|memory)\/([^/]+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1] as string) : localStorage.getItem("homed.conv") || newConvId();
}

async function renderSide(convs?: ConversationSummary[]): Promise<void> {
  const list = convs ?? (await api<ConversationSummary[]>("/api/conversations").catch(() => []));
  const active = currentConv();
  clear(side);
  side.append(
    h(
      "div",
      { class: "brand" },
      "homed",
      h("button", { type: "button", class: "side-close", "aria-label": "Close", onclick: () => openSide(false) }, "×"),
    ),
    h(
      "button",
      { class: "primary wide", id: "new-chat", onclick: () => (location.hash = `#/chat/${newConvId()}`) },
      "+ New chat",
    ),
    h(
      "div",
      { class: "nav" },
      h("a", { href: `#/chat/${encodeURIComponent(active)}` }, "Chat"),
      h("a", { href: "#/plugins" }, "Plugins"),
      h("a", { href: `#/memory/${encodeURIComponent(active)}` }, "Memory"),
      h("a", { href: "#/scenes" }, "Scenes"),
      h("a", { href: "#/knowledge" }, "Knowledge"),
      h("a", { href: "#/skills" }, "Skills"),
      h("a", { href: "#/settings" }, "Settings"),
    ),
    conversationList(list, active),
  );
}

/** What the bar above a chat does after a rename or a forget, and how it opens the sidebar. */
const barHooks = {
  renamed: () => void route(),
  forgotten: () => {
    localStorage.removeItem("homed.conv");
    location.hash = `#/chat/${newConvId()}`;
  },
  menu: () => openSide(true),
};

/** Bumped by each route(): a render that another has overtaken while it waited stops there. */
let routeGen = 0;

async function route(): Promise<void> {
  const gen = ++routeGen;
  const stale = () => gen !== routeGen;
  stopPage?.();
  stopPage = null;
  openSide(false);
  clear(main);
  const session = await api<WebSession>("/api/session");
  if (stale()) return;
  if (!session.authenticated) {
    side.hidden = true;
    main.append(loginView(session.exposed, () => void route()));
    return;
  }
  side.hidden = false;
  const provider = await api<LlmSettingsView>("/api/provider");
  if (stale()) return;
  const menu = () => openSide(true);
  // Before a model is set up, chatting is what cannot work; settings and the plugins and
  // channels page can (a person may want to see what runs before giving a key).
  if (!provider.configured && location.hash !== "#/settings" && location.hash !== "#/plugins") {
    void renderSide();
    main.append(
      pageBar("Set up", menu),
      providerView(provider, true, () => void route()),
    );
    return;
  }
  const hash = location.hash;
  const convs = await api<ConversationSummary[]>("/api/conversations").catch(() => []);
  if (stale()) return;
  if (hash === "#/plugins") {
    const p = pluginsView();
    stopPage = p.stop;
    main.append(pageBar("Plugins", menu), p.el);
  } else if (hash === "#/settings") {
    const settings = await settingsView().catch((err: Error) => h("div", { class: "notice error" }, err.message));
    if (stale()) return;
    main.append(
      pageBar("Settings", menu),
      providerView(provider, false, () => void renderSide()),
      settings,
    );
  } else if (hash === "#/scenes") {
    main.append(pageBar("Scenes", menu), scenesView());
  } else if (hash === "#/skills") {
    main.append(pageBar("Skills", menu), skillsView());
  } else if (hash === "#/knowledge") {
    main.append(pageBar("Knowledge", menu), knowledgeView());
  } else if (hash.startsWith("#/memory/")) {
    main.append(pageBar("Memory", menu), memoryView(currentConv()));
  } else {
    const conv = currentConv();
    if (!hash.startsWith("#/chat/")) history.replaceState(null, "", `#/chat/${encodeURIComponent(conv)}`);
    localStorage.setItem("homed.conv", conv);
    const bar = conversationBar(conv, convs.find((c) => c.id === conv) ?? null, barHooks);
    // A turn that just finished may have named the conversation: refresh the list and the bar.
    const pane = new ChatPane(conv, () => void refreshAfterTurn(conv, bar));
    main.append(bar, pane.el);
    await pane.load();
    if (stale()) return;
  }
  await renderSide(convs);
}

async function refreshAfterTurn(conv: string, bar: HTMLElement): Promise<void> {
  const convs = await api<ConversationSummary[]>("/api/conversations").catch(() => []);
  const summary = convs.find((c) => c.id === conv) ?? null;
  if (bar.isConnected && summary && !bar.querySelector("#conv-menu"))
    bar.replaceWith(conversationBar(conv, summary, barHooks));
  await renderSide(convs);
}

// An open menu closes when something else is clicked, as menus do.
document.addEventListener("click", (e) => {
  for (const open of document.querySelectorAll("details.conv-menu[open]"))
    if (!open.contains(e.target as Node)) open.removeAttribute("open");
});
whenUnauthorized(() => void route());
window.addEventListener("hashchange", () => void route());
root.append(side, scrim, main);
void route();
