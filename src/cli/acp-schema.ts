/**
 * What an editor sends `homed acp` (Agent Client Protocol v1, the schema `@agentclientprotocol/sdk`
 * ships): the params of the methods homed serves and the answer to its permission question. Loose
 * objects: ACP lets either side add fields (`_meta`, newer capabilities) that homed ignores; what
 * homed reads is checked.
 */
import * as v from "valibot";

/** The ACP version homed speaks; an editor asking for another gets this one back (it decides). */
export const ACP_PROTOCOL_VERSION = 1;

export const AcpMethod = {
  Initialize: "initialize",
  Authenticate: "authenticate",
  SessionNew: "session/new",
  SessionLoad: "session/load",
  SessionPrompt: "session/prompt",
  SessionCancel: "session/cancel",
  /** agent → client */
  SessionUpdate: "session/update",
  RequestPermission: "session/request_permission",
} as const;

/**
 * A session id becomes the conversation `acp:<id>`: ids homed makes are UUIDs; one an editor
 * brings back to session/load must still make a conversation id (200 characters at most).
 */
export const SessionId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.:-]{1,160}$/, "a session id is 1-160 letters, digits, _ . : or -"),
);

export const InitializeParams = v.looseObject({
  protocolVersion: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535)),
  clientCapabilities: v.optional(v.unknown()),
  clientInfo: v.nullish(v.looseObject({ name: v.string(), version: v.optional(v.string()) })),
});

const Cwd = v.pipe(v.string(), v.maxLength(4096));

export const NewSessionParams = v.looseObject({
  cwd: Cwd,
  mcpServers: v.nullish(v.array(v.unknown())),
});

export const LoadSessionParams = v.looseObject({
  sessionId: SessionId,
  cwd: Cwd,
  mcpServers: v.nullish(v.array(v.unknown())),
});

/** One block of a prompt: text and resource links always; embedded resources (advertised); others refused. */
export const ContentBlock = v.variant("type", [
  v.looseObject({ type: v.literal("text"), text: v.string() }),
  v.looseObject({
    type: v.literal("resource_link"),
    uri: v.string(),
    name: v.optional(v.string()),
    title: v.nullish(v.string()),
  }),
  v.looseObject({
    type: v.literal("resource"),
    resource: v.looseObject({ uri: v.string(), text: v.optional(v.string()), mimeType: v.nullish(v.string()) }),
  }),
  v.looseObject({ type: v.picklist(["image", "audio"]) }),
]);
export type ContentBlock = v.InferOutput<typeof ContentBlock>;

export const PromptParams = v.looseObject({
  sessionId: SessionId,
  prompt: v.pipe(v.array(ContentBlock), v.maxLength(10_000)),
});

export const CancelParams = v.looseObject({ sessionId: SessionId });

/** The editor's answer to session/request_permission. */
export const PermissionAnswer = v.looseObject({
  outcome: v.variant("outcome", [
    v.looseObject({ outcome: v.literal("cancelled") }),
    v.looseObject({ outcome: v.literal("selected"), optionId: v.string() }),
  ]),
});

/** The options homed offers for a tool call; their ids are what the editor sends back. */
export const PermissionOptionId = {
  AllowOnce: "allow_once",
  /** Allow the tool for the rest of the session (its conversation), untrusted text in view or not. */
  AllowSession: "allow_session",
  AllowAlways: "allow_always",
  RejectOnce: "reject_once",
} as const;

/** JSON-RPC error codes ACP names (its schema's ErrorCode). */
export const AcpErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
} as const;
