/**
 * The commented config.toml `homed initconfig` writes: every setting with its default and what
 * it does. The kernel's sections are written out here; each plugin's section is written from its
 * settings (the doc and default of every field). test/kernel/config.test.ts checks that it parses
 * to exactly ConfigSchema's defaults and names every setting, so the two cannot drift apart.
 */
import * as v from "valibot";
import { fieldDoc, fieldIsTableList } from "../../protocol/plugin-settings.ts";
import { type SettingsSection, settingsSections } from "./sections.ts";
import { SCENES_TEMPLATE } from "./scenes.ts";
import { DISTILL_TEMPLATE } from "./distill.ts";

/** Each line of `text` as a TOML comment. */
function comment(text: string): string {
  return text
    ? `${text
        .split("\n")
        .map((l) => `# ${l}`.trimEnd())
        .join("\n")}\n`
    : "";
}

/** A default as TOML: strings, numbers, booleans and lists of them. */
function tomlValue(value: unknown, where: string): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map((x) => tomlValue(x, where)).join(", ")}]`;
  throw new Error(`${where}: a default of this kind has no TOML form here: ${JSON.stringify(value)}`);
}

/** One plugin's section: its doc, then each field's doc above its default. */
export function sectionTemplate(s: SettingsSection): string {
  const defaults = v.parse(s.settings.schema, {}) as Record<string, unknown>;
  let body = "";
  let values = 0;
  for (const [key, entry] of Object.entries(s.settings.schema.entries)) {
    if (fieldIsTableList(entry)) {
      // Written as [[section.key]] tables by the person: `key = []` here would clash with them.
      body += comment(fieldDoc(entry));
      continue;
    }
    body += `${comment(fieldDoc(entry))}${key} = ${tomlValue(defaults[key], `${s.section}.${key}`)}\n`;
    values++;
  }
  return values > 0 ? `[${s.section}]\n${comment(s.settings.doc)}${body}` : `${comment(s.settings.doc)}${body}`;
}

/** The template for these plugin sections (in the order of their paths). */
export function configTemplate(sections: readonly SettingsSection[]): string {
  const ordered = [...sections].sort((a, b) => a.section.localeCompare(b.section));
  return `${KERNEL_TEMPLATE}\n${ordered.map(sectionTemplate).join("\n")}`;
}

