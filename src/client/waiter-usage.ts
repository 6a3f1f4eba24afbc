/**
 * `waiter help`: the client's commands and flags as data, and the text `waiter help` prints from
 * them. Pure (no I/O, nothing runs on import), so scripts/dist/man.ts writes waiter(1) and
 * homed-desktop(1) from the same table.
 */
import { type FlagSpec, formatFlags } from "./flags.ts";

export const WAITER_FLAGS: FlagSpec[] = [
  {
    name: "data",
    kind: "string",
    arg: "DIR",
    usage:
      "data directory of the local daemon (default $XDG_DATA_HOME/homed, or $HOMED_DATA); with -connect, where web-token is",
  },
  { name: "connect", kind: "string", arg: "URL", usage: "a remote homed's web address, e.g. https://host:8080" },
  {
    name: "token-file",
    kind: "string",
    arg: "FILE",
    usage: "the login token for -connect (else $HOMED_TOKEN, else DATA/web-token with -data)",
  },
  {
    name: "p",
    kind: "string",
    arg: "TEXT",
    usage: "ask TEXT, print the reply and exit: 0 when the turn finished, 1 when it did not (error, denied…)",
  },
  { name: "conv", kind: "string", arg: "ID", usage: "the conversation (default: cli for -p; a new one in the TUI)" },
  { name: "json", kind: "bool", usage: "print the answer (status, or -p's turn) as JSON" },
  {
    name: "browser",
    kind: "string",
    arg: "PATH",
    usage: "desktop: the Chromium, Chrome or Edge to open (default $HOMED_BROWSER, else the first one found)",
  },
  { name: "version", kind: "bool", usage: "print the version and exit" },
];

/** One way to run waiter: the command line after `waiter`, and what it does. */
export interface WaiterUsage {
  synopsis: string;
  summary: string;
}

export const WAITER_USAGES: WaiterUsage[] = [
  { synopsis: "[-data DIR | -connect URL] [-conv ID]", summary: "chat full-screen (at a terminal)" },
  { synopsis: "[-data DIR | -connect URL] -p TEXT [-conv ID]", summary: "ask once, print the reply" },
  { synopsis: "[-data DIR | -connect URL] [-json] status", summary: "show the daemon's status" },
  { synopsis: "[-data DIR | -connect URL] desktop", summary: "open the web UI in a window, logged in" },
  { synopsis: "version (or -version)", summary: "print the version" },
];

/** The flags `waiter desktop` (and so homed-desktop, which runs it) reads. */
export const DESKTOP_FLAGS: readonly string[] = ["data", "connect", "token-file", "browser", "version"];

export const WAITER_TAGLINE = "the homed client";

/** The keys of the full-screen chat, as `waiter help` breaks the lines. */
export const WAITER_CHAT_KEYS: readonly string[] = [
  "In the chat: Enter sends, Esc or Ctrl-C stops a reply, y/n/a answers an approval (a = always),",
  "Tab picks a conversation, Ctrl-N starts one, Ctrl-P shows the plugins, Ctrl-D quits.",
];

export function waiterUsage(): string {
  const heads = WAITER_USAGES.map((u) => `waiter ${u.synopsis}`);
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  return [
    `waiter — ${WAITER_TAGLINE}`,
    "",
    "Usage:",
    ...WAITER_USAGES.map((u, i) => `  ${(heads[i] as string).padEnd(width)}${u.summary}`),
    "",
    "Flags:",
    formatFlags(WAITER_FLAGS),
    "",
    ...WAITER_CHAT_KEYS,
    "",
  ].join("\n");
}
