/**
 * [tools.fetch]: what fetch_url may reach and where fetch_search searches. The plugin reads the
 * section on every call (plugins/fetch/config.ts), so a change is live at once.
 */
import * as v from "valibot";
import { defineSettings, onSettingsPage, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

/** Hosts, addresses or CIDR ranges (shared with the browser, whose list the settings page edits with this one). */
export const HostName = v.pipe(
  v.string("must be host names"),
  v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.*-]+)(\/\d{1,3})?$/, "must be host names, addresses or CIDR ranges"),
);

export const SETTINGS = defineSettings({
  doc: "",
  schema: v.strictObject({
    allow_private: setting(
      v.boolean("must be true or false"),
      false,
      `fetch_url refuses private, loopback, link-local and other non-public addresses (checked
for every address a name resolves to, and again at every redirect) unless allowed here.`,
    ),
    allow_hosts: setting(
      onSettingsPage(
        v.array(HostName),
        "allow_hosts",
        "Hosts on your network that fetch_url and the browser may open (names, *.lan, addresses, ranges; others on private addresses are refused)",
        "Private addresses",
      ),
      [],
      `Hosts, addresses or CIDR ranges let through anyway, e.g. ["wiki.lan", "*.lan", "10.0.0.0/8"].`,
    ),
    max_kb: setting(wholeNumber(1, 1_048_576), 4096, "A page's body is read up to this (KiB), the rest dropped."),
    timeout_ms: setting(wholeNumber(100, 600_000), 20_000, "The whole fetch, redirects included (milliseconds)."),
    search_provider: setting(
      v.picklist(["", "searxng", "brave"], "must be searxng, brave or empty"),
      "",
      `Web search: "searxng" (your instance at search_url, with its json format enabled) or "brave"
(key in DATA/secrets.json's "values" under the name search_key_secret; search_url, when set,
replaces Brave's endpoint, e.g. with a proxy). Empty: fetch_search says it is not configured.`,
    ),
    search_url: setting(
      v.pipe(
        v.string(),
        v.check((s) => s === "" || /^https?:\/\/\S+$/.test(s), "must be an http(s) URL"),
      ),
      "",
      "The search provider's endpoint (required for searxng).",
    ),
    search_key_secret: setting(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{0,64}$/, "must be a secret name")),
      "",
      `The name of the search API key's entry in DATA/secrets.json's "values" (the plugin gets
the value as search_key; config.toml holds no key).`,
    ),
  }),
  reload: "live",
});
