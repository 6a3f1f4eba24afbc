/**
 * The A2A requests homed answers, checked with valibot before use, in both dialects: method names
 * (1.0 PascalCase, 0.3 slash names) and params. Objects are loose: both specs tell receivers to
 * ignore fields they do not know. A message's parts become the turn's text; file parts are
 * refused (ContentTypeNotSupported), data parts are given to the model as JSON.
 */
import * as v from "valibot";
import type { Dialect } from "./a2a-model.ts";

/** The methods homed serves, by their name in each dialect. */
export type A2aOp = "send" | "stream" | "get" | "cancel" | "list" | "push" | "subscribe" | "card";
export const METHODS: Record<string, { op: A2aOp; dialect: Dialect }> = {
  SendMessage: { op: "send", dialect: "1.0" },
  SendStreamingMessage: { op: "stream", dialect: "1.0" },
  GetTask: { op: "get", dialect: "1.0" },
  CancelTask: { op: "cancel", dialect: "1.0" },
  ListTasks: { op: "list", dialect: "1.0" },
  SubscribeToTask: { op: "subscribe", dialect: "1.0" },
  GetExtendedAgentCard: { op: "card", dialect: "1.0" },
  CreateTaskPushNotificationConfig: { op: "push", dialect: "1.0" },
  GetTaskPushNotificationConfig: { op: "push", dialect: "1.0" },
  ListTaskPushNotificationConfigs: { op: "push", dialect: "1.0" },
  DeleteTaskPushNotificationConfig: { op: "push", dialect: "1.0" },
  "message/send": { op: "send", dialect: "0.3" },
  "message/stream": { op: "stream", dialect: "0.3" },
  "tasks/get": { op: "get", dialect: "0.3" },
  "tasks/cancel": { op: "cancel", dialect: "0.3" },
  "tasks/list": { op: "list", dialect: "0.3" },
  "tasks/resubscribe": { op: "subscribe", dialect: "0.3" },
  "agent/getAuthenticatedExtendedCard": { op: "card", dialect: "0.3" },
  "tasks/pushNotificationConfig/set": { op: "push", dialect: "0.3" },
  "tasks/pushNotificationConfig/get": { op: "push", dialect: "0.3" },
  "tasks/pushNotificationConfig/list": { op: "push", dialect: "0.3" },
  "tasks/pushNotificationConfig/delete": { op: "push", dialect: "0.3" },
};

/** A JSON-RPC 2.0 request; `id` may be a string, an integer or null. */
export const RpcRequest = v.looseObject({
  jsonrpc: v.literal("2.0", 'jsonrpc must be "2.0"'),
  id: v.optional(v.union([v.string(), v.pipe(v.number(), v.integer()), v.null()], "id must be a string or an integer")),
  method: v.pipe(v.string("method must be a string"), v.minLength(1, "method is empty")),
  params: v.optional(v.unknown()),
});

const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(128));
/** Becomes part of a conversation id (`a2a:<contextId>`). */
export const ContextId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9._:-]{1,128}$/, "contextId is 1-128 letters, digits, . _ : or -"),
);
const Metadata = v.optional(v.record(v.string(), v.unknown()));
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Text = v.pipe(v.string(), v.maxLength(1_000_000));

const Part = v.looseObject({
  kind: v.optional(v.string()),
  text: v.optional(Text),
  data: v.optional(v.unknown()),
  file: v.optional(v.unknown()),
  url: v.optional(v.unknown()),
  raw: v.optional(v.unknown()),
});

const Message = v.looseObject({
  kind: v.optional(v.literal("message")),
  messageId: Id,
  role: v.picklist(["ROLE_USER", "ROLE_AGENT", "user", "agent"], "role must be a user or agent role"),
  parts: v.pipe(v.array(Part), v.minLength(1, "a message needs parts"), v.maxLength(1000)),
  contextId: v.optional(ContextId),
  taskId: v.optional(Id),
  metadata: Metadata,
});
export type WireMessage = v.InferOutput<typeof Message>;

export const SendParams = v.looseObject({
  message: Message,
  configuration: v.optional(
    v.looseObject({
      acceptedOutputModes: v.optional(v.array(v.string())),
      historyLength: v.optional(Count),
      /** 1.0: answer at once with the task still working. */
      returnImmediately: v.optional(v.boolean()),
      /** 0.3: false answers at once with the task still working. */
      blocking: v.optional(v.boolean()),
      taskPushNotificationConfig: v.optional(v.unknown()),
      pushNotificationConfig: v.optional(v.unknown()),
    }),
  ),
  metadata: Metadata,
});
export type SendParams = v.InferOutput<typeof SendParams>;

export const TaskIdParams = v.looseObject({ id: Id, historyLength: v.optional(Count), metadata: Metadata });

export const ListParams = v.looseObject({
  contextId: v.optional(v.string()),
  status: v.optional(v.string()),
  pageSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
  pageToken: v.optional(v.string()),
  historyLength: v.optional(Count),
  statusTimestampAfter: v.optional(v.string()),
  includeArtifacts: v.optional(v.boolean()),
});

/** The text a message's parts say; `file` when a part is a file (which homed cannot take). */
export function messageText(m: WireMessage): { text: string } | { file: true } {
  const out: string[] = [];
  for (const p of m.parts) {
    if (p.file !== undefined || p.url !== undefined || p.raw !== undefined || p.kind === "file") return { file: true };
    if (typeof p.text === "string") out.push(p.text);
    else if (p.data !== undefined) out.push(JSON.stringify(p.data));
  }
  return { text: out.join("\n") };
}

/** Whether output modes a client accepts include text (none named: anything goes). */
export function acceptsText(modes: readonly string[] | undefined): boolean {
  if (!modes?.length) return true;
  return modes.some((m) => /^(text(\/(plain|markdown|\*))?|\*\/\*|\*)$/i.test(m.split(";")[0]?.trim() ?? ""));
}