/** The kernel's own sections, written out. */
const KERNEL_TEMPLATE = `# homed configuration. Every setting is optional; the value shown is the default.
# Environment variables override this file: HOMED_<SECTION>_<KEY> in capitals,
# e.g. HOMED_LISTEN, HOMED_LOG_LEVEL, HOMED_PLUGINS_SEGMENT_MB, HOMED_STORE_BUSY_TIMEOUT_MS.
# Command-line flags (-listen) override both.

# Address of the web UI and HTTP APIs, HOST:PORT. Keep 127.0.0.1 unless you put a login
# token in front of it: any other address exposes the agent to the network.
listen = "127.0.0.1:8080"

[log]
# debug | info | warn | error. Lines go to stderr and to DATA/logs/homed.log.
level = "info"

[llm]
# The model provider. Leave provider empty to set it up in the web UI or with
# \`homed provider\`. API keys never go here: they live in DATA/secrets.json (0600).
# provider: "openai" (any OpenAI-compatible API: OpenAI, DeepSeek, Qwen, Moonshot, Ollama,
# llama.cpp, vLLM) or "anthropic".
provider = ""
# e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1, https://api.anthropic.com
base_url = ""
model = ""
# The model's context window and the room kept for its reply (tokens).
context_window = 128000
max_output_tokens = 4096
# No bytes from the provider for this long = the call failed (milliseconds).
timeout_ms = 120000
# Retries of a call that failed retryably (429, 5xx, network) before any output.
max_retries = 3
# Images tools return (a browser screenshot): "on" sends them to the model, "off" never
# does, "auto" sends them until the provider refuses images for a model, then stops for it.
images = "auto"

[agent]
system_prompt = "You are homed, a personal agent running on the user's own machine. Answer plainly. Use tools when they help, and say what you did."
# Model calls per turn before the agent stops and says so.
max_iterations = 10
tool_timeout_ms = 120000

[memory]
# When the conversation no longer fits the context budget, this many of the newest turns stay
# in context regardless of relevance (fewer when they would take more than half the budget);
# then turns relevant to the current input, from cold memory (L2) too; then the newest others
# that fit. What is left out moves to L2, never lost.
pinned_recent = 10
# A dense embedding model from DATA/models/<name>/ (see homed models). Empty: memory uses
# words and concepts only (TF-IDF, BM25). Events without a vector from the model are embedded
# in the background, so changing the model re-embeds the past.
model = ""
# Conversations from trusted surfaces (web UI, CLI, /v1 with the token or on loopback) recall
# from all of your trusted conversations; untrusted ones (group chats relayed by a bridge) only
# from their own. true: trusted conversations also recall untrusted events, quoted with their
# source and marked untrusted.
recall_untrusted = false

${SCENES_TEMPLATE}
${DISTILL_TEMPLATE}
[approval]
# Every tool declares a risk class: read (no side effects), write, exec, network or secret.
# read tools run unasked (unless default is "deny"); the others get this default when no
# rule below matches: allow | ask | deny. Tools that ask for approval themselves are asked
# about unless a rule allows them.
default = "ask"
# How long a question waits for an answer; no answer = denied.
timeout_ms = 120000
# Glob patterns on tool names, e.g. ["shell_*"], or risk:<class> for every tool of a class,
# e.g. ["risk:network"]. deny wins, then untrusted_deny (while untrusted text is in view:
# input from untrusted sources such as group chats, pages, feeds, files, notes, other agents,
# and what the model wrote with them in view), then allow, then ask. While untrusted text is
# in view, write, exec, secret and sending tools are asked about even when allowed. Where
# nobody can be asked (untrusted input, the /v1 API, background and scheduled jobs) "ask"
# means deny: "denied by policy (no one to ask)".
allow = []
ask = []
deny = []
untrusted_deny = []

[trust]
# Tools whose output you trust although it comes from outside your own words (globs or
# risk:<class>), e.g. ["notes_*"] for your own notes: what they return does not mark the
# conversation as holding untrusted text.
tools = []

[skills]
# Agent Skills (folders with a SKILL.md) are read from DATA/skills, and from these folders of
# skill folders when you name them, e.g. ["~/.agents/skills", "~/.claude/skills",
# "~/.config/opencode/skills"] (~ is your home; a relative path is relative to the data dir).
# Skills from your own folders are trusted; "homed skills add" installs others untrusted.
# Looked at on every turn: a change here applies on reload (SIGHUP), no restart.
paths = []

[plugins]
# Shared-memory segment per plugin (MiB): bulk data and event rings. Pages are only
# resident once used, so a generous size costs little. Made larger when needed so that a
# 16 MiB block (the upload limit) fits in one piece each way.
segment_mb = 32
# A plugin that is not ready this long after it started is killed (and counts as a crash).
start_timeout_ms = 30000
# Liveness ping to every ready plugin; three missed in a row and it is killed as hung.
# 0 turns pings off.
ping_interval_ms = 10000
# Frames per second a plugin may send the kernel (bursts of twice that); more are refused.
frame_rate = 20000
# Largest bulk payload (KiB) a plugin on the stdio transport may send inline as base64.
inline_bulk_kb = 8192
# Plugins not to start, by name (HOMED_PLUGINS_DISABLED takes a comma-separated list).
disabled = []
# How the plugins you add (DATA/plugins) run. "bwrap": each in a bubblewrap sandbox of its
# own: its folder read-only, a private DATA/plugin-state/NAME, no data dir (keys, token,
# database), no network unless it asks and you allowed it at homed plugin add. "none": as
# the daemon's user, with everything the daemon can reach. Built-in plugins are not affected.
sandbox = "bwrap"

[limits]
# Resident memory of the daemon and its plugin processes together (MiB). Over it, the daemon
# stops lazy plugins that are not in use (they start again when needed) and collects garbage;
# if that is not enough it logs one warning, and again only after memory was back under.
# Nothing that is working is stopped. 0 turns the cap off.
rss_mb = 1024
# How often memory is sampled against the cap (milliseconds).
rss_check_ms = 10000

[store]
# How long a write waits for a busy database (milliseconds) before it fails.
busy_timeout_ms = 5000

[backup]
# Scheduled backups of the whole data folder, as \`homed backup\` makes them: every every_hours
# into a new folder homed-YYYYMMDD-HHMMSS under dir, an absolute path outside the data folder
# (~ for your home folder), keeping the newest keep there. Empty dir: none. secrets = true takes
# secrets.json (API keys), web-token and the browser profile too. \`homed status\` shows the
# last one; a reload (SIGHUP, Save in the web UI) applies changes.
dir = ""
every_hours = 24
keep = 7
secrets = false

[tools.agent]
# agent_spawn: how deep child agents may nest, and model calls per child.
max_depth = 2
max_iterations = 8
`;

/** The commented file `homed initconfig` writes for the built-in plugins. It must parse to exactly the defaults (tested). */
export const CONFIG_TEMPLATE = configTemplate(settingsSections());
