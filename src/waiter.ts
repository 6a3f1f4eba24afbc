/**
 * `waiter`: the terminal client for a local or a remote homed. At a terminal it is a full-screen
 * chat (src/client/tui-app.ts); `-p TEXT` asks one question for a script and prints the reply;
 * `status` shows the daemon's status. Local by default (the control socket of -data DIR, else
 * $HOMED_DATA or the default data dir); `-connect URL` goes to a remote homed's web API with
 * the login token from -token-file, $HOMED_TOKEN, or DATA/web-token when -data is given.
 * `desktop` opens the web UI in a window of its own, logged in (src/client/desktop.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { ExitCode, HomedError } from "./protocol/errors.ts";
import { chatOnce } from "./client/chat.ts";
import { runDesktop } from "./client/desktop.ts";
import { findBrowser } from "./client/desktop-env.ts";
import { formatStatus } from "./client/format-status.ts";
import { parseFlags } from "./client/flags.ts";
import { parseBaseUrl, remoteLink } from "./client/remote-link.ts";
import { reportError } from "./client/report-error.ts";
import { localLink, type OpenLink } from "./client/waiter-link.ts";
import { WAITER_FLAGS as FLAGS, waiterUsage as usage } from "./client/waiter-usage.ts";
import { dataPaths, defaultDataDir } from "./kernel/data-paths.ts";
import { VERSION } from "./version.ts";

/** The login tokens for -connect in order of precedence: -token-file, $HOMED_TOKEN, DATA/web-token. */
function remoteTokens(values: Record<string, string | boolean>, dataDir?: string): (string | null)[] {
  const file = values["token-file"];
  let given: string | null = null;
  if (typeof file === "string") {
    try {
      given = readFileSync(file, "utf8").trim();
    } catch (err) {
      throw new HomedError("usage", `cannot read the token file ${file}: ${(err as Error).message}`, {
        flag: "token-file",
      });
    }
  }
  const env = process.env.HOMED_TOKEN?.trim() || null;
  const dir = typeof values.data === "string" ? values.data : dataDir;
  const f = dir === undefined ? "" : `${dir}/web-token`;
  return [given, env, f && existsSync(f) ? readFileSync(f, "utf8").trim() : null];
}

/** The login token for -connect, from the first place that has one; null: send none. */
function remoteToken(values: Record<string, string | boolean>): string | null {
  return remoteTokens(values).find((t) => !!t) ?? null;
}

/** Where the packaged system service (and a default homed) serves its web UI. */
const DEFAULT_WEB = "http://127.0.0.1:8080/";

/**
 * The web UI a desktop window opens: -connect's, else the local daemon's [web] listen address;
 * with no daemon on this user's data dir, the system service's default address (the packaged
 * homed runs as user homed, its socket out of this user's reach).
 */
async function desktopBase(values: Record<string, string | boolean>, dir: string): Promise<URL> {
  if (typeof values.connect === "string") return parseBaseUrl(values.connect);
  let link: Awaited<ReturnType<OpenLink>>;
  try {
    link = await localLink(dir, dataPaths(dir).socket)({ event: () => {}, approve: async () => false });
  } catch (err) {
    if (!(err instanceof HomedError && err.code === "not_running")) throw err;
    process.stderr.write(`waiter: no homed on ${dir}; opening ${DEFAULT_WEB} (-connect URL picks another)\n`);
    return parseBaseUrl(DEFAULT_WEB);
  }
  let listen: string;
  try {
    listen = (await link.status()).listen;
  } finally {
    link.close();
  }
  const m = /^(.*):(\d+)$/.exec(listen);
  if (!m || m[2] === "0") {
    throw new HomedError("usage", `the local homed's web address (${listen}) is not a fixed port; pass -connect URL`);
  }
  const host = m[1] === "0.0.0.0" || m[1] === "" ? "127.0.0.1" : m[1] === "[::]" ? "[::1]" : (m[1] as string);
  return parseBaseUrl(`http://${host}:${m[2]}/`);
}

/** Ask for the token once at a terminal; null when stdin is not one (the web UI's login page asks). */
async function askToken(): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  process.stderr.write("homed's login token (from DATA/web-token on its machine): ");
  return await readLine();
}

