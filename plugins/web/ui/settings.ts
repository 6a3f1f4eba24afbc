/**
 * The settings page beyond the provider form: system prompt, approval rules, memory's recall
 * scope, and what the plugins' settings put on the page (plugin-settings.ts): the controls they
 * share (the private hosts tools may reach), the lists edited item by item (the MCP servers) and
 * every plugin's own settings. A Save writes DATA/settings.json and applies it at once; the answer
 * says what was applied and what needs a restart. Also the "Always allow" button an approval card
 * carries.
 */
import { api } from "./api.ts";
import { h } from "./dom.ts";
import { itemListPart, type ListEditBody, pageFieldsPart, pluginSettingsPart } from "./plugin-settings.ts";
import type { ConversationSummary, LlmModelsResult } from "../../../src/protocol/channel.ts";
import type { ReloadResult, SettingsSaveResult, SettingsView } from "../../../src/protocol/settings.ts";

/** What a save did, in one sentence. */
export function reloadSentence(r: ReloadResult): string {
  if (r.error) return `Saved, but the configuration was not reloaded: ${r.error}`;
  const applied = r.applied.length ? `Applied now: ${r.applied.join(", ")}.` : "Nothing changed.";
  return r.restartNeeded.length ? `${applied} Needs a restart: ${r.restartNeeded.join(", ")}.` : applied;
}

/** One pattern per line (or comma-separated) → the list the API takes. */
const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

export async function settingsView(): Promise<HTMLElement> {
  let s = await api<SettingsView>("/api/settings");
  // "settings.json", "config.toml" or "default" next to each label, kept current after a Save.
  const sourceSpans = new Map<string, HTMLElement>();
  const source = (field: string) => {
    const span = h("span", { class: "source", "data-field": field }, s.sources[field] ?? "");
    sourceSpans.set(field, span);
    return span;
  };
  const prompt = h("textarea", { id: "system-prompt", rows: "5" });
  prompt.value = s.system_prompt;
  const approvalDefault = h(
    "select",
    { id: "approval-default" },
    h("option", { value: "ask" }, "ask"),
    h("option", { value: "allow" }, "allow"),
    h("option", { value: "deny" }, "deny"),
  );
  approvalDefault.value = s.approval_default;
  const list = (id: string, values: string[]) => {
    const t = h("textarea", { id, rows: "2", placeholder: "tool_name, shell_*, risk:network" });
    t.value = values.join("\n");
    return t;
  };
  const allow = list("approval-allow", s.approval_allow);
  const ask = list("approval-ask", s.approval_ask);
  const deny = list("approval-deny", s.approval_deny);
  const recall = h("input", { id: "recall-untrusted", type: "checkbox", checked: s.recall_untrusted });
  const msg = h("div", { class: "form-msg", id: "settings-msg" });

  const shared = pageFieldsPart(s.page);
  const plugins = pluginSettingsPart(s.plugins, s.unused);
  /**
   * Show the kernel's answer: the sources, the lists, and what the reload did; after a Save (not
   * a list's edit, which leaves the rest as typed) the plugins' controls too.
   */
  const show = (r: SettingsSaveResult, saved: boolean) => {
    s = r.settings;
    for (const [field, span] of sourceSpans) span.textContent = s.sources[field] ?? "";
    for (const l of s.lists) lists.get(l.key)?.paint(l);
    if (saved) {
      shared.paint(s.page);
      plugins.paint(s.plugins, s.unused);
    }
    msg.textContent = reloadSentence(r.reload);
    msg.classList.add(r.reload.error ? "bad" : "ok");
  };

  const save = async (e: Event) => {
    e.preventDefault();
    msg.className = "form-msg";
    msg.textContent = "Saving…";
    try {
      const form: Record<string, unknown> = {
        system_prompt: prompt.value,
        approval_default: approvalDefault.value,
        approval_allow: lines(allow.value),
        approval_ask: lines(ask.value),
        approval_deny: lines(deny.value),
        recall_untrusted: recall.checked,
      };
      // Only what was changed goes to settings.json: the rest keeps following config.toml.
      const patch = Object.fromEntries(
        Object.entries(form).filter(
          ([k, v]) => JSON.stringify(v) !== JSON.stringify((s as unknown as Record<string, unknown>)[k]),
        ),
      );
      const { sections, page: removed } = plugins.changes();
      if (sections) patch.sections = sections;
      const page = { ...shared.changes(), ...removed };
      if (Object.keys(page).length) patch.page = page;
      show(await api<SettingsSaveResult>("/api/settings", patch), true);
    } catch (err) {
      msg.textContent = (err as Error).message;
      msg.classList.add("bad");
    }
  };

  // The lists edited item by item: each change is saved at once, the rest of the form kept as typed.
  const edit = async (body: ListEditBody) => {
    msg.className = "form-msg";
    try {
      show(await api<SettingsSaveResult>("/api/settings", { list_edits: [body] }), false);
      return true;
    } catch (err) {
      msg.textContent = (err as Error).message;
      msg.classList.add("bad");
      return false;
    }
  };
  const lists = new Map(s.lists.map((l) => [l.key, itemListPart(l, edit)] as const));

  return h(
    "form",
    // novalidate: a value out of a number field's min/max is refused by the kernel with its
    // message below, not by a browser bubble that a closed plugin block would hide.
    { class: "card narrow", id: "settings-form", onsubmit: save, novalidate: true },
    h("h2", {}, "Agent"),
    h(
      "p",
      { class: "hint" },
      "Saved to DATA/settings.json, which wins over config.toml field by field. A Save applies at once; the answer names what needs a restart.",
    ),
    h("label", {}, h("span", {}, "System prompt ", source("system_prompt")), prompt),
    h("h3", {}, "Approval"),
    h(
      "label",
      {},
      h("span", {}, "Tools not matched below (read-only tools always run) ", source("approval_default")),
      approvalDefault,
    ),
    h("label", {}, h("span", {}, "Always allow ", source("approval_allow")), allow),
    h("label", {}, h("span", {}, "Always ask ", source("approval_ask")), ask),
    h("label", {}, h("span", {}, "Never allow ", source("approval_deny")), deny),
    h("h3", {}, "Memory"),
    h(
      "label",
      { class: "check" },
      recall,
      h(
        "span",
        {},
        "Recall from untrusted conversations too (quoted and marked untrusted) ",
        source("recall_untrusted"),
      ),
    ),
    // The plugins' own labels and headings (their settings.ts), as the kernel composed the page.
    shared.el,
    ...[...lists.values()].map((l) => l.el),
    s.lists.length
      ? h(
          "p",
          { class: "hint" },
          'A secret\'s value lives in DATA/secrets.json ("values"), never here: the page names secrets only.',
        )
      : null,
    h("h3", {}, "Plugins"),
    h(
      "p",
      { class: "hint" },
      "Each plugin's own settings, as it declares them (config.toml's sections). Sections holding tokens or secrets are edited in config.toml only.",
    ),
    plugins.el,
    h("div", { class: "row" }, h("button", { class: "primary", type: "submit", id: "save-settings" }, "Save")),
    msg,
  );
}

