/**
 * Expected failures. A `HomedError` is local: it has a literal `code` and a serialisable `data`
 * payload. A `RpcError` is what came back over a wire (JSON-RPC error object) — a different
 * family, so code never mistakes a peer's complaint for its own state.
 */
import { RpcErrorCode, type ErrorObject } from "./jsonrpc.ts";

export const HOMED_ERROR_CODES = [
  /** A bad command line (flag, argument). */
  "usage",
  /** A bad configuration value or file. */
  "config",
  /** The data dir cannot be made or used. */
  "data_dir",
  /** Another daemon holds the data dir. */
  "locked",
  "store",
  "schema_too_new",
  /** The native shim, a shared segment or a native library failed. */
  "native",
  /** The daemon is not running (a client's view). */
  "not_running",
  /** The request itself is malformed: the caller's to fix. */
  "invalid_params",
  /** What was asked for does not exist (a plugin name, a model, a file). */
  "not_found",
  /** It exists but cannot answer now (a plugin starting, stopped or crashed). */
  "unavailable",
  /** The caller may not do this (reserved to built-in plugins). */
  "forbidden",
  /** Something we depend on failed or answered nonsense: a network, a remote server, a peer. */
  "upstream",
  /** The request contradicts the current state (a name already taken, a plugin that is disabled). */
  "conflict",
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
  /** EX_UNAVAILABLE: the daemon, a plugin or a remote service it needs is not available. */
  Unavailable: 69,
  /** EX_TEMPFAIL: another daemon holds the data dir. */
  TempFail: 75,
  /** EX_NOPERM: the caller is not allowed to do this. */
  NoPermission: 77,
  /** EX_CONFIG: a bad config value; a supervisor must not restart on it. */
  Config: 78,
} as const;

/** How one error code reads to each audience: a JSON-RPC error code, an HTTP status, an exit status. */
export interface ErrorMapping {
  /** JSON-RPC `error.code`; `error.data.code` always carries the HomedError code itself. */
  readonly rpc: number;
  readonly http: 400 | 403 | 404 | 409 | 500 | 502 | 503;
  readonly exit: number;
}

const caller = (http: ErrorMapping["http"], exit: number = ExitCode.Failure): ErrorMapping => ({
  rpc: RpcErrorCode.Application,
  http,
  exit,
});

/**
 * The one mapping of error codes (docs/ARCHITECTURE.md, "Errors"). Only malformed requests are
 * JSON-RPC InvalidParams and HTTP 400; a missing thing is 404, a thing that cannot answer now
 * 503, a failure further along 502 — so "plugin starting" is never the client's fault.
 */
export const ERROR_MAPPING: Readonly<Record<HomedErrorCode, ErrorMapping>> = {
  usage: { rpc: RpcErrorCode.InvalidParams, http: 400, exit: ExitCode.Usage },
  invalid_params: { rpc: RpcErrorCode.InvalidParams, http: 400, exit: ExitCode.Failure },
  not_found: caller(404),
  forbidden: caller(403, ExitCode.NoPermission),
  denied: caller(403),
  conflict: caller(409),
  locked: caller(409, ExitCode.TempFail),
  unavailable: caller(503, ExitCode.Unavailable),
  not_running: caller(503, ExitCode.Unavailable),
  upstream: caller(502, ExitCode.Unavailable),
  llm: caller(502),
  cancelled: caller(500),
  config: caller(500, ExitCode.Config),
  data_dir: caller(500),
  store: caller(500),
  schema_too_new: caller(500),
  native: caller(500),
};

/** The exit status a command line maps an error code to. */
export function exitCodeFor(code: HomedErrorCode): number {
  return ERROR_MAPPING[code].exit;
}

export class HomedError<C extends HomedErrorCode = HomedErrorCode> extends Error {
  override readonly name = "HomedError";
  /**
   * @param data serialisable details, sent with the error over JSON-RPC
   * @param options.cause the lower-level error this one explains (a network failure, an errno);
   *   its message travels as `data.cause`
   */
  constructor(
    readonly code: C,
    message: string,
    readonly data: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The exit status a command line maps this error to. */
  get exitCode(): number {
    return exitCodeFor(this.code);
  }

  toJSON(): { code: C; message: string; data: Record<string, unknown> } {
    const data = this.cause === undefined ? this.data : { ...this.data, cause: causeText(this.cause) };
    return { code: this.code, message: this.message, data };
  }
}

function causeText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
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
    const j = err.toJSON();
    return {
      code: ERROR_MAPPING[err.code as HomedErrorCode].rpc,
      message: j.message,
      data: { ...j.data, code: j.code },
    };
  }
  return { code: RpcErrorCode.InternalError, message: err instanceof Error ? err.message : String(err) };
}

/**
 * The HomedError code an error stands for: its own, or the one a peer's JSON-RPC error carries
 * in `data.code` (an untagged InvalidParams counts as invalid_params). Undefined for anything
 * else — a bug, or a transport failure (timeout, disconnect) the caller must name itself.
 */
export function errorCodeOf(err: unknown): HomedErrorCode | undefined {
  if (err instanceof HomedError) return err.code;
  if (!(err instanceof RpcError)) return undefined;
  const said = (err.data as { code?: unknown } | undefined)?.code;
  if (isHomedErrorCode(said)) return said;
  return err.code === RpcErrorCode.InvalidParams ? "invalid_params" : undefined;
}
