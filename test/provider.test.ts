/**
 * `homed provider`: one precedence for the model settings (llm.json over config.toml over the
 * default, field by field), each value shown with its source, and changes that touch only what
 * was given — the base URL and the stored key included. Black box: the compiled daemon, the CLI,
 * and the fake model recording what the daemon sends it.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "./harness/binary.ts";
import { startDaemon } from "./harness/daemon.ts";
import { startFakeLlm } from "./harness/fake-llm.ts";

/** The table `homed provider` prints, as {setting: [value, source]}. */
function table(stdout: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const line of stdout.trim().split("\n")) {
    const m = /^(provider|base URL|model|context window|max output|API key) +(\S+(?: tokens)?) *(.*)$/.exec(line);
    if (m) out[m[1] as string] = [m[2] as string, m[3] as string];
  }
  return out;
}

/** `homed provider` on `data` with these flags, and `stdin` (a key) when given. */
const providerIn = (data: string) => (args: string[], stdin?: string) =>
  run([HOMED, "provider", "-data", data, ...args], stdin === undefined ? {} : { stdin });

describe("homed provider", () => {
  test("says where each value comes from; a flag given alone changes only its setting", async () => {
    using dir = tempDir();
    writeFileSync(
      join(dir.path, "config.toml"),
      '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "from-config"\ncontext_window = 32000\n',
    );
    await using _d = await startDaemon(dir.path);
    const provider = (...args: string[]) => run([HOMED, "provider", "-data", dir.path, ...args]);

    let r = await provider();
    expect(r.exitCode).toBe(0);
    expect(table(r.stdout)).toEqual({
      provider: ["openai", "config.toml"],
      "base URL": ["http://127.0.0.1:9/v1", "config.toml"],
      model: ["from-config", "config.toml"],
      "context window": ["32000 tokens", "config.toml"],
      "max output": ["4096 tokens", "default"],
      "API key": ["none", "secrets.json"],
    });

    // -context-window alone applies, and nothing else moves.
    r = await provider("-context-window", "64000");
    expect(r.exitCode).toBe(0);
    expect(table(r.stdout)).toMatchObject({
      "context window": ["64000 tokens", "llm.json (overrides config.toml's 32000)"],
      model: ["from-config", "config.toml"],
      "base URL": ["http://127.0.0.1:9/v1", "config.toml"],
    });

    // -kind and -model without -base-url keep the base URL.
    r = await provider("-kind", "openai", "-model", "from-cli");
    expect(r.exitCode).toBe(0);
    expect(table(r.stdout)).toMatchObject({
      model: ["from-cli", "llm.json (overrides config.toml's from-config)"],
      "base URL": ["http://127.0.0.1:9/v1", "config.toml"],
      "context window": ["64000 tokens", "llm.json (overrides config.toml's 32000)"],
    });

    // Another provider needs its model (the daemon refuses: exit 1, as its other refusals); with
    // one it starts from its official base URL.
    r = await provider("-kind", "anthropic");
    expect({ code: r.exitCode, err: r.stderr }).toEqual({
      code: 1,
      err: "homed: changing the provider to anthropic needs a model too (from-cli is openai's)\n",
    });
    r = await provider("-kind", "anthropic", "-model", "claude-x");
    expect(table(r.stdout)).toMatchObject({
      provider: ["anthropic", "llm.json (overrides config.toml's openai)"],
      "base URL": ["https://api.anthropic.com", "llm.json"],
    });

    // -json carries the same sources.
    const json = JSON.parse((await provider("-json")).stdout);
    expect(json.sources).toEqual({
      provider: "llm.json",
      baseURL: "llm.json",
      model: "llm.json",
      contextWindow: "llm.json",
      maxOutputTokens: "default",
    });
  });

  test("llm.json outweighing config.toml is logged when the daemon starts", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), '[llm]\nprovider = "openai"\nmodel = "from-config"\n');
    writeFileSync(join(dir.path, "llm.json"), '{"model":"from-ui"}\n');
    await using d = await startDaemon(dir.path);
    expect(d.stderr()).toMatch(/msg="llm.json overrides config.toml \[llm\]".*fields=model/);
    const r = await run([HOMED, "provider", "-data", dir.path]);
    expect(table(r.stdout).model).toEqual(["from-ui", "llm.json (overrides config.toml's from-config)"]);
  });

  test("a new base URL keeps the stored key, and the model is called with it", async () => {
    using dir = tempDir();
    await using llm = await startFakeLlm();
    await using _d = await startDaemon(dir.path);
    const provider = providerIn(dir.path);
    let r = await provider(["-kind", "openai", "-base-url", llm.url, "-model", "m", "-key-stdin"], "sk-kept-9876\n");
    expect(table(r.stdout)["API key"]).toEqual(["…9876", "secrets.json"]);

    // The same server by another name: only the base URL changes.
    const other = llm.url.replace("127.0.0.1", "localhost");
    r = await provider(["-base-url", other]);
    expect(r.exitCode).toBe(0);
    expect(table(r.stdout)).toMatchObject({ "base URL": [other, "llm.json"], "API key": ["…9876", "secrets.json"] });

    llm.script([{ text: "hello" }]);
    const chat = await run([HOMED, "chat", "-data", dir.path, "hi"]);
    expect(chat.stdout).toBe("hello\n");
    expect(llm.requests[0]?.headers.authorization).toBe("Bearer sk-kept-9876");
  });

  test("-test with new settings keeps them only when the test passes; a failed one keeps the earlier settings", async () => {
    using dir = tempDir();
    await using llm = await startFakeLlm();
    await using _d = await startDaemon(dir.path);
    const provider = providerIn(dir.path);
    llm.script([{ text: "ok" }]);
    let r = await provider(
      ["-kind", "openai", "-base-url", llm.url, "-model", "m", "-key-stdin", "-test"],
      "sk-good-1234\n",
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("ok: ");

    // A base URL nothing answers and a new key: the test fails, and neither stays.
    r = await provider(["-base-url", "http://127.0.0.1:9/v1", "-key-stdin", "-test"], "sk-typo-0000\n");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("; the earlier settings are kept");
    expect(table(r.stdout)).toMatchObject({ "base URL": [llm.url, "llm.json"], "API key": ["…1234", "secrets.json"] });
    r = await provider([]);
    expect(table(r.stdout)).toMatchObject({ "base URL": [llm.url, "llm.json"], "API key": ["…1234", "secrets.json"] });

    // Without -test a change is taken as given, as before.
    r = await provider(["-model", "other"]);
    expect(table(r.stdout).model).toEqual(["other", "llm.json"]);
  });
});
