/**
 * A Chromium started with `--remote-debugging-pipe`, driven over that pipe (fd 3: commands in,
 * fd 4: replies and events out, each a JSON message ended by a NUL byte). The pipe belongs to
 * this process alone, unlike a debugging port any local user could connect to, so the desktop
 * launcher can hand the page its login token without the token ever touching a command line,
 * a URL or the network between processes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import * as v from "valibot";
import { HomedError } from "../protocol/errors.ts";

const Reply = v.object({
  id: v.optional(v.number()),
  result: v.optional(v.record(v.string(), v.unknown())),
  error: v.optional(v.object({ message: v.string() })),
});

export interface CdpBrowser {
  proc: ChildProcess;
  /** Send one command (to the browser, or to an attached page's session); resolves with its result. */
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
  /** Resolves with the exit code when the browser has exited. */
  exited: Promise<number>;
}

/** Start `browser` with `args` plus the pipe switch; stdout and stderr are dropped. */
export function launchWithPipe(browser: string, args: string[]): CdpBrowser {
  const proc = spawn(browser, [...args, "--remote-debugging-pipe"], {
    stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
  });
  const input = proc.stdio[3] as Writable;
  const output = proc.stdio[4] as Readable;
  const pending = new Map<number, { resolve(r: Record<string, unknown>): void; reject(e: Error): void }>();
  let next = 1;
  let buffered = "";
  const failAll = (why: string): void => {
    for (const p of pending.values()) p.reject(new HomedError("unavailable", why));
    pending.clear();
  };
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const messages = buffered.split("\0");
    buffered = messages.pop() ?? "";
    for (const text of messages) {
      let reply: v.InferOutput<typeof Reply>;
      try {
        reply = v.parse(Reply, JSON.parse(text));
      } catch {
        continue; // not a reply we can read; events we do not wait for land here too
      }
      if (reply.id === undefined) continue;
      const p = pending.get(reply.id);
      if (!p) continue;
      pending.delete(reply.id);
      if (reply.error) p.reject(new HomedError("unavailable", `browser: ${reply.error.message}`));
      else p.resolve(reply.result ?? {});
    }
  });
  output.on("error", () => failAll("the browser's pipe broke"));
  input.on("error", () => failAll("the browser's pipe broke"));
  const exited = new Promise<number>((resolve) => {
    proc.on("error", (err) => {
      failAll(`cannot start ${browser}: ${err.message}`);
      resolve(127);
    });
    proc.on("exit", (code) => {
      failAll("the browser exited");
      resolve(code ?? 1);
    });
  });
  return {
    proc,
    exited,
    send(method, params = {}, sessionId) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
      });
    },
  };
}
