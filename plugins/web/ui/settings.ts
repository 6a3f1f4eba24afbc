/**
 * The settings page beyond the provider form: system prompt, approval rules, memory's recall
 * scope, the private hosts tools may reach, the MCP servers, and every plugin's own settings
 * (plugin-settings.ts). A Save writes DATA/settings.json and applies it at once; the answer says
 * what was applied and what needs a restart. Also the "Always allow" button an approval card
 * carries.
 */
import { api } from "./api.ts";
import { h } from "./dom.ts";
import { pluginSettingsPart } from "./plugin-settings.ts";
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
  const hosts = h("textarea", { id: "allow-hosts", rows: "2", placeholder: "nas.lan, *.lan, 192.168.1.0/24" });
  hosts.value = s.allow_hosts.join("\n");
  const msg = h("div", { class: "form-msg", id: "settings-msg" });

  const plugins = pluginSettingsPart(s.plugins, s.unused);

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
        allow_hosts: lines(hosts.value),
      };
      // Only what was changed goes to settings.json: the rest keeps following config.toml.
      const patch = Object.fromEntries(
        Object.entries(form).filter(
          ([k, v]) => JSON.stringify(v) !== JSON.stringify((s as unknown as Record<string, unknown>)[k]),
        ),
      );
      const sections = plugins.changes();
      if (sections) patch.sections = sections;
      const r = await api<SettingsSaveResult>("/api/settings", patch);
      s = r.settings;
      for (const [field, span] of sourceSpans) span.textContent = r.settings.sources[field] ?? "";
      plugins.paint(s.plugins, s.unused);
      msg.textContent = reloadSentence(r.reload);
      msg.classList.add(r.reload.error ? "bad" : "ok");
    } catch (err) {
      msg.textContent = (err as Error).message;
      msg.classList.add("bad");
    }
  };

  // MCP servers: listed with a Remove each, and a row to add one; each change is saved at once.
  const servers = h("ul", { class: "mcp-servers", id: "mcp-servers" });
  const mcpEdit = async (body: Record<string, unknown>) => {
    msg.className = "form-msg";
    try {
      const r = await api<SettingsSaveResult>("/api/settings", body);
      s = r.settings;
      paintServers();
      for (const [field, span] of sourceSpans) span.textContent = s.sources[field] ?? "";
      msg.textContent = reloadSentence(r.reload);
      msg.classList.add(r.reload.error ? "bad" : "ok");
      return true;
    } catch (err) {
      msg.textContent = (err as Error).message;
      msg.classList.add("bad");
      return false;
    }
  };
  const paintServers = () => {
    servers.replaceChildren(
      ...(s.mcp_servers.length
        ? s.mcp_servers.map((m) =>
            h(
              "li",
              { "data-server": m.name },
              h("b", {}, m.name),
              h("span", { class: "tag" }, m.transport),
              h("code", { class: "mcp-target" }, m.target),
              h(
                "button",
                { type: "button", class: "small remove-server", onclick: () => void mcpEdit({ mcp_remove: m.name }) },
                "Remove",
              ),
            ),
          )
        : [h("li", { class: "hint" }, "No MCP servers.")]),
    );
  };
  paintServers();
  const newName = h("input", { id: "mcp-name", placeholder: "name", autocomplete: "off" });
  const newTarget = h("input", {
    id: "mcp-target",
    placeholder: "https://…/mcp  or  a command with its arguments",
    autocomplete: "off",
  });
  const newSecret = h("input", { id: "mcp-secret", placeholder: "Authorization from secret (name, optional)" });
  const addServer = async () => {
    const target = newTarget.value.trim();
    const add: Record<string, unknown> = { name: newName.value.trim() };
    if (/^https?:\/\//.test(target)) {
      add.url = target;
      if (newSecret.value.trim()) add.header_secrets = { Authorization: newSecret.value.trim() };
    } else {
      const [command, ...args] = target.split(/\s+/).filter(Boolean);
      add.command = command ?? "";
      add.args = args;
    }
    if (await mcpEdit({ mcp_add: add })) {
      newName.value = "";
      newTarget.value = "";
      newSecret.value = "";
    }
  };

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
    h("h3", {}, "Private addresses"),
    h(
      "label",
      {},
      h(
        "span",
        {},
        // The label is the plugins' own (their settings.ts), as the kernel composed the page.
        `${s.labels.allow_hosts ?? "Private hosts"} `,
        source("allow_hosts"),
      ),
      hosts,
    ),
    h("h3", {}, `${s.labels.mcp_servers ?? "MCP servers"} `, source("mcp_servers")),
    servers,
    h(
      "div",
      { class: "mcp-add" },
      newName,
      newTarget,
      newSecret,
      h("button", { type: "button", id: "add-server", onclick: () => void addServer() }, "Add server"),
    ),
    h(
      "p",
      { class: "hint" },
      'A secret\'s value lives in DATA/secrets.json ("values"), never here. Tools of MCP servers are asked about (exec) unless an approval rule says otherwise.',
    ),
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
