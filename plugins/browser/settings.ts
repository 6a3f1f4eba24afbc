/** [tools.browser]: the Chromium the browser plugin drives. It reads them when it starts: a change restarts a running one. */
import * as v from "valibot";
import {
  configFileOnly,
  defineSettings,
  onSettingsPage,
  setting,
  wholeNumber,
} from "../../src/protocol/plugin-settings.ts";

/** Hosts, addresses or CIDR ranges (the settings page edits this list with fetch's as one). */
const HostName = v.pipe(
  v.string("must be host names"),
  v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.*-]+)(\/\d{1,3})?$/, "must be host names, addresses or CIDR ranges"),
);

export const SETTINGS = defineSettings({
  doc: "Chromium driven over CDP (never downloaded); its profile lives in DATA/browser.",
  schema: v.strictObject({
    executable: setting(configFileOnly(v.string()), "/usr/bin/chromium", "The Chromium executable (Debian's package)."),
    allow_private: setting(
      v.boolean("must be true or false"),
      false,
      `Pages on private, loopback and link-local addresses are refused (before you are asked about
the call) unless allowed here: all of them, or the hosts, addresses or CIDR ranges listed.`,
    ),
    allow_hosts: setting(
      onSettingsPage(v.array(HostName), "allow_hosts"),
      [],
      `Private hosts, addresses or CIDR ranges pages may open all the same, e.g. ["router.lan"].`,
    ),
    timeout_ms: setting(wholeNumber(100, 600_000), 30_000, "Longest wait for one navigation or action (milliseconds)."),
  }),
  reload: "plugin-restart",
});
