/**
 * The web plugin's HTTP surface from outside: bad input gets a clear 4xx and nothing breaks,
 * cross-site requests and foreign Host headers are refused, a non-loopback bind needs the login
 * token, and the OpenAI-compatible API works with the official `openai` client.
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { startFakeLlm } from "../harness/fake-llm.ts";

const json = (body: unknown, extra: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-homed": "1", ...extra },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

describe("bad HTTP input", () => {
  test("wrong types, bad JSON, no JSON, huge bodies and unknown routes get a clear 4xx; the daemon stays up", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path, { env: { HOMED_WEB_MAX_BODY_KB: "16" } });
    const url = await webUrlOf(d);
    const cases: [string, RequestInit, number, string][] = [
      ["api/chat", json({ conv: 5, text: [] }), 422, "invalid request"],
      ["api/chat", json({ conv: "ok", text: "" }), 422, "message is empty"],
      ["api/chat", json("{not json"), 400, "not valid JSON"],
      // Invalid UTF-8 is refused where it is, never turned into U+FFFD in silence.
      [
        "api/chat",
        {
          ...json(""),
          body: new Uint8Array([...Buffer.from('{"conv":"u","text":"a'), 0xff, 0xfe, ...Buffer.from('"}')]),
        },
        400,
        "not valid UTF-8 (at byte 21)",
      ],
      [
        "v1/chat/completions",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: new Uint8Array([
            ...Buffer.from('{"messages":[{"role":"user","content":"'),
            0xc3,
            0x28,
            ...Buffer.from('"}]}'),
          ]),
        },
        400,
        "not valid UTF-8 (at byte 39)",
      ],
      [
        "api/chat",
        { method: "POST", headers: { "x-homed": "1", "content-type": "text/plain" }, body: "hi" },
        415,
        "Content-Type: application/json",
      ],
      ["api/chat", json({ conv: "x", text: "y".repeat(64 * 1024) }), 413, "larger than 16 KiB"],
      ["api/provider", json({ provider: "skynet", model: "m" }), 422, "provider must be openai or anthropic"],
      ["api/conversations/%00bad", { method: "GET" }, 400, ""],
      ["api/approve", json({ stream: "nope", callId: "x", approved: true }), 404, "no question is waiting"],
      // Kernel refusals keep their meaning over HTTP (src/protocol/errors.ts, one mapping).
      ["api/plugins/nope/restart", json({}), 404, "no plugin named nope"],
      ["api/plugins/mcp/restart", json({}), 409, "mcp cannot start: not needed"],
      [
        "v1/chat/completions",
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [] }) },
        400,
        "messages is empty",
      ],
      ["nowhere", { method: "GET" }, 404, "not found"],
    ];
    for (const [path, init, status, text] of cases) {
      const res = await fetch(url + path, init);
      const body = (await res.json()) as { error?: unknown };
      expect([path, res.status]).toEqual([path, status]);
      expect(JSON.stringify(body.error)).toContain(text);
    }
    expect((await run([HOMED, "status", "-data", dir.path])).exitCode).toBe(0);
    expect((await fetch(`${url}healthz`)).status).toBe(200);
  });

  test("cross-site requests and foreign Host headers are refused", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const setProvider = { provider: "openai", model: "m" };
    let res = await fetch(`${url}api/provider`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(setProvider),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toContain("X-Homed");
    res = await fetch(`${url}api/provider`, json(setProvider, { origin: "https://evil.example" }));
    expect(res.status).toBe(403);
    res = await fetch(`${url}v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(res.status).toBe(415);
    res = await fetch(`${url}api/status`, { headers: { host: "rebind.evil.example:8080" } });
    expect(res.status).toBe(403);
    // None of it changed the provider.
    expect(((await (await fetch(`${url}api/provider`)).json()) as { configured: boolean }).configured).toBe(false);
  });
});

describe("login when listening beyond loopback", () => {
  test("without the token /api and /v1 answer 401; a bearer token or the login cookie lets you in", async () => {
    using dir = tempDir();
    const token = "correct-horse-battery-staple-42";
    await Bun.write(join(dir.path, "config.toml"), `[web]\ntoken = "${token}"\n`);
    // Bound to every address so the plugin treats itself as exposed; the test only ever talks
    // to 127.0.0.1.
    await using d = await startDaemon(dir.path, { args: ["-listen", "0.0.0.0:0"] });
    const url = await webUrlOf(d);
    expect((await fetch(`${url}api/status`)).status).toBe(401);
    expect((await fetch(`${url}v1/models`)).status).toBe(401);
    expect(
      (await fetch(`${url}api/status`, { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status,
    ).toBe(401);
    expect((await fetch(`${url}api/status`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // The page shell (the login page) and a bare health answer stay reachable.
    expect((await fetch(url)).status).toBe(200);
    expect(await (await fetch(`${url}healthz`)).json()).toEqual({ ok: true });

    expect((await fetch(`${url}api/login`, json({ token: "nope" }))).status).toBe(401);
    const login = await fetch(`${url}api/login`, json({ token }));
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(login.headers.get("set-cookie")).toContain("HttpOnly");
    expect(login.headers.get("set-cookie")).toContain("SameSite=Strict");
    expect((await fetch(`${url}api/status`, { headers: { cookie } })).status).toBe(200);
    // A cookie alone is not enough to change things: the CSRF header is required too.
    const noHeader = await fetch(`${url}api/provider`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ provider: "openai", model: "m" }),
    });
    expect(noHeader.status).toBe(403);
    expect((await fetch(`${url}api/provider`, json({ provider: "openai", model: "m" }, { cookie }))).status).toBe(200);
    // No token file is written when config.toml sets one.
    expect(await Bun.file(join(dir.path, "web-token")).exists()).toBe(false);
  });

  test("without a configured token one is generated at first start, 0600, printed once", async () => {
    using dir = tempDir();
    // Exposed: a loopback daemon never prints it (test/web/security.test.ts).
    let d = await startDaemon(dir.path, { args: ["-listen", "0.0.0.0:0"] });
    const printed = /web login token \([^)]*\): (\S+)/.exec(d.stderr())?.[1];
    await d.stop();
    const file = Bun.file(join(dir.path, "web-token"));
    expect((await file.text()).trim()).toBe(printed as string);
    expect((await import("node:fs")).statSync(join(dir.path, "web-token")).mode & 0o777).toBe(0o600);
    expect(await Bun.file(join(dir.path, "logs", "homed.log")).text()).not.toContain(printed as string);
    d = await startDaemon(dir.path, { args: ["-listen", "0.0.0.0:0"] });
    expect(d.stderr()).not.toContain("web login token");
    await d.stop();
  });
});

describe("OpenAI-compatible API", () => {
  test("the official openai client lists the model and chats, streaming and not", async () => {
    using dir = tempDir();
    await using llm = await startFakeLlm();
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const set = await run([
      HOMED,
      "provider",
      "-data",
      dir.path,
      "-kind",
      "openai",
      "-base-url",
      llm.url,
      "-model",
      "upstream",
    ]);
    expect(set.exitCode).toBe(0);
    const client = new OpenAI({ baseURL: `${url}v1`, apiKey: "unused-on-loopback" });
    const models = await client.models.list();
    // The provider lists no models (the fake answers 404): "homed" and the configured one remain.
    expect(models.data.map((m) => m.id)).toEqual(["homed", "upstream"]);

    llm.script([{ text: "Plain answer.", usage: { input: 5, output: 2 } }]);
    const done = await client.chat.completions.create({
      model: "homed",
      messages: [{ role: "user", content: "hello" }],
      user: "tester",
    });
    expect(done.choices[0]!.message.content).toBe("Plain answer.");
    expect(done.usage?.total_tokens).toBe(7);

    llm.script([{ text: "Streamed answer, in pieces." }]);
    const stream = await client.chat.completions.create({
      model: "homed",
      messages: [{ role: "user", content: "again" }],
      user: "tester",
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("Streamed answer, in pieces.");
    // Stateless, as the API is: the second call sees the request's messages, not the first turn.
    const sent = (llm.requests[1]!.body as { messages: { role: string; content: string }[] }).messages.map(
      (m) => m.content,
    );
    expect(sent).not.toContain("Plain answer.");
    expect(sent.at(-1)).toBe("again");
  });
});
