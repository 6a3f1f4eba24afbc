/**
 * The one mapping from an error to what a command prints and its exit status, shared by homed
 * and waiter: help goes to stdout (exit 0); a usage error is one line and, unless it names the
 * `flag` whose value is wrong, a second that says where the usage is (exit 2) — the whole usage
 * would bury the line that matters; expected errors one line; the daemon's refusals
 * (JSON-RPC errors) one line, with the status of the HomedError code they carry; anything else
 * — a bug — the stack as a log line.
 */
import { errorCodeOf, ExitCode, exitCodeFor, HomedError, RpcError } from "../protocol/errors.ts";
import { formatLogLine } from "../protocol/logfmt.ts";

export function reportError(prog: string, err: unknown, usage: () => string, asLog = false): number {
  if (err instanceof HomedError && err.code === "usage") {
    if (err.data.help === true) {
      process.stdout.write(usage());
      return ExitCode.Ok;
    }
    process.stderr.write(
      typeof err.data.flag === "string"
        ? `${prog}: ${err.message}\n`
        : `${prog}: ${err.message}\nrun "${prog} help" for its commands and flags\n`,
    );
    return ExitCode.Usage;
  }
  if (err instanceof HomedError) {
    process.stderr.write(
      asLog ? `${formatLogLine("error", err.message, { code: err.code })}\n` : `${prog}: ${err.message}\n`,
    );
    return err.exitCode;
  }
  if (err instanceof RpcError) {
    const code = errorCodeOf(err);
    process.stderr.write(
      asLog ? `${formatLogLine("error", err.message, { code: err.code })}\n` : `${prog}: ${err.message}\n`,
    );
    return code ? exitCodeFor(code) : ExitCode.Failure;
  }
  process.stderr.write(
    `${formatLogLine("error", "unexpected failure", {
      err: err instanceof Error ? (err.stack ?? err.message) : String(err),
    })}\n`,
  );
  return ExitCode.Failure;
}
