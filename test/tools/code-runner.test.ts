/**
 * code_run's runner (plugins/code/runner.ts) unconfined and without python3: cases a daemon
 * test cannot set up cheaply (the machine's python3 would have to vanish). White-box on
 * purpose, through the runner's own entry; the confined path is in code.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { prepareProgram } from "../../plugins/code/runner.ts";
import { type SandboxSettings, formatResult, runSandboxed } from "../../plugins/shell/sandbox.ts";

function settings(workspace: string, mode: SandboxSettings["mode"]): SandboxSettings {
  return {
    mode,
    network: false,
    timeoutMs: 20_000,
    outputBytes: 64 * 1024,
    maxJobs: 1,
    workspace,
    searchPath: process.env.PATH ?? "/usr/bin:/bin",
  };
}

describe("code_run's runner", () => {
  test('mode = "none" runs TypeScript on this process\'s runtime in the workspace, and leaves no program file behind', async () => {
    using dir = tempDir();
    const ws = join(dir.path, "workspace");
    mkdirSync(ws);
    const s = settings(ws, "none");
    const program = prepareProgram(
      s,
      "typescript",
      "const n: number = 6 * 7; await Bun.write('n.txt', String(n)); console.log(process.cwd());",
    );
    if ("refused" in program) throw new Error(program.refused);
    const programDir = program.cmd.roBinds?.[0]?.host as string;
    {
      using p = program;
      const r = await runSandboxed(s, "code_run", p.cmd);
      if ("refused" in r) throw new Error(r.refused);
      expect(formatResult(r)).toStartWith("exit 0,");
      expect(r.stdout.text().trim()).toBe(ws);
    }
    expect(readFileSync(join(ws, "n.txt"), "utf8")).toBe("42");
    expect(existsSync(programDir)).toBe(false);
  });

  test("without python3 the tool says so, naming the package", () => {
    using dir = tempDir();
    const saved = process.env.PATH;
    process.env.PATH = dir.path;
    try {
      const r = prepareProgram(settings(dir.path, "none"), "python", "print(1)");
      expect(r).toEqual({
        refused: `code_run: python3 is not installed on this machine (looked in ${dir.path}); install the Debian package python3, or use javascript or typescript`,
      });
    } finally {
      process.env.PATH = saved;
    }
  });
});
