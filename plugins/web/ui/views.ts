/** The other pages: login, model provider (first run and settings), plugins, memory. */
import { api, type ApiError } from "./api.ts";
import { clear, h, timeAgo } from "./dom.ts";
import { hitView, memorySearchBox } from "./memory-search.ts";
import { channelsTable } from "./channels.ts";
import type { ContextView, LlmModelsResult } from "../../../src/protocol/channel.ts";
import type { LlmSettingsView, LlmTestResult } from "../../../src/protocol/control.ts";
import type { PluginInfo } from "../../../src/protocol/plugin.ts";

export function loginView(exposed: boolean, onDone: () => void): HTMLElement {
  const token = h("input", {
    type: "password",
    id: "token",
    placeholder: "login token",
    autocomplete: "current-password",
  });
  const msg = h("div", { class: "form-msg" });
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api("/api/login", { token: token.value.trim() });
      onDone();
    } catch (err) {
      msg.textContent = (err as Error).message;
    }
  };
  return h(
    "form",
    { class: "card narrow", onsubmit: submit },
    h("h2", {}, "Log in to homed"),
    h(
      "p",
      { class: "hint" },
      exposed
        ? "This homed listens beyond this machine, so it needs its login token. It was printed when the daemon first started and is kept in DATA/web-token (unless config.toml or HOMED_WEB_TOKEN sets it)."
        : "Other accounts on this machine can reach homed too, so it asks who you are. Open the link the daemon printed when it started, or run `homed open` for a new one; or paste the token from DATA/web-token (or [web] token in config.toml) here.",
    ),
    token,
    h("button", { class: "primary", type: "submit" }, "Log in"),
    msg,
  );
}

