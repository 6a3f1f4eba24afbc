/** [channels.a2a] in config.toml: closed defaults, and the mistakes it refuses by name. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/kernel/config/config.ts";
import { valueAt } from "../../src/kernel/config/sections.ts";
import type { A2aConfig } from "../../plugins/a2a/settings.ts";
import { tempDir } from "../harness/binary.ts";

function load(text: string) {
  using dir = tempDir();
  const file = join(dir.path, "config.toml");
  writeFileSync(file, text);
  return valueAt(loadConfig({ file, env: {} }), "channels.a2a") as A2aConfig;
}

describe("[channels.a2a]", () => {
  test("defaults: served, nobody trusted, no peers, no agents to call", () => {
    expect(load("")).toMatchObject({ enabled: true, peers: [], trusted_peers: [], agents: [] });
  });

  test("peers with their tokens, trusted ones by name, agents by name and URL", () => {
    const a2a = load(
      `[channels.a2a]\npeers = [{ name = "laptop", token = "0123456789abcdef" }]\ntrusted_peers = ["laptop", "owner"]\nagents = [{ name = "desk", url = "http://10.0.0.2:8080" }]\n`,
    );
    expect(a2a.peers).toEqual([{ name: "laptop", token: "0123456789abcdef" }]);
    expect(a2a.trusted_peers).toEqual(["laptop", "owner"]);
    expect(a2a.agents).toEqual([{ name: "desk", url: "http://10.0.0.2:8080", token: "" }]);
  });

  test("refuses short tokens, unknown trusted names, reserved peer names and non-http agents", () => {
    expect(() => load(`[channels.a2a]\npeers = [{ name = "laptop", token = "short" }]\n`)).toThrow(
      "channels.a2a.peers.0.token: must be at least 16 characters",
    );
    expect(() => load(`[channels.a2a]\ntrusted_peers = ["stranger"]\n`)).toThrow(
      'trusted_peers must name peers listed in peers, or "owner"',
    );
    expect(() => load(`[channels.a2a]\npeers = [{ name = "anon", token = "0123456789abcdef" }]\n`)).toThrow(
      'must not use the names "owner" and "anon"',
    );
    expect(() => load(`[channels.a2a]\nagents = [{ name = "x", url = "file:///etc/passwd" }]\n`)).toThrow(
      "must be http or https URLs",
    );
    expect(() => load(`[channels.a2a]\nopen = true\n`)).toThrow("channels.a2a.open: unknown setting");
  });
});