/** The "Always allow" of an approval card: adds the tool to approval.allow, then `answer()` approves this call. */
export function alwaysAllowButton(tool: string, answer: () => void): HTMLElement {
  return h(
    "button",
    {
      class: "always-allow",
      title: `Add ${tool} to the approval allow list (DATA/settings.json)`,
      onclick: async () => {
        await api("/api/settings/allow-tool", { tool }).catch(() => {});
        answer();
      },
    },
    "Always allow",
  );
}

/**
 * A model switch above the composer: the configured model or another the provider lists, for
 * this conversation only (kept by the daemon, so the CLI and other tabs continue on it too).
 * Hidden while the provider lists nothing else.
 */
export function conversationModelPicker(conv: string): HTMLElement {
  const select = h("select", { id: "conv-model", title: "The model of this conversation" });
  const bar = h("div", { class: "conv-model", hidden: true }, h("label", {}, "Model", select));
  select.addEventListener("change", () => {
    void api(`/api/conversations/${encodeURIComponent(conv)}/model`, { model: select.value }).catch((err: Error) => {
      select.title = `Not saved: ${err.message}`;
    });
  });
  void Promise.all([
    api<LlmModelsResult>("/api/models"),
    api<ConversationSummary[]>("/api/conversations").catch(() => []),
  ])
    .then(([r, convs]) => {
      const others = r.provider.filter((id) => id !== r.configured);
      if (others.length === 0) return;
      select.append(
        h("option", { value: "" }, `${r.configured} (configured)`),
        ...others.map((id) => h("option", { value: id }, id)),
      );
      const chosen = convs.find((c) => c.id === conv)?.model ?? "";
      select.value = others.includes(chosen) ? chosen : "";
      bar.hidden = false;
    })
    .catch(() => {});
  return bar;
}
