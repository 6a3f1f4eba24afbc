/**
 * External plugins on the path a person uses: the compiled daemon on a fresh data dir with one
 * plugin in DATA/plugins — the one `homed plugin new` writes (TypeScript, run by the Bun inside
 * homed) or the Python example — timed from the kernel spawning it (its `state=starting` log
 * line) to its readiness (`state=ready`), both stamped by the daemon. Median of several starts,
 * each a new daemon, with the built-in plugins starting beside it as they always do.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLogLine } from "../src/protocol/logfmt.ts";
import { HOMED, ROOT } from "./bench-daemon.ts";
import { median, report } from "./report.ts";

const RUNS = 7;

/** One daemon start: ms from the plugin's spawn to its ready, as the daemon's log stamps them. */
async function spawnToReady(name: string, install: (data: string) => Promise<void>): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-ext-"));
  try {
    await install(data);
    const proc = Bun.spawn([HOMED, "-data", data, "-listen", "127.0.0.1:0"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: data, HOMED_WEB_AUTH: "none" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    try {
      let starting: number | null = null;
      let buffered = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stderr) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          const line = parseLogLine(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
          if (line.msg !== "plugin state" || line.plugin !== name) continue;
          const at = Date.parse(line.ts ?? "");
          if (line.state === "starting") starting = at;
          else if (line.state === "ready" && starting !== null) return at - starting;
          else if (["restarting", "stopped", "failed", "blocked", "exited"].includes(line.state ?? ""))
            throw new Error(`${name} went ${line.state}: ${line.detail}`);
        }
      }
      throw new Error(`the daemon ended before ${name} was ready`);
    } finally {
      clearTimeout(timer);
      proc.kill("SIGTERM");
      await proc.exited;
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

async function medianOf(name: string, install: (data: string) => Promise<void>): Promise<number> {
  await spawnToReady(name, install); // the first start after a build reads the binary from disk
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await spawnToReady(name, install));
  console.error(`external plugin ${name}: spawn to ready ${runs.join(", ")} ms`);
  return median(runs);
}

export async function benchExternalPlugins(): Promise<void> {
  const made = async (data: string) => {
    const p = Bun.spawn([HOMED, "plugin", "new", "demo", "-data", data], { stdio: ["ignore", "ignore", "pipe"] });
    if ((await p.exited) !== 0) throw new Error(`homed plugin new failed: ${await new Response(p.stderr).text()}`);
  };
  report("plugins.external_start_ms", await medianOf("demo", made), "ms");
  if (!Bun.which("python3")) {
    console.error("python3 is not on PATH: plugins.external_start_py_ms not measured");
    return;
  }
  const python = async (data: string) => {
    cpSync(join(ROOT, "examples/python-plugin"), join(data, "plugins/jot"), { recursive: true });
  };
  report("plugins.external_start_py_ms", await medianOf("jot", python), "ms");
}
