/**
 * "Safe by default" on the web plugin's HTTP surface, from outside: which Host headers a
 * loopback daemon answers (DNS rebinding), how the CSRF checks read Content-Type, when the
 * login token is required, how guessing it is slowed down, and when it is printed.
 * Requests whose headers fetch() would rewrite go over a raw socket (test/harness/raw-http.ts).
 */
import { otherLocalAddress } from "../harness/addresses.ts";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { rawRequest } from "../harness/raw-http.ts";

describe("Host header on a loopback bind", () => {
  test("only loopback IP literals, localhost and allowed_hosts are answered; a repeated Host is refused", async () => {
    using dir = tempDir();
    await Bun.write(join(dir.path, "config.toml"), `[web]\nallowed_hosts = ["homed.lan"]\n`);
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const port = new URL(url).port;
    const status = async (...hosts: string[]) =>
      (await rawRequest(`${url}api/status`, { headers: hosts.map((h) => ["Host", h]) })).status;
    const cases: [string[], number][] = [
      [[`127.0.0.1:${port}`], 200],
      [[`127.1.2.3:${port}`], 200],
      [["127.0.0.1"], 200],
      [[`[::1]:${port}`], 200],
      [[`localhost:${port}`], 200],
      [[`LocalHost:${port}`], 200],
      [[`homed.lan:${port}`], 200],
      [[`HOMED.LAN`], 200],
      [[`127.attacker.example:${port}`], 403],
      [[`127.0.0.1.nip.io:${port}`], 403],
      [[`localhost.attacker.example:${port}`], 403],
      [[`localhost.:${port}`], 403],
      [[`127.0.0.256:${port}`], 403],
      [[`[::2]:${port}`], 403],
      [[`evil.homed.lan:${port}`], 403],
      [[`127.0.0.1:${port}`, `attacker.example:${port}`], 403],
      [[`attacker.example:${port}`, `127.0.0.1:${port}`], 403],
      [[`127.0.0.1:${port}`, `127.0.0.1:${port}`], 403],
    ];
    const got: [string[], number][] = [];
    for (const [hosts] of cases) got.push([hosts, await status(...hosts)]);
    expect(got).toEqual(cases);
    // The refusal says why, so an owner behind a proxy knows what to add.
    const refused = await rawRequest(`${url}api/status`, { headers: [["Host", "127.attacker.example"]] });
    expect(refused.body).toContain("allowed_hosts");
  });

  test("an exposed bind leaves names to the token but still refuses a repeated Host", async () => {
    using dir = tempDir();
    const token = "correct-horse-battery-staple-42";
    await using d = await startDaemon(dir.path, { args: ["-listen", "0.0.0.0:0"], env: { HOMED_WEB_TOKEN: token } });
    const url = await webUrlOf(d);
    const auth: [string, string] = ["Authorization", `Bearer ${token}`];
    expect((await rawRequest(`${url}api/status`, { headers: [["Host", "homed.example.org"], auth] })).status).toBe(200);
    expect(
      (await rawRequest(`${url}api/status`, { headers: [["Host", "homed.example.org"], ["Host", "127.0.0.1"], auth] }))
        .status,
    ).toBe(403);
  });
});

describe("CSRF: Content-Type is a media type, not a substring", () => {
  test("only application/json (any case, any parameters) counts as JSON on /v1 and /api", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const post = async (path: string, type: string, extra: Record<string, string> = {}) =>
      (
        await fetch(url + path, {
          method: "POST",
          headers: { "content-type": type, ...extra },
          body: JSON.stringify({ messages: [] }),
        })
      ).status;
    const got: [string, string, number][] = [];
    for (const type of [
      "text/plain; a=application/json",
      "text/plain;application/json",
      "application/jsonx",
      "application/json-seq",
      "multipart/form-data; boundary=application/json",
    ]) {
      got.push(["v1/chat/completions", type, await post("v1/chat/completions", type)]);
      got.push(["api/cancel", type, await post("api/cancel", type, { "x-homed": "1" })]);
    }
    expect(got.filter(([, , status]) => status !== 415)).toEqual([]);
    // The real thing gets past the check (and then fails validation of the empty body: /v1
    // answers that with 400, as OpenAI's API does).
    expect(await post("v1/chat/completions", "Application/JSON ; charset=utf-8")).toBe(400);
    expect(await post("api/cancel", "application/json", { "x-homed": "1" })).toBe(422);
  });
});

