/**
 * code_run through dist/homed: TypeScript and JavaScript on the binary's own Bun runtime
 * (homed re-invoked with BUN_BE_BUN=1 inside the sandbox), Python on the system's python3;
 * output, exit status and the workspace files a program produced; the same confinement as
 * shell_run.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { toolTurn } from "./tool-turns.ts";

describe("code plugin", () => {
  test("runs TypeScript, JavaScript and Python in the sandbox and lists the files they produced", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[approval]\nallow = ["code_run"]\n\n[trust]\ntools = ["code_run"]\n`,
    );
    await using rig = await startAgentRig(dir.path, {
      plugin: false,
      env: { HOMED_WEB_TOKEN: "tok-should-never-leak-0123456789", CLOUD_SECRET: "cloud-should-never-leak" },
    });
    expect(
      ((await rig.status()).tools as { name: string; risk: string }[]).find((t) => t.name === "code_run")?.risk,
    ).toBe("exec");
    // A file that exists before the run, for "changed" (and one left alone, not listed).
    await Bun.write(join(dir.path, "workspace/data.txt"), "1\n2\n3\n");
    await Bun.write(join(dir.path, "workspace/untouched.txt"), "same");
    const outside = `homed-escape-${process.pid}-${Math.random().toString(36).slice(2)}`;

    const ts = [
      'import { appendFileSync, readFileSync, writeFileSync } from "node:fs";',
      "const nums: number[] = readFileSync('data.txt', 'utf8').trim().split('\\n').map(Number);",
      "const sum: number = nums.reduce((a, b) => a + b, 0);",
      "writeFileSync('sum.json', JSON.stringify({ sum }));",
      "appendFileSync('data.txt', '4\\n');",
      `writeFileSync('/tmp/${outside}', 'x');`,
      "console.log('sum=' + sum + ' cwd=' + process.cwd() + ' bun=' + Bun.version);",
      "console.log('env=' + Object.keys(process.env).sort().join(','));",
      "console.error('to stderr');",
    ].join("\n");
    const turn = await toolTurn(rig, [
      [{ name: "code_run", arguments: { language: "typescript", code: ts } }],
      [
        {
          name: "code_run",
          arguments: { language: "javascript", code: "console.log('before'); throw new Error('boom from js');" },
        },
      ],
      [{ name: "code_run", arguments: { language: "javascript", code: "while (true) {}", timeout_ms: 500 } }],
      [
        {
          name: "code_run",
          arguments: {
            language: "javascript",
            code: `const fs = require("node:fs"); try { console.log(fs.readFileSync(${JSON.stringify(join(dir.path, "secrets.json"))}, "utf8")); } catch (e) { console.log("blocked: " + e.code); }`,
          },
        },
      ],
    ]);
    expect(turn.exitCode).toBe(0);
    const [tsOut, jsErr, jsLoop, jsSecret] = turn.results as string[];
    expect(tsOut).toStartWith("typescript: exit 0,");
    expect(tsOut).toContain("sum=6 cwd=/workspace bun=1.4.4");
    expect(tsOut).toContain("--- stderr ---\nto stderr");
    expect(tsOut).toContain("--- workspace files ---\ncreated: sum.json (9 B)\nchanged: data.txt (8 B)");
    expect(tsOut).not.toContain("untouched.txt");
    expect(tsOut).not.toContain("never-leak");
    expect(tsOut).not.toContain("HOMED_");
    expect(readFileSync(join(dir.path, "workspace/sum.json"), "utf8")).toBe('{"sum":6}');
    expect(existsSync(`/tmp/${outside}`)).toBe(false);
    expect(jsErr).toStartWith("javascript: exit 1,");
    expect(jsErr).toContain("before");
    expect(jsErr).toContain("boom from js");
    expect(jsErr).toContain("(none created, changed or deleted)");
    expect(jsLoop).toStartWith("javascript: timed out after 500 ms and was killed");
    expect(jsSecret).toContain("blocked: ENOENT");
    expect(jsSecret).not.toContain("sk-test-secret-key");
  }, 60_000);

  // make test installs Debian's python3 (scripts/ensure-test-tools.sh); the refusal without it
  // is code-runner.test.ts's.
  test("runs Python with the sandbox's python3", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), `[approval]\nallow = ["code_run"]\n\n[trust]\ntools = ["code_run"]\n`);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const py = [
      "import os",
      "open('hello.txt', 'w').write('from python')",
      "print('cwd', os.getcwd())",
      "raise SystemExit(3)",
    ].join("\n");
    const turn = await toolTurn(rig, [[{ name: "code_run", arguments: { language: "python", code: py } }]]);
    expect(turn.results[0]).toStartWith("python: exit 3,");
    expect(turn.results[0]).toContain("cwd /workspace");
    expect(turn.results[0]).toContain("created: hello.txt (11 B)");
    expect(readFileSync(join(dir.path, "workspace/hello.txt"), "utf8")).toBe("from python");
  }, 60_000);
});
