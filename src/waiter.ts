/**
 * `waiter`: the client. Today it talks to a local daemon over its control socket; remote use
 * over HTTP comes with the web and channel issues.
 */
import { ControlMethod, StatusResult } from "./protocol/control.ts";
import { ExitCode, HomedError } from "./protocol/errors.ts";
import { callDaemon } from "./client/control-client.ts";
import { formatStatus } from "./client/format-status.ts";
import { formatFlags, parseFlags, type FlagSpec } from "./client/flags.ts";
import { reportError } from "./client/report-error.ts";
import { dataPaths, defaultDataDir } from "./kernel/data-paths.ts";
import { VERSION } from "./version.ts";

const FLAGS: FlagSpec[] = [
  {
    name: "data",
    kind: "string",
    arg: "DIR",
    usage: "data directory of the local daemon (default $XDG_DATA_HOME/homed, or $HOMED_DATA)",
  },
  { name: "json", kind: "bool", usage: "print the answer as JSON" },
];

function usage(): string {
  return [
    "waiter — the homed client",
    "",
    "Usage:",
    "  waiter [-data DIR] [-json] [status]   show the local daemon's status",
    "  waiter version                        print the version",
    "",
    "Flags:",
    formatFlags(FLAGS),
    "",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  try {
    const { values, rest } = parseFlags(argv, FLAGS);
    const command = rest[0] ?? "status";
    if (rest.length > 1) throw new HomedError("usage", `unexpected argument "${rest[1]}"`);
    if (command === "version") {
      process.stdout.write(`waiter ${VERSION} (${process.platform}/${process.arch})\n`);
      return ExitCode.Ok;
    }
    if (command === "help") {
      process.stdout.write(usage());
      return ExitCode.Ok;
    }
    if (command !== "status") throw new HomedError("usage", `unknown command "${command}"`);
    const dir = typeof values.data === "string" ? values.data : process.env.HOMED_DATA || defaultDataDir();
    const st = await callDaemon(dataPaths(dir).socket, ControlMethod.Status, {}, StatusResult);
    process.stdout.write(values.json ? `${JSON.stringify(st)}\n` : `${formatStatus(st)}\n`);
    return ExitCode.Ok;
  } catch (err) {
    return reportError("waiter", err, usage);
  }
}

process.exitCode = await main(process.argv.slice(2));
