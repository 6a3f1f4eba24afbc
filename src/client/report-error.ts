/**
 * The one mapping from an error to what a command prints and its exit status, shared by homed
 * and waiter: usage errors print usage (help goes to stdout, exit 0) — one line only when the
 * error names the `flag` whose value is wrong; expected errors one line; the daemon's refusals
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
      typeof err.data.flag === "string" ? `${prog}: ${err.message}\n` : `${prog}: ${err.message}\n\n${usage()}`,
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
