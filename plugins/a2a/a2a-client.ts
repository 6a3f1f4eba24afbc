/**
 * A small A2A client over fetch: read the agent card, pick its JSON-RPC endpoint (1.0 preferred,
 * 0.3 for older agents), send one message and wait for the reply (polling GetTask if the agent
 * answers before the task is done). Every answer is checked with valibot before use.
 */
import { randomUUID } from "node:crypto";
import * as v from "valibot";

export interface AgentTarget {
  name: string;
  url: string;
  token: string;
}

type Dialect = "1.0" | "0.3";

const Card = v.looseObject({
  supportedInterfaces: v.optional(
    v.array(v.looseObject({ url: v.string(), protocolBinding: v.string(), protocolVersion: v.optional(v.string()) })),
  ),
  url: v.optional(v.string()),
  preferredTransport: v.optional(v.string()),
});
const Part = v.looseObject({
  kind: v.optional(v.string()),
  text: v.optional(v.string()),
  data: v.optional(v.unknown()),
});
const Message = v.looseObject({ parts: v.optional(v.array(Part), []), contextId: v.optional(v.string()) });
const Task = v.looseObject({
  id: v.string(),
  contextId: v.optional(v.string()),
  status: v.optional(v.looseObject({ state: v.optional(v.string()), message: v.optional(Message) })),
  artifacts: v.optional(v.array(v.looseObject({ parts: v.optional(v.array(Part), []) }))),
});
type Task = v.InferOutput<typeof Task>;
const RpcAnswer = v.union([
  v.looseObject({ result: v.unknown() }),
  v.looseObject({ error: v.looseObject({ code: v.number(), message: v.string() }) }),
]);

const FINAL = /^(TASK_STATE_)?(COMPLETED|FAILED|CANCELED|REJECTED)$/i;
const POLL_MS = 500;

const partsText = (parts: readonly v.InferOutput<typeof Part>[]) =>
  parts
    .map((p) => (typeof p.text === "string" ? p.text : p.data !== undefined ? JSON.stringify(p.data) : ""))
    .filter(Boolean)
    .join("\n");

/** The agent's JSON-RPC endpoint and dialect, from its card. */
async function endpointOf(agent: AgentTarget, headers: Record<string, string>, signal: AbortSignal) {
  const cardUrl = /\.json$/i.test(new URL(agent.url).pathname)
    ? agent.url
    : new URL("/.well-known/agent-card.json", agent.url).href;
  const res = await fetch(cardUrl, { headers: { ...headers, "A2A-Version": "1.0" }, signal });
  if (!res.ok) throw new Error(`${agent.name}: its agent card at ${cardUrl} answered HTTP ${res.status}`);
  const card = v.safeParse(Card, await res.json().catch(() => null));
  if (!card.success) throw new Error(`${agent.name}: ${cardUrl} is not an agent card`);
  const rpc = (card.output.supportedInterfaces ?? []).filter((i) => i.protocolBinding.toUpperCase() === "JSONRPC");
  const v1 = rpc.find((i) => /^1(\.|$)/.test(i.protocolVersion ?? ""));
  if (v1) return { url: v1.url, dialect: "1.0" as Dialect };
  if (rpc[0]) return { url: rpc[0].url, dialect: "0.3" as Dialect };
  // A 0.3 card names its endpoint at the top.
  if (card.output.url && (card.output.preferredTransport ?? "JSONRPC").toUpperCase() === "JSONRPC")
    return { url: card.output.url, dialect: "0.3" as Dialect };
  throw new Error(`${agent.name}: its agent card offers no JSON-RPC endpoint`);
}

export interface SendOutcome {
  text: string;
  contextId: string;
  state: string;
}

/** Send `text` to `agent` and wait for its reply. */
export async function sendToAgent(
  agent: AgentTarget,
  text: string,
  contextId: string | undefined,
  signal: AbortSignal,
): Promise<SendOutcome> {
  const headers: Record<string, string> = agent.token ? { Authorization: `Bearer ${agent.token}` } : {};
  const ep = await endpointOf(agent, headers, signal);
  let n = 0;
  const call = async (method: string, params: unknown): Promise<unknown> => {
    const res = await fetch(ep.url, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json", "A2A-Version": ep.dialect },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++n, method, params }),
      signal,
    });
    const body = v.safeParse(RpcAnswer, await res.json().catch(() => null));
    if (!body.success)
      throw new Error(`${agent.name}: ${method} answered HTTP ${res.status} without a JSON-RPC answer`);
    if ("error" in body.output) {
      const e = body.output.error as { code: number; message: string };
      throw new Error(`${agent.name}: ${method} failed (${e.code}): ${e.message}`);
    }
    return body.output.result;
  };
  const v1 = ep.dialect === "1.0";
  const message = {
    ...(v1
      ? { role: "ROLE_USER", parts: [{ text }] }
      : { kind: "message", role: "user", parts: [{ kind: "text", text }] }),
    messageId: randomUUID(),
    ...(contextId ? { contextId } : {}),
  };
  const result = await call(v1 ? "SendMessage" : "message/send", { message });
  // 1.0 wraps the reply ({message} or {task}); 0.3 tags it (kind "message" or "task").
  const r = (result ?? {}) as { message?: unknown; task?: unknown; kind?: unknown };
  const replyMessage = v1 ? r.message : r.kind === "message" ? r : undefined;
  if (replyMessage !== undefined) {
    const m = v.safeParse(Message, replyMessage);
    if (!m.success) throw new Error(`${agent.name}: the reply is not an A2A message`);
    return { text: partsText(m.output.parts), contextId: m.output.contextId ?? contextId ?? "", state: "completed" };
  }
  let task = v.safeParse(Task, v1 ? r.task : r);
  if (!task.success) throw new Error(`${agent.name}: the reply is neither a task nor a message`);
  let t: Task = task.output;
  while (!FINAL.test(t.status?.state ?? "")) {
    await Bun.sleep(POLL_MS);
    signal.throwIfAborted();
    task = v.safeParse(Task, await call(v1 ? "GetTask" : "tasks/get", { id: t.id }));
    if (!task.success) throw new Error(`${agent.name}: GetTask answered something that is not a task`);
    t = task.output;
  }
  const state = (t.status?.state ?? "").replace(/^TASK_STATE_/i, "").toLowerCase();
  const fromArtifacts = partsText((t.artifacts ?? []).flatMap((a) => a.parts));
  const fromStatus = partsText(t.status?.message?.parts ?? []);
  return { text: fromArtifacts || fromStatus, contextId: t.contextId ?? contextId ?? "", state };
}
