/**
 * Expected failures. A `HomedError` is local: it has a literal `code` and a serialisable `data`
 * payload. A `RpcError` is what came back over a wire (JSON-RPC error object) — a different
 * family, so code never mistakes a peer's complaint for its own state.
 */
import { RpcErrorCode, type ErrorObject } from "./jsonrpc.ts";

export const HOMED_ERROR_CODES = [
  "usage",
  "config",
  "data_dir",
  "locked",
  "store",
  "schema_too_new",
  "native",
  "not_running",
  "invalid_params",
  /** What was asked for does not exist (a plugin name, say); HTTP would say 404. */
  "not_found",
  "llm",
  "denied",
  "cancelled",
] as const;

export type HomedErrorCode = (typeof HOMED_ERROR_CODES)[number];

export function isHomedErrorCode(code: unknown): code is HomedErrorCode {
  return (HOMED_ERROR_CODES as readonly unknown[]).includes(code);
}

/** Process exit statuses, from sysexits(3) where one fits. */
export const ExitCode = {
  Ok: 0,
  Failure: 1,
  Usage: 2,
  /** EX_UNAVAILABLE: the daemon is not running / not reachable. */
  Unavailable: 69,
  /** EX_TEMPFAIL: another daemon holds the data dir. */
  TempFail: 75,
  /** EX_CONFIG: a bad config value; a supervisor must not restart on it. */
  Config: 78,
} as const;

/** The exit status a command line maps an error code to. */
export function exitCodeFor(code: HomedErrorCode): number {
  switch (code) {
    case "usage":
      return ExitCode.Usage;
    case "config":
      return ExitCode.Config;
    case "locked":
      return ExitCode.TempFail;
    case "not_running":
      return ExitCode.Unavailable;
    default:
      return ExitCode.Failure;
  }
}

export class HomedError<C extends HomedErrorCode = HomedErrorCode> extends Error {
  override readonly name = "HomedError";
  constructor(
    readonly code: C,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The exit status a command line maps this error to. */
  get exitCode(): number {
    return exitCodeFor(this.code);
  }

  toJSON(): { code: C; message: string; data: Record<string, unknown> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** An error a peer sent back over JSON-RPC. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static from(obj: ErrorObject): RpcError {
    return new RpcError(obj.code, obj.message, obj.data);
  }

  toObject(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** The one mapping from anything thrown by a handler to a JSON-RPC error object. */
export function toErrorObject(err: unknown): ErrorObject {
  if (err instanceof RpcError) return err.toObject();
  if (err instanceof HomedError) {
    const code = err.code === "invalid_params" ? RpcErrorCode.InvalidParams : RpcErrorCode.Application;
    return { code, message: err.message, data: { code: err.code, ...err.data } };
  }
  return { code: RpcErrorCode.InternalError, message: err instanceof Error ? err.message : String(err) };
}
