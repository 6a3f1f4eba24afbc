/**
 * An external plugin that tries to take the daemon's secrets (test/fixtures/room-probe), run
 * through the compiled daemon as a person would have it: added to DATA/plugins, the daemon
 * started with a provider key set, then the plugin restarted so it looks once everything is
 * there. What it got is compared with the key (set with `homed provider`, and one more in the
 * daemon's environment), the web token and the database. Shared by the suite
 * (test/plugins/plugin-sandbox.test.ts) and `make bench-reliability`.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "./binary.ts";
import { startAgentRig } from "./agent-daemon.ts";
import { poll } from "./poll.ts";

export const PROBE_KEY = "sk-test-secret-key-1234";
const ENV_KEY = "sk-daemon-env-secret-5678";
const PROBE = join(ROOT, "test/fixtures/room-probe");

export interface ProbeReport {
  files: { path: string; size: number; sha256: string; head: string }[];
  env: Record<string, string>;
  kernel: Record<string, unknown>;
  denied: number;
  wrote: { ownFolder?: boolean; stateDir?: boolean };
  network: string;
}

export interface ProbeOutcome {
  report: ProbeReport;
  /** Each thing it got that carries the key, the token or the database: "where: what". */
  leaks: string[];
  /** Its plugins/status line, as `homed status` shows it. */
  sandbox: string | undefined;
}

/** The things in `report` that carry a secret. */
function leaksOf(report: ProbeReport, token: string): string[] {
  const secrets: [string, string][] = [
    ["the provider key", PROBE_KEY],
    ["the key in the daemon's environment", ENV_KEY],
    ["the web token", token],
  ];
  const out: string[] = [];
  const look = (where: string, text: string) => {
    for (const [what, value] of secrets) if (value && text.includes(value)) out.push(`${where}: ${what}`);
    if (text.includes("SQLite format 3")) out.push(`${where}: the database`);
  };
  for (const f of report.files) look(f.path, f.head);
  for (const [k, v] of Object.entries(report.env)) look(`env ${k}`, v);
  for (const [k, v] of Object.entries(report.kernel)) look(`kernel ${k}`, JSON.stringify(v));
  for (const f of report.files)
    if (/\/(homed\.db|secrets\.json|web-token)(-wal)?$/.test(f.path)) out.push(`${f.path}: read`);
  return [...new Set(out)];
}

export async function runRoomProbe(opts: {
  lang: "ts" | "py";
  /** The daemon's default (bubblewrap); false: [plugins] sandbox = "none". */
  sandbox: boolean;
  /** The manifest asks for the network. */
  asksNetwork?: boolean;
  /** DATA/plugins.json allows it. */
  granted?: boolean;
  /** A port on 127.0.0.1 it tries to connect to. */
  port?: number;
}): Promise<ProbeOutcome> {
  using dir = tempDir();
  const folder = join(dir.path, "plugins/probe");
  mkdirSync(folder, { recursive: true });
  const program = opts.lang === "ts" ? "probe.mjs" : "probe.py";
  copyFileSync(join(PROBE, program), join(folder, program));
  const args = opts.port ? [String(opts.port)] : [];
  writeFileSync(
    join(folder, "plugin.json"),
    JSON.stringify({
      name: "probe",
      transport: "stdio",
      requires: ["kernel.agent", "kernel.llm"],
      ...(opts.lang === "ts" ? { main: program } : { exec: program }),
      args,
      network: opts.asksNetwork === true,
    }),
  );
  if (opts.lang === "py") await run(["chmod", "+x", join(folder, program)]);
  if (opts.granted)
    writeFileSync(
      join(dir.path, "plugins.json"),
      JSON.stringify({ added: { probe: { from: PROBE, at: new Date().toISOString(), network: true } } }),
    );
  await using rig = await startAgentRig(dir.path, {
    plugin: false,
    pluginSandbox: opts.sandbox,
    env: { OPENAI_API_KEY: ENV_KEY },
  });
  // One conversation, so the database holds something of the person's.
  rig.llm.script([{ text: "noted" }]);
  await rig.chat("my locker code is 4711");
  const reportFile = join(dir.path, "plugin-state/probe/report.json");
  rmSync(reportFile, { force: true });
  const restarted = await run([HOMED, "plugin-restart", "probe", "-data", dir.path]);
  if (restarted.exitCode !== 0) throw new Error(`plugin-restart probe: ${restarted.stderr}`);
  await poll(() => existsSync(reportFile), Boolean, { what: "the probe's report", timeoutMs: 30_000 });
  const report = JSON.parse(readFileSync(reportFile, "utf8")) as ProbeReport;
  const tokenFile = join(dir.path, "web-token");
  const token = existsSync(tokenFile) ? readFileSync(tokenFile, "utf8").trim() : "";
  if (!token) throw new Error("the daemon wrote no web-token: nothing to look for");
  const st = await rig.status();
  const sandbox = (st.plugins as { name: string; sandbox?: string }[]).find((p) => p.name === "probe")?.sandbox;
  return { report, leaks: leaksOf(report, token), sandbox };
}
