/**
 * What a client (homed's own subcommands, waiter) uses to ask a local daemon something over its
 * control socket. Results are valibot-checked: the daemon is another process, possibly another
 * version.
 */
import * as v from "valibot";
import { existsSync } from "node:fs";
import { connectUnixRpc } from "../ipc/unix-rpc.ts";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { RpcLog } from "../ipc/rpc-peer.ts";

const quietLog: RpcLog = { warn: () => {}, debug: () => {} };

/** Call one method on the daemon listening at `socketPath` and validate its result. */
export async function callDaemon<S extends v.GenericSchema>(
  socketPath: string,
  method: string,
  params: unknown,
  resultSchema: S,
  opts: { timeoutMs?: number } = {},
): Promise<v.InferOutput<S>> {
  if (!existsSync(socketPath)) {
    throw new HomedError("not_running", `homed is not running (no control socket at ${socketPath})`, { socket: socketPath });
  }
  let client;
  try {
    client = await connectUnixRpc(socketPath, quietLog, { timeoutMs: opts.timeoutMs ?? 10_000 });
  } catch (err) {
    throw new HomedError("not_running", `homed is not running (cannot connect to ${socketPath}: ${(err as Error).message})`, {
      socket: socketPath,
    });
  }
  try {
    const raw = await client.peer.request(method, params);
    const parsed = v.safeParse(resultSchema, raw);
    if (!parsed.success) throw new HomedError("invalid_params", `daemon sent a malformed ${method} result: ${describeIssues(parsed.issues)}`);
    return parsed.output;
  } finally {
    client.close();
  }
}