describe("a configured token is enforced on loopback too", () => {
  for (const [how, setup] of [
    [
      "[web] token",
      (dir: string, token: string) =>
        Bun.write(join(dir, "config.toml"), `[web]\ntoken = "${token}"\n`).then(() => ({})),
    ],
    ["HOMED_WEB_TOKEN", async (_dir: string, token: string) => ({ HOMED_WEB_TOKEN: token })],
  ] as const) {
    test(`set by ${how}: /api and /v1 answer 401 without it and 200 with it; the page asks to log in`, async () => {
      using dir = tempDir();
      const token = "correct-horse-battery-staple-42";
      const env = await setup(dir.path, token);
      await using d = await startDaemon(dir.path, { env });
      const url = await webUrlOf(d);
      expect((await fetch(`${url}api/status`)).status).toBe(401);
      expect((await fetch(`${url}v1/models`)).status).toBe(401);
      // The person's whole memory is behind the token like everything else.
      expect((await fetch(`${url}api/memory/search?q=anything`)).status).toBe(401);
      const bearer = { authorization: `Bearer ${token}` };
      expect((await fetch(`${url}api/memory/search?q=anything`, { headers: bearer })).status).toBe(200);
      expect((await fetch(`${url}api/memory/search?q=`, { headers: bearer })).status).toBe(400);
      // So are renaming, forgetting and exporting a conversation.
      const convRoutes = [
        ["POST", "api/conversations/c1/rename", '{"title":"x"}'],
        ["POST", "api/conversations/c1/forget", "{}"],
        ["GET", "api/conversations/c1/export?format=md", undefined],
      ] as const;
      for (const [method, path, body] of convRoutes) {
        const headers = { "content-type": "application/json", "x-homed": "1" };
        expect([path, (await fetch(url + path, { method, headers, body })).status]).toEqual([path, 401]);
        const authed = (await fetch(url + path, { method, headers: { ...headers, ...bearer }, body })).status;
        // With the token: an unknown conversation cannot be renamed or forgotten; an export is empty.
        expect([path, authed]).toEqual([path, method === "GET" ? 200 : 404]);
      }
      expect((await fetch(`${url}api/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(`${url}v1/models`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect(await (await fetch(`${url}api/session`)).json()).toMatchObject({ exposed: false, authenticated: false });
      expect(await (await fetch(`${url}healthz`)).json()).toEqual({ ok: true });
      const login = await fetch(`${url}api/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-homed": "1" },
        body: JSON.stringify({ token }),
      });
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
      expect(await (await fetch(`${url}api/session`, { headers: { cookie } })).json()).toMatchObject({
        authenticated: true,
      });
      expect((await fetch(`${url}api/status`, { headers: { cookie } })).status).toBe(200);
    });
  }

  test("without one, loopback needs no login and ignores a made-up bearer token", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    expect((await fetch(`${url}api/status`)).status).toBe(200);
    expect((await fetch(`${url}v1/models`, { headers: { authorization: "Bearer sk-anything" } })).status).toBe(200);
    expect(await (await fetch(`${url}api/session`)).json()).toMatchObject({ exposed: false, authenticated: true });
  });
});

describe("the generated token on stderr", () => {
  test("a loopback daemon keeps it in DATA/web-token and never prints it", async () => {
    using dir = tempDir();
    const d = await startDaemon(dir.path);
    await d.stop();
    const token = (await Bun.file(join(dir.path, "web-token")).text()).trim();
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(d.stderr()).not.toContain(token);
  });
});

describe("guessing the token is slowed down per client", () => {
  test("after 5 wrong tokens a client gets 429 with Retry-After, even with the right one; other clients do not; success resets", async () => {
    using dir = tempDir();
    const token = "correct-horse-battery-staple-42";
    await using d = await startDaemon(dir.path, { args: ["-listen", "0.0.0.0:0"], env: { HOMED_WEB_TOKEN: token } });
    const url = await webUrlOf(d);
    const status = (bearer: string, localAddress = "127.0.0.1") =>
      rawRequest(`${url}api/status`, {
        headers: [
          ["Host", "homed.example"],
          ["Authorization", `Bearer ${bearer}`],
        ],
        localAddress,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await status(`wrong-guess-number-${i}`)).status);
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    // While blocked nothing is checked: the right token, a login and a cookie all wait.
    const blocked = await status(token);
    expect(blocked.status).toBe(429);
    const wait = Number(blocked.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(1);
    const login = await fetch(`${url}api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-homed": "1" },
      body: JSON.stringify({ token }),
    });
    expect(login.status).toBe(429);
    // Another loopback address is this machine again; another source address is not affected.
    expect((await status(token, "127.0.0.2")).status).toBe(429);
    const other = otherLocalAddress();
    if (other) expect((await status(token, other)).status).toBe(200);
    // Once the wait is over (the only clock this test can wait on) the right token gets in and
    // clears the record: 5 free tries again, then 429.
    await Bun.sleep(wait * 1000);
    expect((await status(token)).status).toBe(200);
    const again: number[] = [];
    for (let i = 0; i < 6; i++) again.push((await status(`wrong-again-${i}`)).status);
    expect(again).toEqual([401, 401, 401, 401, 401, 429]);
  });

  test("wrong logins count the same way; a wrong session cookie is cleared so it is not sent again", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, {
      args: ["-listen", "0.0.0.0:0"],
      env: { HOMED_WEB_TOKEN: "correct-horse-battery-staple-42" },
    });
    const url = await webUrlOf(d);
    // A stale cookie (the token changed since): refused, cleared, and counted as one guess.
    const stale = await rawRequest(`${url}api/status`, {
      headers: [
        ["Host", "homed.example"],
        ["Cookie", "homed_session=from-an-old-token"],
      ],
      localAddress: "127.0.0.3",
    });
    expect(stale.status).toBe(401);
    expect(stale.headers["set-cookie"]).toMatch(/^homed_session=;.*Max-Age=0/);
    // Wrong logins from another loopback address are the same machine's guesses: 4 more, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${url}api/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-homed": "1" },
        body: JSON.stringify({ token: `guess-${i}` }),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429]);
  });
});
