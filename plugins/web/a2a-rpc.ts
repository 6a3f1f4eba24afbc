/**
 * The A2A JSON-RPC methods (1.0 and 0.3 names, a2a-wire.ts) over the task book and runner.
 * Every failure is a JSON-RPC error with A2A's codes: -32700 parse, -32600 invalid request,
 * -32601 no such method, -32602 invalid params, -32001 TaskNotFound, -32002 TaskNotCancelable,
 * -32003 PushNotificationNotSupported, -32004 UnsupportedOperation, -32005
 * ContentTypeNotSupported, -32007 ExtendedAgentCardNotConfigured, -32009 VersionNotSupported.
 */
import { randomUUID } from "node:crypto";
import * as v from "valibot";
import { describeIssues } from "../../src/protocol/jsonrpc.ts";
import { type Dialect, parseState, TERMINAL_STATES, taskJson, taskResult } from "./a2a-model.ts";
import type { A2aCaller, A2aRunner, RunEvent } from "./a2a-runner.ts";
import { TaskEvents } from "./a2a-stream.ts";
import type { TaskBook } from "./a2a-tasks.ts";
import { acceptsText, ListParams, messageText, SendParams, TaskIdParams } from "./a2a-wire.ts";

export const RPC = {
  parse: -32700,
  invalidRequest: -32600,
  noMethod: -32601,
  invalidParams: -32602,
  internal: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  unsupported: -32004,
  contentType: -32005,
  noExtendedCard: -32007,
  version: -32009,
} as const;

/** An expected failure, answered as a JSON-RPC error. */
export class A2aRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Params checked against a schema; a mismatch is -32602 naming the field. */
export function params<S extends v.GenericSchema>(schema: S, raw: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, raw ?? {});
  if (!r.success) throw new A2aRpcError(RPC.invalidParams, `invalid params: ${describeIssues(r.issues)}`);
  return r.output;
}

/** A streamed answer: the first result, then each later one, until the task ends. */
export type ResultStream = AsyncIterable<Record<string, unknown>>;

export interface A2aContext {
  book: TaskBook;
  runner: A2aRunner;
  caller: A2aCaller;
  dialect: Dialect;
}

const notFound = (id: string) => new A2aRpcError(RPC.taskNotFound, `no task ${id}`);

/** The caller's own task, or TaskNotFound (another caller's task is as good as absent). */
function ownTask(x: A2aContext, id: string) {
  const t = x.book.get(id);
  if (!t || t.peer !== x.caller.peer) throw notFound(id);
  return t;
}

/** Check a send's params and start its task. */
async function startSend(x: A2aContext, raw: unknown, listen?: (e: RunEvent) => void) {
  const p = params(SendParams, raw);
  const m = p.message;
  if (m.role !== "user" && m.role !== "ROLE_USER")
    throw new A2aRpcError(RPC.invalidParams, "a message to homed has the user role");
  const cfg = p.configuration;
  if (cfg?.taskPushNotificationConfig !== undefined || cfg?.pushNotificationConfig !== undefined)
    throw new A2aRpcError(RPC.pushNotSupported, "homed sends no push notifications; poll GetTask or stream instead");
  if (!acceptsText(cfg?.acceptedOutputModes))
    throw new A2aRpcError(RPC.contentType, "homed replies in text/plain, which acceptedOutputModes leaves out");
  const said = messageText(m);
  if ("file" in said)
    throw new A2aRpcError(RPC.contentType, "homed's A2A channel takes text and data parts, not files");
  if (!said.text.trim()) throw new A2aRpcError(RPC.invalidParams, "the message has no text");
  if (m.taskId !== undefined) {
    const t = ownTask(x, m.taskId);
    throw new A2aRpcError(
      RPC.unsupported,
      `task ${t.id} is ${t.state}: homed never waits for input on a task; send without taskId (the same contextId continues the conversation)`,
    );
  }
  const contextId = m.contextId ?? randomUUID();
  const owner = x.book.ownerOf(contextId);
  if (owner !== undefined && owner !== x.caller.peer)
    throw new A2aRpcError(RPC.invalidParams, `contextId ${contextId} belongs to another caller`);
  const started = await x.runner.start(x.caller, contextId, { messageId: m.messageId, text: said.text }, listen);
  const waits = cfg?.returnImmediately !== true && cfg?.blocking !== false;
  return { ...started, historyLength: cfg?.historyLength, waits };
}

