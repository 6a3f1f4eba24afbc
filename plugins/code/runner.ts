/**
 * How code_run runs each language in the shell plugin's sandbox. JavaScript and TypeScript run
 * on the daemon's own Bun: process.execPath is dist/homed (or bun itself under `bun run`), and a
 * Bun executable given BUN_BE_BUN=1 acts as the bun command line, so no second runtime is
 * needed; the binary is bound read-only into the sandbox. Python needs a python3 in the
 * sandbox's system folders. The program itself is written to a private folder outside the
 * workspace and bound read-only, so it does not show up among the files it produced.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SANDBOX_PATH, type SandboxCommand, type SandboxSettings, pathInside } from "../shell/sandbox.ts";
import type { LANGUAGES } from "./tools.ts";

export type Language = (typeof LANGUAGES)[number];

/** Where the runtime and the program appear inside the sandbox. */
const RUNTIME_AT = "/opt/homed/bun";
const PROGRAM_AT = "/opt/homed/program";

const FILE_NAMES: Record<Language, string> = {
  javascript: "main.mjs",
  typescript: "main.ts",
  python: "main.py",
};

export interface PreparedProgram {
  cmd: SandboxCommand;
  [Symbol.dispose](): void;
}

/** The PATH python3 is looked for in: the sandbox's, or unconfined the plugin's own. */
function pythonSearchPath(settings: SandboxSettings): string {
  return settings.mode === "none" ? (process.env.PATH ?? SANDBOX_PATH) : SANDBOX_PATH;
}

/** The program written out and the command that runs it; or why it cannot run here. */
export function prepareProgram(
  settings: SandboxSettings,
  language: Language,
  code: string,
): PreparedProgram | { refused: string } {
  let python: string | null = null;
  if (language === "python") {
    const searched = pythonSearchPath(settings);
    python = Bun.which("python3", { PATH: searched });
    if (!python)
      return {
        refused: `code_run: python3 is not installed on this machine (looked in ${searched}); install the Debian package python3, or use javascript or typescript`,
      };
  }
  const dir = mkdtempSync(join(tmpdir(), "homed-code-"));
  const file = FILE_NAMES[language];
  writeFileSync(join(dir, file), code);
  const program = { host: dir, at: PROGRAM_AT };
  const programPath = `${pathInside(settings, program)}/${file}`;
  let cmd: SandboxCommand;
  if (python !== null) {
    // -B: no __pycache__ left in the workspace by the program's own imports.
    cmd = { argv: [python, "-B", programPath], roBinds: [program] };
  } else {
    const runtime = { host: process.execPath, at: RUNTIME_AT };
    cmd = {
      argv: [pathInside(settings, runtime), "run", "--no-install", programPath],
      // Bun's transpiler cache would otherwise land in HOME, i.e. the workspace.
      env: { BUN_BE_BUN: "1", BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", NO_COLOR: "1" },
      roBinds: [program, runtime],
    };
  }
  return {
    cmd,
    [Symbol.dispose]() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
