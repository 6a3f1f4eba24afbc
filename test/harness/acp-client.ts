/**
 * `homed acp -data DIR` driven as an editor drives it: the real `@agentclientprotocol/sdk` client
 * app over the process's stdio. Every line homed writes to stdout is kept and checked against the
 * JSON schema the SDK ships (schema/v1/schema.json, with ajv): as an agent message at all, and as
 * the result of the very method it answers (the requests the client wrote are tapped too), the
 * session/update or session/request_permission it claims to be, or an ACP error.
 */
import * as acp from "@agentclientprotocol/sdk";
import schema from "@agentclientprotocol/sdk/schema/v1/schema.json" with { type: "json" };
import Ajv2020 from "ajv/dist/2020.js";
import type { Subprocess } from "bun";
import { HOMED, streamText } from "./binary.ts";

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(schema, "acp");
const check = (ref: string) => {
  const fn = ajv.getSchema(`acp#${ref}`);
  if (!fn) throw new Error(`the ACP schema has no ${ref}`);
  return fn;
};
/** Any message an agent may send. */
const agentMessage = check("/anyOf/0");
const RESULT_DEF: Record<string, string> = {
  initialize: "InitializeResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/prompt": "PromptResponse",
};
const PARAMS_DEF: Record<string, string> = {
  "session/update": "SessionNotification",
  "session/request_permission": "RequestPermissionRequest",
};

/**
 * What is wrong with `line` as a frame an agent sends (empty when nothing): `methodOf` names the
 * method of the client's request with a given id.
 */
export function frameProblems(line: string, methodOf: (id: unknown) => string | undefined): string[] {
  let f: Record<string, unknown>;
  try {
    f = JSON.parse(line);
  } catch {
    return [`not JSON: ${line.slice(0, 200)}`];
  }
  const errs: string[] = [];
  const run = (fn: ReturnType<typeof check>, value: unknown, what: string) => {
    if (!fn(value)) errs.push(`${what}: ${ajv.errorsText(fn.errors)} in ${line.slice(0, 300)}`);
  };
  run(agentMessage, f, "not an ACP agent message");
  if (typeof f.method === "string") {
    const def = PARAMS_DEF[f.method];
    if (!def) errs.push(`homed sent a method it should not: ${f.method}`);
    else run(check(`/$defs/${def}`), f.params, def);
  } else if ("error" in f) {
    run(check("/$defs/Error"), f.error, "Error");
  } else {
    const method = methodOf(f.id);
    const def = method ? RESULT_DEF[method] : undefined;
    if (!def) errs.push(`a result for no request homed serves (id ${JSON.stringify(f.id)}, ${method})`);
    else run(check(`/$defs/${def}`), f.result, def);
  }
  return errs;
}

/** Splits a byte stream into lines as they come. */
function lineTap(onLine: (line: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const dec = new TextDecoder();
  let buf = "";
  return new TransformStream({
    transform(chunk, ctl) {
      buf += dec.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        onLine(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      ctl.enqueue(chunk);
    },
  });
}

export type PermissionAnswer = (
  p: acp.RequestPermissionRequest,
) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;

export interface AcpRig {
  proc: Subprocess<"pipe", "pipe", "pipe">;
  /** The SDK's handle to call the agent with. */
  agent: acp.ClientConnection["agent"];
  /** Every session/update received, in order. */
  updates: acp.SessionNotification[];
  /** Every permission question received, in order. */
  asked: acp.RequestPermissionRequest[];
  /** How the next permission questions are answered (default: reject). */
  answer: PermissionAnswer;
  /** Every line homed wrote to stdout. */
  lines: string[];
  /** Schema problems of every line homed wrote so far (must stay empty). */
  problems(): string[];
  stderr(): string;
  /** Close stdin (the editor quits) and wait for the exit status. */
  close(): Promise<number>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Start `homed acp -data DIR` with the SDK's client on its stdio. */
export function startAcp(data: string, opts: { home?: string } = {}): AcpRig {
  const proc = Bun.spawn([HOMED, "acp", "-data", data], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: opts.home ?? process.env.HOME ?? "/root" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const err = streamText(proc.stderr);
  const sentMethods = new Map<string, string>();
  const lines: string[] = [];
  const problems: string[] = [];
  const toAgent = lineTap((line) => {
    const f = JSON.parse(line) as { id?: unknown; method?: unknown };
    if (f.id !== undefined && typeof f.method === "string") sentMethods.set(JSON.stringify(f.id), f.method);
  });
  const fromAgent = proc.stdout.pipeThrough(
    lineTap((line) => {
      lines.push(line);
      problems.push(...frameProblems(line, (id) => sentMethods.get(JSON.stringify(id))));
    }),
  );
  void toAgent.readable.pipeTo(
    new WritableStream({
      write(chunk) {
        proc.stdin.write(chunk);
        proc.stdin.flush();
      },
      close() {
        proc.stdin.end();
      },
    }),
  );
  const rig = {
    proc,
    updates: [] as acp.SessionNotification[],
    asked: [] as acp.RequestPermissionRequest[],
    answer: (() => ({ outcome: { outcome: "selected", optionId: "reject_once" } })) as PermissionAnswer,
    lines,
    problems: () => [...problems],
    stderr: () => err.text(),
  } as AcpRig;
  const conn = acp
    .client({ name: "homed-acp-test" })
    .onRequest(acp.methods.client.session.requestPermission, (ctx) => {
      rig.asked.push(ctx.params);
      return rig.answer(ctx.params);
    })
    .onNotification(acp.methods.client.session.update, (ctx) => {
      rig.updates.push(ctx.params);
    })
    .connect(acp.ndJsonStream(toAgent.writable, fromAgent));
  rig.agent = conn.agent;
  rig.close = async () => {
    conn.close();
    try {
      proc.stdin.end();
    } catch {
      // already closed by the connection
    }
    return await proc.exited;
  };
  rig[Symbol.asyncDispose] = async () => {
    if (proc.exitCode === null) {
      proc.kill();
      await proc.exited;
    }
  };
  return rig;
}