function linkFor(values: Record<string, string | boolean>): OpenLink {
  if (typeof values.connect === "string") return remoteLink(parseBaseUrl(values.connect), remoteToken(values));
  const dir = typeof values.data === "string" ? values.data : process.env.HOMED_DATA || defaultDataDir();
  return localLink(dir, dataPaths(dir).socket);
}

/** One line from the person at the terminal (an approval answer); null when stdin is not one. */
async function readLine(): Promise<string | null> {
  if (!process.stdin.isTTY) return null;
  const rl = createInterface({ input: process.stdin });
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once("line", resolve);
      rl.once("close", () => resolve(null));
    });
  } finally {
    rl.close();
  }
}

/**
 * How a turn ends for -p's exit status: a reply (the model's, or a plugin's short circuit) is
 * success; an error, a Stop, a denied tool, a blocked input or the iteration limit is not.
 */
const FINISHED = new Set(["done", "short_circuit"]);

async function ask(open: OpenLink, text: string, conv: string, json: boolean): Promise<number> {
  const r = await chatOnce(
    async (h) => await open(h),
    { text, conv },
    {
      stream: process.stdout.isTTY === true && !json,
      out: (t) => void (json ? null : process.stdout.write(t)),
      err: (t) => void process.stderr.write(t),
      readLine,
    },
  );
  if (json) process.stdout.write(`${JSON.stringify(r)}\n`);
  if (FINISHED.has(r.stopReason)) return ExitCode.Ok;
  process.stderr.write(`waiter: the turn ended with ${r.stopReason}${r.error ? `: ${r.error}` : ""}\n`);
  return ExitCode.Failure;
}

async function main(argv: string[]): Promise<number> {
  try {
    // Flags before or after the command, as homed takes them: `waiter status -data DIR` too.
    const { values, rest } = parseFlags(argv, FLAGS, { anywhere: true });
    const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
    // -version wins over a command: homed-desktop runs `waiter "$@" desktop`, so its --version lands here.
    const command =
      values.version === true
        ? "version"
        : (rest[0] ?? (typeof values.p === "string" ? "ask" : tty ? "chat" : "status"));
    if (rest.length > 1) throw new HomedError("usage", `unexpected argument "${rest[1]}"`);
    if (command === "version") {
      process.stdout.write(`waiter ${VERSION} (${process.platform}/${process.arch})\n`);
      return ExitCode.Ok;
    }
    if (command === "help") {
      process.stdout.write(usage());
      return ExitCode.Ok;
    }
    if (command === "desktop") {
      const dir = typeof values.data === "string" ? values.data : process.env.HOMED_DATA || defaultDataDir();
      const base = await desktopBase(values, dir);
      const browser = findBrowser(typeof values.browser === "string" ? values.browser : undefined);
      const tokens = remoteTokens(values, dir);
      return await runDesktop({ base, tokens, browser, ask: askToken, err: (t) => void process.stderr.write(t) });
    }
    const open = linkFor(values);
    const conv = typeof values.conv === "string" ? values.conv : null;
    if (command === "ask") {
      const text = (values.p as string).trim();
      if (!text) throw new HomedError("usage", "-p needs a question", { flag: "p" });
      return await ask(open, text, conv ?? "cli", values.json === true);
    }
    if (command === "chat") {
      if (!tty) throw new HomedError("usage", "the chat needs a terminal; use -p TEXT from scripts", { flag: "p" });
      const { newConvId, runTui } = await import("./client/tui-app.ts");
      return await runTui(open, conv ?? newConvId(), { input: process.stdin, output: process.stdout });
    }
    if (command !== "status") throw new HomedError("usage", `unknown command "${command}"`);
    const link = await open({ event: () => {}, approve: async () => false });
    try {
      const st = await link.status();
      process.stdout.write(values.json ? `${JSON.stringify(st)}\n` : `${formatStatus(st)}\n`);
    } finally {
      link.close();
    }
    return ExitCode.Ok;
  } catch (err) {
    return reportError("waiter", err, usage);
  }
}

process.exitCode = await main(process.argv.slice(2));
