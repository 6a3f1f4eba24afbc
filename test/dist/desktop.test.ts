/**
 * The desktop app (`waiter desktop`, installed as homed-desktop) against the compiled daemon with
 * a login token set: it opens Debian's Chromium in --app mode on the web UI and logs the page in
 * through the private debugging pipe, so the window shows the app, not the login page, and the
 * token appears on no process's command line. The browser is wrapped only to run headless with
 * a debugging port the test reads the window through (screenshot in dist/screenshots/).
 * A wrong token leaves the window on the web UI's own login page; with -data the launcher reads
 * the local daemon's web address from its status.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM, SHOTS } from "../harness/browser.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { tempDir, WAITER } from "../harness/binary.ts";
import { poll } from "../harness/poll.ts";

const TOKEN = "desktop-test-token-4f1c9a7e2b6d8035";
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A port free right now, for a daemon whose web address the launcher must read from its status. */
function freePort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/**
 * Start homed, then `waiter desktop`: remote (-connect, the token required, `tokenText` in a
 * token file), or local (tokenText null: -data of a daemon on loopback, which needs no login).
 */
async function openDesktop(
  tokenText: string | null,
): Promise<{ browser: Browser; url: string; launcher: Bun.Subprocess }> {
  const dir = tempDir();
  cleanup.push(() => dir[Symbol.dispose]());
  const data = join(dir.path, "data");
  const daemon =
    tokenText === null
      ? await startDaemon(data, { args: ["-listen", `127.0.0.1:${freePort()}`] })
      : await startDaemon(data, { env: { HOMED_WEB_TOKEN: TOKEN } });
  cleanup.push(() => daemon[Symbol.asyncDispose]());
  const url = await webUrlOf(daemon);
  const tokenFile = join(dir.path, "token");
  writeFileSync(tokenFile, `${tokenText ?? ""}\n`, { mode: 0o600 });
  const wrapper = join(dir.path, "chromium-headless");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec ${CHROMIUM} --headless=new --disable-gpu --remote-debugging-port=0 --window-size=1200,780 "$@"\n`,
    { mode: 0o755 },
  );
  const config = join(dir.path, "config");
  const where = tokenText === null ? ["-data", data] : ["-connect", url, "-token-file", tokenFile];
  const launcher = Bun.spawn([WAITER, ...where, "-browser", wrapper, "desktop"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path, XDG_CONFIG_HOME: config },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  cleanup.push(async () => {
    launcher.kill("SIGTERM");
    await launcher.exited;
  });
  const portFile = join(config, "homed/desktop/profile/DevToolsActivePort");
  await poll(() => existsSync(portFile) && readFileSync(portFile, "utf8").includes("\n"), Boolean, {
    what: "the window's browser to start",
    timeoutMs: 30_000,
  });
  const port = readFileSync(portFile, "utf8").split("\n")[0];
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  cleanup.push(() => browser.close());
  return { browser, url, launcher };
}

test("the window opens the web UI logged in, and the token is on no command line", async () => {
  const { browser, url, launcher } = await openDesktop(TOKEN);
  const page = await poll(
    () =>
      browser
        .contexts()[0]
        ?.pages()
        .find((p) => p.url().startsWith(url)),
    (p) => p !== undefined,
    { what: "the app window's page", timeoutMs: 30_000 },
  );
  if (!page) throw new Error("no page");
  await poll(
    async () => {
      try {
        return await page.evaluate(
          async () => ((await (await fetch("/api/session")).json()) as { authenticated: boolean }).authenticated,
        );
      } catch {
        return false; // the page is reloading after its login
      }
    },
    (ok) => ok,
    { what: "the window to be logged in", timeoutMs: 30_000 },
  );
  await page.getByText("New chat").waitFor({ timeout: 15_000 });
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, "desktop-window.png") });
  // Every process on the machine: the token is on none of their command lines.
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    expect(cmdline).not.toContain(TOKEN);
  }
  expect(launcher.exitCode).toBeNull();
}, 90_000);

test("with a wrong token the window shows the web UI's login page", async () => {
  const { browser, url } = await openDesktop("not-the-token");
  const page = await poll(
    () =>
      browser
        .contexts()[0]
        ?.pages()
        .find((p) => p.url().startsWith(url)),
    (p) => p !== undefined,
    { what: "the app window's page", timeoutMs: 30_000 },
  );
  if (!page) throw new Error("no page");
  await page.waitForLoadState("load");
  const session = await page.evaluate(
    async () => (await (await fetch("/api/session")).json()) as { authenticated: boolean },
  );
  expect(session.authenticated).toBe(false);
}, 90_000);

test("with -data, the window opens the local daemon's web address from its status", async () => {
  const { browser, url } = await openDesktop(null);
  const page = await poll(
    () =>
      browser
        .contexts()[0]
        ?.pages()
        .find((p) => p.url().startsWith(url)),
    (p) => p !== undefined,
    { what: `a window on ${url}`, timeoutMs: 30_000 },
  );
  if (!page) throw new Error("no page");
  await page.getByText("New chat").waitFor({ timeout: 15_000 });
}, 90_000);