async function send(x: A2aContext, raw: unknown) {
  const s = await startSend(x, raw);
  const task = s.waits ? await s.done : s.task;
  return taskResult(x.dialect, taskJson(x.dialect, task, { historyLength: s.historyLength }));
}

/** A streamed send (a2a-stream.ts has the order of events). */
async function stream(x: A2aContext, raw: unknown): Promise<ResultStream> {
  const events = new TaskEvents();
  const s = await startSend(x, raw, events.listen);
  return events.results(x.dialect, s.task);
}

/** Follow a running task again (a client whose stream broke): what it streamed so far, then the rest. */
function subscribe(x: A2aContext, raw: unknown): ResultStream {
  const p = params(TaskIdParams, raw);
  const t = ownTask(x, p.id);
  const events = new TaskEvents();
  const joined = x.runner.subscribe(t.id, events.listen);
  if (!joined)
    throw new A2aRpcError(RPC.unsupported, `task ${t.id} is ${t.state}; GetTask answers with its state and reply`);
  return (async function* () {
    try {
      yield* events.results(x.dialect, t, joined.sofar);
    } finally {
      joined.leave();
    }
  })();
}

function get(x: A2aContext, raw: unknown) {
  const p = params(TaskIdParams, raw);
  return taskJson(x.dialect, ownTask(x, p.id), { historyLength: p.historyLength });
}

async function cancel(x: A2aContext, raw: unknown) {
  const p = params(TaskIdParams, raw);
  const t = ownTask(x, p.id);
  if (TERMINAL_STATES.has(t.state) || !x.runner.isRunning(t.id))
    throw new A2aRpcError(RPC.taskNotCancelable, `task ${t.id} is ${t.state} and cannot be canceled`);
  const ended = (await x.runner.cancel(t.id)) ?? t;
  return taskJson(x.dialect, ended);
}

function list(x: A2aContext, raw: unknown) {
  const p = params(ListParams, raw);
  let state: string | undefined;
  if (p.status !== undefined && p.status !== "" && p.status !== "TASK_STATE_UNSPECIFIED") {
    state = parseState(p.status) ?? undefined;
    if (!state) throw new A2aRpcError(RPC.invalidParams, `unknown task state ${p.status}`);
  }
  let after: number | undefined;
  if (p.statusTimestampAfter !== undefined) {
    after = Date.parse(p.statusTimestampAfter);
    if (Number.isNaN(after)) throw new A2aRpcError(RPC.invalidParams, "statusTimestampAfter is not an ISO 8601 time");
  }
  const offset = p.pageToken ? Number(p.pageToken) : 0;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new A2aRpcError(RPC.invalidParams, "pageToken is not one homed gave");
  const all = x.book.list(x.caller.peer, { contextId: p.contextId || undefined, state, after });
  const pageSize = p.pageSize ?? 50;
  const page = all.slice(offset, offset + pageSize);
  const next = offset + page.length < all.length ? String(offset + page.length) : "";
  return {
    tasks: page.map((t) =>
      taskJson(x.dialect, t, { historyLength: p.historyLength ?? 0, artifacts: p.includeArtifacts === true }),
    ),
    nextPageToken: next,
    pageSize,
    totalSize: all.length,
  };
}

/** Answer one method (already resolved to its operation); a stream for the streaming ones. */
export async function dispatch(
  x: A2aContext,
  op: string,
  raw: unknown,
): Promise<{ result: Record<string, unknown> } | { stream: ResultStream }> {
  switch (op) {
    case "send":
      return { result: await send(x, raw) };
    case "stream":
      return { stream: await stream(x, raw) };
    case "get":
      return { result: get(x, raw) };
    case "cancel":
      return { result: await cancel(x, raw) };
    case "list":
      return { result: list(x, raw) };
    case "push":
      throw new A2aRpcError(RPC.pushNotSupported, "homed sends no push notifications; poll GetTask or stream instead");
    case "card":
      throw new A2aRpcError(RPC.noExtendedCard, "homed has no extended agent card; the public one says everything");
    case "subscribe":
      return { stream: subscribe(x, raw) };
    default:
      throw new A2aRpcError(RPC.noMethod, `no operation ${op}`);
  }
}
