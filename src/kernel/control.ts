/**
 * The control socket's methods. Each handler validates its params with the schema from
 * src/protocol/control.ts; a bad call is an InvalidParams error to the caller, never a throw
 * into the daemon.
 */
import * as v from "valibot";
import { ControlMethod, EventAppendParams, PluginRestartParams, StatusParams, type EventAppendResult, type StatusResult } from "../protocol/control.ts";
import { HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues, RpcErrorCode } from "../protocol/jsonrpc.ts";
import type { RequestHandler } from "../ipc/rpc-peer.ts";
import type { Kernel } from "./kernel.ts";

function parseParams<S extends v.GenericSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, params);
  if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
  return r.output;
}

export function controlHandler(kernel: Kernel): RequestHandler {
  const methods: Record<string, (params: unknown) => unknown> = {
    [ControlMethod.Status]: (params): StatusResult => {
      parseParams(StatusParams, params);
      return kernel.status();
    },
    [ControlMethod.EventAppend]: (params): EventAppendResult => {
      const p = parseParams(EventAppendParams, params);
      return kernel.store.append(p);
    },
    [ControlMethod.PluginRestart]: (params) => kernel.supervisor.restart(parseParams(PluginRestartParams, params).name),
  };
  return (method, params) => {
    const fn = methods[method];
    if (!fn) throw new RpcError(RpcErrorCode.MethodNotFound, `unknown method: ${method}`);
    return fn(params);
  };
}
