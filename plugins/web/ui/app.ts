/** The web UI: a conversation list, the chat, plugins, memory and settings pages. Hash routes. */
import { api, whenUnauthorized } from "./api.ts";
import { ChatPane } from "./chat.ts";
import { clear, h, timeAgo } from "./dom.ts";
import { loginView, memoryView, pluginsView, providerView, type Provider } from "./views.ts";
import { settingsView } from "./settings.ts";

interface Conversation {
  id: string;
  title: string;
  updatedAt: number;
  turns: number;
}

const root = document.getElementById("app") as HTMLElement;
const side = h("nav", { class: "side" });
const main = h("main", { class: "main" });
let stopPage: (() => void) | null = null;

const newConvId = () => `web-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

function currentConv(): string {
  const m = /^#\/(?:chat|memory)\/([^/]+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1] as string) : localStorage.getItem("homed.conv") || newConvId();
}

async function renderSide(): Promise<void> {
  const convs = await api<Conversation[]>("/api/conversations").catch(() => []);
  const active = currentConv();
  clear(side);
  side.append(
    h("div", { class: "brand" }, "homed"),
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
      h("a", { href: "#/settings" }, "Settings"),
    ),
    h(
      "div",
      { class: "convs" },
      ...convs.map((c) =>
        h(
          "a",
          { class: `conv${c.id === active ? " active" : ""}`, href: `#/chat/${encodeURIComponent(c.id)}`, title: c.id },
          h("span", { class: "title" }, c.title),
          h("span", { class: "when" }, `${timeAgo(c.updatedAt)} · ${c.turns} turns`),
        ),
      ),
    ),
  );
}

async function route(): Promise<void> {
  stopPage?.();
  stopPage = null;
  clear(main);
  const session = await api<{ exposed: boolean; authenticated: boolean }>("/api/session");
  if (!session.authenticated) {
    side.hidden = true;
    main.append(loginView(session.exposed, () => void route()));
    return;
  }
  side.hidden = false;
  const provider = await api<Provider>("/api/provider");
  if (!provider.configured && location.hash !== "#/settings") {
    void renderSide();
    main.append(providerView(provider, true, () => void route()));
    return;
  }
  const hash = location.hash;
  if (hash === "#/plugins") {
    const p = pluginsView();
    stopPage = p.stop;
    main.append(p.el);
  } else if (hash === "#/settings") {
    main.append(providerView(provider, false, () => void renderSide()));
    main.append(await settingsView().catch((err: Error) => h("div", { class: "notice error" }, err.message)));
  } else if (hash.startsWith("#/memory/")) {
    main.append(memoryView(currentConv()));
  } else {
    const conv = currentConv();
    if (!hash.startsWith("#/chat/")) history.replaceState(null, "", `#/chat/${encodeURIComponent(conv)}`);
    localStorage.setItem("homed.conv", conv);
    const pane = new ChatPane(conv, () => void renderSide());
    main.append(pane.el);
    await pane.load();
  }
  await renderSide();
}

whenUnauthorized(() => void route());
window.addEventListener("hashchange", () => void route());
root.append(side, main);
void route();
