/**
 * Checking the params of a request at the process boundary. Every handler of every method
 * table (control socket, plugin RPC, a plugin's own handlers) parses with this one function, so
 * a malformed call is always the same `invalid_params` error naming what was wrong.
 */
import * as v from "valibot";
import { HomedError } from "./errors.ts";
import { describeIssues } from "./jsonrpc.ts";

/** `params` checked against `schema`; HomedError("invalid_params") naming the issues otherwise. */
export function parseParams<S extends v.GenericSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, params);
  if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
  return r.output;
}
