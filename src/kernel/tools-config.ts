/**
 * config.toml's [tools.*]: the built-in tool plugins' settings, one table per plugin (the
 * plugin reads its own with config/get "tools"). Every field has a safe default: confined
 * roots, a sandbox that refuses rather than runs unconfined, no private addresses.
 */
import * as v from "valibot";
import { MediaConfig } from "./media-config.ts";
import { EVERYDAY_TOOLS_TEMPLATE, EverydayToolsConfig } from "./everyday-config.ts";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(min), v.maxValue(max));
const bool = v.boolean("must be true or false");
const HostName = v.pipe(
  v.string("must be host names"),
  v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.*-]+)(\/\d{1,3})?$/, "must be host names, addresses or CIDR ranges"),
);

/** An IANA time zone name this runtime knows (its ICU data). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const ToolsConfig = v.strictObject({
  files: v.optional(
    v.strictObject({
      /** Folders the files tools may touch: absolute, or relative to the data dir. */
      roots: v.optional(v.array(v.pipe(v.string(), v.minLength(1, "must not be empty"))), ["workspace"]),
      max_read_kb: v.optional(int(1, 1_048_576), 256),
      max_write_kb: v.optional(int(1, 1_048_576), 10_240),
    }),
    {},
  ),
  sandbox: v.optional(
    v.strictObject({
      /** bwrap: bubblewrap confinement; none: unconfined (only when the owner says so). */
      mode: v.optional(v.picklist(["bwrap", "none"], "must be bwrap or none"), "bwrap"),
      network: v.optional(bool, false),
      timeout_ms: v.optional(int(100, 86_400_000), 60_000),
      output_kb: v.optional(int(1, 65_536), 64),
      max_jobs: v.optional(int(1, 256), 8),
    }),
    {},
  ),
  fetch: v.optional(
    v.strictObject({
      allow_private: v.optional(bool, false),
      allow_hosts: v.optional(v.array(HostName), []),
      max_kb: v.optional(int(1, 1_048_576), 4096),
      timeout_ms: v.optional(int(100, 600_000), 20_000),
      /**
       * "": no web search; searxng: a SearXNG instance at search_url; brave: the Brave Search API
       * (at search_url when set, else api.search.brave.com).
       */
      search_provider: v.optional(v.picklist(["", "searxng", "brave"], "must be searxng, brave or empty"), ""),
      search_url: v.optional(
        v.pipe(
          v.string(),
          v.check((s) => s === "" || /^https?:\/\/\S+$/.test(s), "must be an http(s) URL"),
        ),
        "",
      ),
      /** The name of the API key's entry in DATA/secrets.json's "values". */
      search_key_secret: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{0,64}$/, "must be a secret name")), ""),
    }),
    {},
  ),
  browser: v.optional(
    v.strictObject({
      executable: v.optional(v.string(), "/usr/bin/chromium"),
      allow_private: v.optional(bool, false),
      allow_hosts: v.optional(v.array(HostName), []),
      timeout_ms: v.optional(int(100, 600_000), 30_000),
    }),
    {},
  ),
  schedules: v.optional(
    v.strictObject({
      /** IANA time zone for schedules that name none; empty: the machine's. */
      timezone: v.optional(
        v.pipe(
          v.string(),
          v.check((s) => s === "" || isTimeZone(s), "must be an IANA time zone such as Europe/Berlin, or empty"),
        ),
        "",
      ),
      /** Jobs that may be waiting to run at once (cancelled and finished ones do not count). */
      max_jobs: v.optional(int(1, 10_000), 200),
      /** The shortest gap between two runs of one job, in minutes. */
      min_interval_minutes: v.optional(int(1, 10_080), 1),
      /** Characters a job's prompt may have. */
      max_prompt_chars: v.optional(int(1, 100_000), 4000),
    }),
    {},
  ),
  agent: v.optional(
    v.strictObject({
      max_depth: v.optional(int(1, 5), 2),
      max_iterations: v.optional(int(1, 50), 8),
    }),
    {},
  ),
  media: v.optional(MediaConfig, {}),
  ...EverydayToolsConfig,
});
export type ToolsConfig = v.InferOutput<typeof ToolsConfig>;

/** The commented [tools.*] part of `homed initconfig`'s file; parses to exactly the defaults. */
export const TOOLS_TEMPLATE = `[tools.files]
# Folders files_* may read and write: absolute, or relative to the data dir. Nothing outside
# them is reachable (no .., no symlinks or hard links out, no /proc).
roots = ["workspace"]
# Files larger than this (KiB) are read a page at a time.
max_read_kb = 256
# Largest file files_write and files_edit write (KiB).
max_write_kb = 10240

[tools.sandbox]
# shell_run and code_run: "bwrap" runs commands in bubblewrap with the first files root
# read-write (as /workspace) and the system read-only; where bubblewrap cannot run the tools
# refuse. "none" runs them unconfined as the daemon's user: only if you mean it.
mode = "bwrap"
# Let sandboxed commands reach the network.
network = false
# Longest run of a command, background jobs included; a call may ask for less, not more.
# Foreground calls are also bounded by [agent] tool_timeout_ms.
timeout_ms = 60000
# Output shown per command (KiB, stdout and stderr together), half from the start and half
# from the end; the middle is cut and counted.
output_kb = 64
# Background jobs (shell_run background = true) running at once.
max_jobs = 8

[tools.fetch]
# fetch_url refuses private, loopback, link-local and other non-public addresses (checked
# for every address a name resolves to, and again at every redirect) unless allowed here.
allow_private = false
# Hosts, addresses or CIDR ranges let through anyway, e.g. ["wiki.lan", "*.lan", "10.0.0.0/8"].
allow_hosts = []
# A page's body is read up to this (KiB), the rest dropped; the whole fetch gets timeout_ms.
max_kb = 4096
timeout_ms = 20000
# Web search: "searxng" (your instance at search_url, with its json format enabled) or "brave"
# (key in DATA/secrets.json's "values" under the name search_key_secret; search_url, when set,
# replaces Brave's endpoint, e.g. with a proxy). Empty: fetch_search says it is not configured.
search_provider = ""
search_url = ""
search_key_secret = ""

[tools.browser]
# Chromium driven over CDP (never downloaded); its profile lives in DATA/browser.
executable = "/usr/bin/chromium"
# Pages on private, loopback and link-local addresses are refused (before you are asked about
# the call) unless allowed here: all of them, or the hosts, addresses or CIDR ranges listed.
allow_private = false
allow_hosts = []
timeout_ms = 30000

[tools.schedules]
# Time zone for schedules that name none, e.g. "Europe/Berlin"; empty: the machine's.
timezone = ""
# Jobs waiting to run at once; the shortest gap between two runs of one job (minutes); the
# longest prompt a job may carry (characters).
max_jobs = 200
min_interval_minutes = 1
max_prompt_chars = 4000

[tools.agent]
# agent_spawn: how deep child agents may nest, and model calls per child.
max_depth = 2
max_iterations = 8
${EVERYDAY_TOOLS_TEMPLATE}`;
