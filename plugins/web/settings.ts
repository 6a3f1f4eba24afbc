/**
 * [web]: who may use the web UI and the HTTP APIs, and how much a request may carry. The login
 * token itself is the kernel's (the control socket's `homed open` links and the command line's
 * clients use it too): the kernel reads the `token` field by its declaration (kernelReads) and
 * hands this plugin the token in force, wherever it came from. Read at start, so a change waits
 * for homed's next start. Built-in only: it carries the token.
 */
import * as v from "valibot";
import { KERNEL_READS, kernelReads } from "../../src/protocol/kernel-reads.ts";
import { defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

export const WebSettings = v.strictObject({
  auth: setting(
    v.picklist(["token", "none"], 'must be "token" or "none"'),
    "token",
    `Who may use the web UI and the HTTP APIs on a loopback address. "token": a login is needed
there too, since other accounts on this machine reach 127.0.0.1 as well; the daemon prints a
one-time login link when it starts, and "homed open" makes another. "none": trust every
local client (a machine nobody else uses). Beyond loopback the token is always required.`,
  ),
  token: setting(
    kernelReads(
      v.pipe(
        v.string(),
        v.check((t) => t === "" || t.length >= 16, "must be at least 16 characters (or empty to generate one)"),
      ),
      KERNEL_READS.loginToken,
    ),
    "",
    `Login token for the web UI and the HTTP APIs (Authorization: Bearer for API clients). Set
here (or by HOMED_WEB_TOKEN), or empty: one is generated at first start into DATA/web-token
(0600), printed once when listen is not a loopback address.`,
  ),
  metrics_token: setting(
    v.pipe(
      v.string(),
      v.check((t) => t === "" || t.length >= 16, "must be at least 16 characters (or empty for none)"),
    ),
    "",
    `A second bearer token that opens GET /metrics and nothing else, for a Prometheus scraper that
should not hold the login token (which opens every API). Empty: only the login token reads the metrics.`,
  ),
  allowed_hosts: setting(
    v.array(
      v.pipe(
        v.string("must be host names"),
        v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)$/, "must be host names without a port, e.g. homed.lan"),
      ),
    ),
    [],
    `While listen is a loopback address, requests are answered only for the Host names 127.x.x.x,
[::1] and localhost (so no web page can reach homed through DNS rebinding). Add the names a
reverse proxy or your own DNS uses for it, without the port, e.g. ["homed.lan"].`,
  ),
  max_body_kb: setting(wholeNumber(16, 1_048_576), 10_240, "Largest HTTP request body accepted (KiB)."),
  request_timeout_s: setting(
    // At most 255: the runtime's idle timer.
    wholeNumber(1, 255),
    30,
    "Seconds a client has to send a request's body; an idle connection is closed after as long.",
  ),
});
export type WebSettings = v.InferOutput<typeof WebSettings>;

/**
 * What this plugin reads of [web]: the token in force, and token_set when the owner set it
 * ([web] token or HOMED_WEB_TOKEN), so it is required even on a loopback bind.
 */
export const WebConfig = v.object({
  token: v.string(),
  token_set: v.boolean(),
  auth: v.picklist(["token", "none"]),
  metrics_token: v.string(),
  max_body_kb: v.number(),
  allowed_hosts: v.array(v.string()),
  request_timeout_s: v.number(),
});
export type WebConfig = v.InferOutput<typeof WebConfig>;

export const SETTINGS = defineSettings({
  doc: "",
  schema: WebSettings,
  reload: "daemon-restart",
  builtinOnly: true,
  resolve: (value, ctx): WebConfig => ({ ...value, token: ctx.loginToken(), token_set: value.token !== "" }),
});
