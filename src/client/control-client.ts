/**
 * What a client (homed's own subcommands, waiter) uses to ask a local daemon something over its
 * control socket. Results are valibot-checked: the daemon is another process, possibly another
 * version.
 */
import * as v from "valibot";
import { existsSync } from "node:fs";
import { connectUnixRpc } from "../ipc/unix-rpc.ts";
import { HomedError, RpcError } from "../protocol/errors.ts";
import { describeIssues, RpcErrorCode } from "../protocol/jsonrpc.ts";
import type { RpcLog } from "../ipc/rpc-peer.ts";

const quietLog: RpcLog = { warn: () => {}, debug: () => {} };

/**
 * The daemon hung up while we waited (it died, or stopped): that is "not running" (exit 69) in
 * words a person can act on, not a JSON-RPC error. Anything else is rethrown as it is.
 */
export function throwDaemonGone(err: unknown): never {
  if (err instanceof RpcError && err.code === RpcErrorCode.Disconnected)
    throw new HomedError("not_running", "the daemon closed the connection");
  throw err;
}

/** Call one method on the daemon listening at `socketPath` and validate its result. */
export async function callDaemon<S extends v.GenericSchema>(
  socketPath: string,
  method: string,
  params: unknown,
  resultSchema: S,
  opts: { timeoutMs?: number } = {},
): Promise<v.InferOutput<S>> {
  if (!existsSync(socketPath)) {
    throw new HomedError("not_running", `homed is not running (no control socket at ${socketPath})`, {
      socket: socketPath,
    });
  }
  let client: Awaited<ReturnType<typeof connectUnixRpc>>;
  try {
    client = await connectUnixRpc(socketPath, quietLog, { timeoutMs: opts.timeoutMs ?? 10_000 });
  } catch (err) {
    throw new HomedError(
      "not_running",
      `homed is not running (cannot connect to ${socketPath}: ${(err as Error).message})`,
      {
        socket: socketPath,
      },
    );
  }
  try {
    const raw = await client.peer.request(method, params).catch(throwDaemonGone);
    const parsed = v.safeParse(resultSchema, raw);
    if (!parsed.success)
      throw new HomedError("upstream", `daemon sent a malformed ${method} result: ${describeIssues(parsed.issues)}`);
    return parsed.output;
  } finally {
    client.close();
  }
}