export function providerView(current: LlmSettingsView, firstRun: boolean, onSaved: () => void): HTMLElement {
  const kind = h(
    "select",
    { id: "kind" },
    h("option", { value: "openai" }, "OpenAI-compatible (OpenAI, DeepSeek, Qwen, Ollama, llama.cpp, vLLM…)"),
    h("option", { value: "anthropic" }, "Anthropic"),
  );
  kind.value = current.provider || "openai";
  const baseURL = h("input", { id: "base-url", placeholder: "https://api.openai.com/v1", value: current.baseURL });
  // A free field with the provider's own model ids offered as suggestions (GET /api/models).
  const models = h("datalist", { id: "model-list" });
  const model = h("input", { id: "model", placeholder: "gpt-4o-mini", value: current.model, list: "model-list" });
  if (current.configured)
    void api<LlmModelsResult>("/api/models")
      .then((r) => models.append(...r.provider.map((id) => h("option", { value: id }))))
      .catch(() => {});
  const key = h("input", {
    id: "api-key",
    type: "password",
    autocomplete: "off",
    placeholder: current.hasKey
      ? `keep the stored key (${current.keyHint})`
      : "API key (leave empty for local servers)",
  });
  const window = h("input", {
    id: "context-window",
    type: "number",
    min: "1024",
    value: String(current.contextWindow || 128000),
  });
  const msg = h("div", { class: "form-msg", id: "provider-msg" });
  // Usable before Save: it tests what the form says, saved or not.
  const testBtn = h("button", { type: "button", id: "test-connection" }, "Test connection");
  // First run: after saving, stay on the form so the connection can be tested, then go on.
  const startBtn = h(
    "button",
    { type: "button", id: "start-chatting", class: "primary", hidden: true, onclick: () => onSaved() },
    "Start chatting →",
  );
  kind.addEventListener("change", () => {
    baseURL.placeholder = kind.value === "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1";
  });
  /** The settings as the form has them; an empty key field keeps the stored key. */
  const formSettings = (): Record<string, unknown> => {
    const body: Record<string, unknown> = {
      provider: kind.value,
      baseURL: baseURL.value.trim(),
      model: model.value.trim(),
      contextWindow: Number(window.value) || undefined,
    };
    if (key.value) body.apiKey = key.value;
    return body;
  };
  const say = (text: string, tone: "ok" | "bad" | "", ...more: HTMLElement[]) => {
    msg.className = tone ? `form-msg ${tone}` : "form-msg";
    msg.replaceChildren(text, ...more);
  };
  const test = () => api<LlmTestResult>("/api/provider/test", formSettings());
  const store = async (tested: LlmTestResult | null) => {
    const saved = await api<LlmSettingsView>("/api/provider", formSettings());
    key.value = "";
    key.placeholder = saved.hasKey ? `keep the stored key (${saved.keyHint})` : "API key";
    const what = `${saved.provider} ${saved.model}${saved.hasKey ? `, key ${saved.keyHint}` : ", no key"}`;
    say(
      tested
        ? `Saved and connected: ${what}. ${tested.message} (${tested.latencyMs} ms)`
        : `Saved without a test: ${what}.`,
      tested ? "ok" : "",
    );
    startBtn.hidden = !firstRun;
    if (!firstRun) onSaved();
  };
  // Save tests first: settings that do not answer are not saved unless the person says so.
  const save = async (e: Event) => {
    e.preventDefault();
    say("Testing the connection…", "");
    try {
      const r = await test();
      if (r.ok) return await store(r);
      const anyway = h(
        "button",
        {
          type: "button",
          id: "save-anyway",
          class: "small",
          onclick: () => void store(null).catch((err: Error) => say(err.message, "bad")),
        },
        "Save anyway",
      );
      say(`Not saved: the test call failed: ${r.message} (${r.latencyMs} ms). `, "bad", anyway);
    } catch (err) {
      say((err as Error).message, "bad");
    }
  };
  testBtn.addEventListener("click", async () => {
    say("Testing…", "");
    try {
      const r = await test();
      say(`${r.ok ? "Connected" : "Failed"}: ${r.message} (${r.latencyMs} ms)`, r.ok ? "ok" : "bad");
    } catch (err) {
      say((err as Error).message, "bad");
    }
  });
  return h(
    "form",
    { class: "card narrow", id: "provider-form", onsubmit: save },
    h("h2", {}, firstRun ? "Welcome to homed" : "Model provider"),
    firstRun
      ? h(
          "p",
          { class: "hint" },
          "homed needs a language model to think with. Add one: the key stays on this machine (DATA/secrets.json, readable only by you), and only its last four characters are ever shown again.",
        )
      : null,
    h("label", {}, "Provider", kind),
    h("label", {}, "Base URL", baseURL),
    h("label", {}, "Model", model, models),
    h("label", {}, "API key", key),
    h("label", {}, "Context window (tokens)", window),
    h(
      "div",
      { class: "row" },
      h("button", { class: "primary", type: "submit", id: "save-provider" }, "Save"),
      testBtn,
      startBtn,
    ),
    msg,
  );
}

export function pluginsView(): { el: HTMLElement; stop(): void } {
  const body = h("tbody");
  const channels = channelsTable();
  let tick = 0;
  const refresh = async () => {
    // The channels change slower than a plugin's state: every other refresh is enough.
    if (tick++ % 2 === 0) void channels.refresh();
    const list = await api<PluginInfo[]>("/api/plugins").catch(() => null);
    if (!list) return;
    clear(body);
    for (const p of list) {
      const restart = h(
        "button",
        {
          class: "small",
          onclick: async () => {
            await api(`/api/plugins/${encodeURIComponent(p.name)}/restart`, {}).catch((e: ApiError) =>
              alert(e.message),
            );
            await refresh();
          },
        },
        "Restart",
      );
      body.append(
        h(
          "tr",
          { "data-plugin": p.name },
          h(
            "td",
            {},
            h("b", {}, p.name),
            p.builtin ? "" : h("span", { class: "tag" }, "external"),
            p.critical ? h("span", { class: "tag" }, "critical") : "",
            p.sandbox ? h("div", { class: "room" }, p.sandbox) : "",
          ),
          h("td", {}, h("span", { class: `state ${p.state}` }, p.state), h("div", { class: "detail" }, p.detail)),
          h("td", {}, p.pid ? String(p.pid) : "–"),
          h("td", { class: "restarts" }, String(p.restarts)),
          h("td", {}, h("pre", { class: "stderr" }, p.stderrTail.slice(-4).join("\n") || "–")),
          h("td", {}, p.state === "disabled" ? "" : restart),
        ),
      );
    }
  };
  void refresh();
  // Twice a second: a crashed plugin's first restart comes after 1 s, and a page that looked
  // once a second could miss the "restarting" state entirely.
  const timer = setInterval(refresh, 500);
  const el = h(
    "section",
    { class: "page" },
    h("h2", {}, "Channels"),
    channels.el,
    h("h2", {}, "Plugins"),
    h(
      "table",
      { class: "plugins" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}, "plugin"),
          h("th", {}, "state"),
          h("th", {}, "pid"),
          h("th", {}, "restarts"),
          h("th", {}, "last stderr"),
          h("th", {}, ""),
        ),
      ),
      body,
    ),
  );
  return { el, stop: () => clearInterval(timer) };
}

