/** `homed`: argv → the subcommands; nothing else. */
import { HomedError, ExitCode } from "./protocol/errors.ts";
import { reportError } from "./client/report-error.ts";
import { parseFlags } from "./client/flags.ts";
import { runDaemon, SUBCOMMANDS, usage, version, type Subcommand } from "./cli/commands.ts";

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "help") {
    process.stdout.write(usage());
    return ExitCode.Ok;
  }
  let command: Subcommand = runDaemon;
  let args = argv;
  const named = SUBCOMMANDS.find((c) => c.name === argv[0]);
  if (named) {
    command = named;
    args = argv.slice(1);
  }
  try {
    const parsed = parseFlags(args, command.flags, { anywhere: command.flagsAnywhere });
    if (command === runDaemon && parsed.values.version === true) return await version.run({}, []);
    if (command === runDaemon && parsed.rest.length > 0) {
      // Go style also allows `homed -data DIR status`: flags first, then the subcommand.
      const sub = SUBCOMMANDS.find((c) => c.name === parsed.rest[0]);
      if (!sub) throw new HomedError("usage", `unknown command "${parsed.rest[0]}"`);
      const inner = parseFlags(parsed.rest.slice(1), sub.flags, { anywhere: sub.flagsAnywhere });
      if (typeof parsed.values.listen === "string")
        throw new HomedError("usage", `-listen applies only when running the daemon`);
      return await sub.run({ ...parsed.values, ...inner.values }, inner.rest);
    }
    return await command.run(parsed.values, parsed.rest);
  } catch (err) {
    // Daemon failures are log lines (logfmt, like the rest of its stderr); a subcommand's are prose.
    return reportError("homed", err, usage, command === runDaemon);
  }
}

process.exitCode = await main(process.argv.slice(2));
