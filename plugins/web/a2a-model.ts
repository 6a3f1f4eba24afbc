/**
 * An A2A task as homed keeps it (one task per message sent: the peer's text in, homed's reply
 * out) and its wire shapes in the two dialects served: A2A 1.0 (ProtoJSON: `TASK_STATE_*`,
 * `ROLE_*`, parts `{text}`, results wrapped as `{task}` / `{message}` / `{statusUpdate}` /
 * `{artifactUpdate}`) and 0.3 (`kind`-tagged objects, lower-case states, `role: "user"|"agent"`).
 */

/** Task states homed uses, named as 0.3 names them; 1.0 names are derived (`TASK_STATE_*`). */
export type TaskState = "submitted" | "working" | "completed" | "failed" | "canceled" | "rejected";
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(["completed", "failed", "canceled", "rejected"]);

/** The two wire dialects: 1.0 (method names like SendMessage) and 0.3 (message/send). */
export type Dialect = "1.0" | "0.3";

export interface A2aTask {
  id: string;
  contextId: string;
  /** Who sent it (a configured peer's name, "owner" or "anon"): only they see the task. */
  peer: string;
  state: TaskState;
  /** ms since the epoch */
  createdAt: number;
  updatedAt: number;
  input: { messageId: string; text: string };
  /** homed's reply once the turn ended (the error's words when it failed). */
  reply: { messageId: string; text: string } | null;
}

const STATE_V1: Record<TaskState, string> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELED",
  rejected: "TASK_STATE_REJECTED",
};

/** A 1.0 state name or a 0.3 one, as a filter names it; null when homed never uses it. */
export function parseState(name: string): TaskState | null {
  for (const [s, v1] of Object.entries(STATE_V1)) if (name === s || name === v1) return s as TaskState;
  return null;
}

/** The id of the artifact a task's reply is delivered in. */
export const replyArtifactId = (taskId: string) => `${taskId}-reply`;

type Json = Record<string, unknown>;

function message(d: Dialect, t: A2aTask, role: "user" | "agent", m: { messageId: string; text: string }): Json {
  const base = { messageId: m.messageId, contextId: t.contextId, taskId: t.id, parts: [textPart(d, m.text)] };
  return d === "1.0"
    ? { ...base, role: role === "user" ? "ROLE_USER" : "ROLE_AGENT" }
    : { kind: "message", ...base, role };
}

export const textPart = (d: Dialect, text: string): Json => (d === "1.0" ? { text } : { kind: "text", text });

export function status(d: Dialect, t: A2aTask): Json {
  return {
    state: d === "1.0" ? STATE_V1[t.state] : t.state,
    ...(t.reply && TERMINAL_STATES.has(t.state) ? { message: message(d, t, "agent", t.reply) } : {}),
    timestamp: new Date(t.updatedAt).toISOString(),
  };
}

export function artifact(d: Dialect, t: A2aTask, text: string): Json {
  return { artifactId: replyArtifactId(t.id), name: "reply", parts: [textPart(d, text)] };
}

/**
 * The task on the wire. `historyLength`: how many of its messages (the peer's, then the reply)
 * to include, newest last; undefined: all. `artifacts`: include the reply artifact.
 */
export function taskJson(d: Dialect, t: A2aTask, o: { historyLength?: number; artifacts?: boolean } = {}): Json {
  const history = [message(d, t, "user", t.input), ...(t.reply ? [message(d, t, "agent", t.reply)] : [])];
  const keep = o.historyLength === undefined ? history : o.historyLength <= 0 ? [] : history.slice(-o.historyLength);
  const done = t.state === "completed" && t.reply !== null && o.artifacts !== false;
  return {
    ...(d === "0.3" ? { kind: "task" } : {}),
    id: t.id,
    contextId: t.contextId,
    status: status(d, t),
    ...(done && t.reply ? { artifacts: [artifact(d, t, t.reply.text)] } : {}),
    ...(keep.length ? { history: keep } : {}),
    metadata: { peer: t.peer },
  };
}

/** A status change as a stream event (0.3 marks the last one `final`). */
export function statusUpdate(d: Dialect, t: A2aTask): Json {
  const body = { taskId: t.id, contextId: t.contextId, status: status(d, t) };
  return d === "1.0" ? { statusUpdate: body } : { kind: "status-update", ...body, final: TERMINAL_STATES.has(t.state) };
}

/** Reply text as a stream event: appended to what was sent, or replacing it; the last chunk closes it. */
export function artifactUpdate(d: Dialect, t: A2aTask, text: string, append: boolean, lastChunk: boolean): Json {
  const body = { taskId: t.id, contextId: t.contextId, artifact: artifact(d, t, text), append, lastChunk };
  return d === "1.0" ? { artifactUpdate: body } : { kind: "artifact-update", ...body };
}

/** A result that is the task itself: wrapped in 1.0 (`{task}`), bare in 0.3. */
export const taskResult = (d: Dialect, task: Json): Json => (d === "1.0" ? { task } : task);
