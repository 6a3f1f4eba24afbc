/**
 * JSON-RPC 2.0 frames, as they cross every process boundary of homed (control socket,
 * plugin stdio). One JSON object per line. Batches are not used by homed and are rejected.
 */
import * as v from "valibot";

export const JSONRPC_VERSION = "2.0";

/** Standard JSON-RPC error codes plus homed's own range (-32000 … -32099). */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** A request that did not get its reply in time. */
  Timeout: -32001,
  /** The peer went away while the request was outstanding. */
  Disconnected: -32002,
  /** The frame exceeded the size limit of the channel. */
  FrameTooLarge: -32003,
  /** A domain error raised by the handler; `data.code` carries the HomedError code. */
  Application: -32000,
} as const;

const Id = v.union([v.string(), v.pipe(v.number(), v.safeInteger())]);

export const RequestFrame = v.strictObject({
  jsonrpc: v.literal(JSONRPC_VERSION),
  id: Id,
  method: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  params: v.optional(v.unknown()),
});

export const NotificationFrame = v.strictObject({
  jsonrpc: v.literal(JSONRPC_VERSION),
  method: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  params: v.optional(v.unknown()),
});

export const ErrorObject = v.object({
  code: v.pipe(v.number(), v.integer()),
  message: v.string(),
  data: v.optional(v.unknown()),
});

export const SuccessFrame = v.strictObject({
  jsonrpc: v.literal(JSONRPC_VERSION),
  id: Id,
  result: v.unknown(),
});

export const ErrorFrame = v.strictObject({
  jsonrpc: v.literal(JSONRPC_VERSION),
  id: v.nullable(Id),
  error: ErrorObject,
});

/** Any frame one side may receive. Order matters: requests carry both id and method. */
export const Frame = v.union([RequestFrame, NotificationFrame, SuccessFrame, ErrorFrame]);

export type RequestFrame = v.InferOutput<typeof RequestFrame>;
export type NotificationFrame = v.InferOutput<typeof NotificationFrame>;
export type SuccessFrame = v.InferOutput<typeof SuccessFrame>;
export type ErrorFrame = v.InferOutput<typeof ErrorFrame>;
export type ErrorObject = v.InferOutput<typeof ErrorObject>;
export type Frame = v.InferOutput<typeof Frame>;
export type RpcId = v.InferOutput<typeof Id>;

/** Summarise valibot issues as `path: message; …`, the form every boundary error uses. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