/** One message of the last model call, as /api/context answers it. */
type ContextMessage = NonNullable<ContextView>["messages"][number];

/** Why memory put a turn in context, as the memory page says it. */
const REASONS = {
  pinned: "pinned (newest)",
  relevant: "relevant to the input",
  recent: "recent (room left)",
  kept: "kept (the plan of an earlier turn)",
} as const;

export function memoryView(conv: string): HTMLElement {
  const list = h("div", { class: "context" });
  const search = h("input", { id: "memory-search", placeholder: "Search what the model was sent…" });
  const summary = h("p", { class: "hint", id: "context-summary" });
  // The tools offered: 60-odd names are a wall of text in the summary, so they fold away.
  const offered = h("details", { class: "hint", id: "offered-tools" });
  const brought = h("div", { class: "context", id: "brought" });
  let messages: ContextMessage[] = [];
  const render = () => {
    clear(list);
    const q = search.value.trim().toLowerCase();
    for (const m of messages) {
      const text =
        m.content + (m.toolCalls ? `\n${m.toolCalls.map((c) => `→ ${c.name} ${c.arguments}`).join("\n")}` : "");
      if (q && !text.toLowerCase().includes(q)) continue;
      list.append(
        h(
          "div",
          { class: `ctx ${m.role}` },
          h(
            "div",
            { class: "ctx-head" },
            h("b", {}, m.role + (m.name ? ` (${m.name})` : "")),
            h("span", { class: "tag" }, m.layer),
            m.recalled ? h("span", { class: "tag recalled" }, "recalled from L2") : null,
            m.filled ? h("span", { class: "tag filled" }, "filled from L2") : null,
            m.reason && m.reason !== "all" ? h("span", { class: "tag reason" }, REASONS[m.reason]) : null,
            m.score !== null ? h("span", { class: "tag" }, `score ${m.score.toFixed(2)}`) : null,
            h("span", { class: "tokens" }, `~${m.tokens} tokens`),
          ),
          h("pre", {}, text),
        ),
      );
    }
  };
  search.addEventListener("input", render);
  void api<ContextView>(`/api/context/${encodeURIComponent(conv)}`).then((c) => {
    if (!c) {
      summary.textContent = "Nothing yet: the model has not been called in this conversation since the daemon started.";
      return;
    }
    messages = c.messages;
    if (c.brought?.length)
      brought.append(
        h("h3", {}, `Brought back by memory_search (${c.brought.length})`),
        ...c.brought.map((e) => hitView(e)),
      );
    const total = messages.reduce((n, m) => n + m.tokens, 0);
    const tools = c.tools.length === 1 ? "1 tool" : `${c.tools.length || "no"} tools`;
    summary.textContent = `The last model call (${timeAgo(c.at)}): ${messages.length} messages, ~${total} tokens, ${tools} offered. L1 is the context window; when the conversation outgrows it, the newest turns stay (pinned), then the turns relevant to the input (score), from cold memory (L2) too, then the newest others that fit the room left.`;
    if (c.tools.length) offered.append(h("summary", {}, `The ${tools} offered`), h("p", {}, c.tools.join(", ")));
    render();
  });
  return h(
    "section",
    { class: "page" },
    memorySearchBox(),
    h("h2", {}, "What the model sees"),
    summary,
    offered,
    brought,
    search,
    list,
  );
}
