/**
 * A login on loopback too, by default: another account on the same machine reaches 127.0.0.1
 * as well, so without one it could list conversations, read the live stream and answer
 * approvals. The daemon prints a one-time login link when the web UI starts listening, and
 * `homed open` makes another; `[web] auth = "none"` is the owner's opt-out.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { spawnDaemon, startDaemon, webUrlOf } from "../harness/daemon.ts";

const LINK = /open (http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]+) to log in/;

describe("loopback login", () => {
  test("by default every API needs a login; the printed link logs a browser in once; homed open makes another", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, { loopbackLogin: true });
    const url = await webUrlOf(d);
    await d.waitFor(LINK);
    const printed = LINK.exec(d.stderr())?.[1] as string;
    expect(printed.startsWith(url)).toBe(true);

    // Another local account, with no credentials: nothing to read, no approval to answer.
    expect((await fetch(`${url}api/conversations`)).status).toBe(401);
    const approve = await fetch(`${url}api/approve`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ stream: "s", callId: "c", approved: true }),
    });
    expect(approve.status).toBe(401);
    expect((await fetch(`${url}v1/models`)).status).toBe(401);
    const health = await fetch(`${url}healthz`);
    expect(Object.keys((await health.json()) as object)).toEqual(["ok"]);

    // The owner's API client: the bearer token from DATA/web-token.
    const token = readFileSync(join(dir.path, "web-token"), "utf8").trim();
    const models = await fetch(`${url}v1/models`, { headers: { authorization: `Bearer ${token}` } });
    expect(models.status).toBe(200);

    // The printed link: a session cookie, then the UI; a second use is refused.
    const first = await fetch(printed, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/");
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(cookie).toStartWith("homed_session=");
    expect((await fetch(`${url}api/conversations`, { headers: { cookie } })).status).toBe(200);
    const again = await fetch(printed, { redirect: "manual" });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain("homed open");

    // homed open: a new link, good once.
    const open = await run([HOMED, "open", "-data", dir.path, "-print"]);
    expect(open.exitCode).toBe(0);
    const fresh = open.stdout.trim();
    expect(fresh).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?code=[A-Za-z0-9_-]+$/);
    expect(fresh).not.toBe(printed);
    expect((await fetch(fresh, { redirect: "manual" })).status).toBe(303);
    expect((await fetch(fresh, { redirect: "manual" })).status).toBe(401);
    // A made-up code is a wrong guess like any other.
    expect((await fetch(`${url}login?code=AAAAAAAAAAAAAAAAAAAAAA`, { redirect: "manual" })).status).toBe(401);
  }, 60_000);

  test("under systemd (stderr is the journal) the link goes to DATA/login-link, 0600, and the journal only says where", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, { loopbackLogin: true, env: { JOURNAL_STREAM: "8:12345" } });
    const url = await webUrlOf(d);
    const file = join(dir.path, "login-link");
    await d.waitFor(/a one-time login link is in \S+login-link/);
    expect(d.stderr()).not.toContain("login?code=");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const link = readFileSync(file, "utf8").trim();
    expect(link.startsWith(`${url}login?code=`)).toBe(true);
    expect((await fetch(link, { redirect: "manual" })).status).toBe(303);
  });

  test('[web] auth = "none" trusts local clients as before, and says so', async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), '[web]\nauth = "none"\n');
    await using d = await startDaemon(dir.path, { loopbackLogin: true });
    const url = await webUrlOf(d);
    await d.waitFor('(no login on this machine: [web] auth = "none")');
    expect((await fetch(`${url}api/conversations`)).status).toBe(200);
    const open = await run([HOMED, "open", "-data", dir.path, "-print"]);
    expect(open.stdout.trim()).toBe(url);
    expect((await fetch(`${url}login?code=x`, { redirect: "manual" })).status).toBe(303);
  }, 60_000);

  test("any other auth value is refused at start, naming the setting", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), '[web]\nauth = "nobody"\n');
    const d = spawnDaemon(dir.path, { loopbackLogin: true });
    const code = await d.proc.exited;
    expect(code).toBe(78);
    expect(d.stderr()).toContain('web.auth: must be \\"token\\" or \\"none\\"');
  }, 30_000);
});
