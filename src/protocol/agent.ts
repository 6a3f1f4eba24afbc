/**
 * The turn's wire contracts: how plugins register tools and stage handlers, what the kernel
 * sends them when a stage runs or a tool is called, and what they may answer.
 * Every answer is validated; an answer that does not parse is treated like no answer (the
 * handler is skipped and logged) — except for critical plugins at before_toolcall, where it
 * denies.
 */
import * as v from "valibot";
import { ImageMimeSchema, MAX_IMAGE_ALT_CHARS, type StoredImage } from "./images.ts";
import { BulkRefSchema } from "./plugin.ts";

export const STAGES = [
  "on_input",
  "pre_action",
  "post_action",
  "before_toolcall",
  "after_toolcall",
  "before_output",
  "after_output",
] as const;
export type StageName = (typeof STAGES)[number];

export const AgentMethod = {
  /** plugin → kernel */
  RegisterTools: "tools/register",
  UnregisterTools: "tools/unregister",
  RegisterStages: "stages/register",
  /** kernel → plugin */
  RunTool: "tool/run",
  RunStage: "stage/run",
  /**
   * kernel → plugin notification: the turn that made call `callId` was stopped. The plugin
   * should abort the tool (its `ctx.signal` fires); the kernel has stopped waiting for it.
   */
  CancelTool: "tool/cancel",
  /**
   * kernel → plugin, before the approval question, for a tool that `checks`: would the plugin
   * refuse this call anyway? A person is not asked about a call that cannot run.
   */
  CheckTool: "tool/check",
} as const;

/** Tool names every provider accepts (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
export const ToolName = v.pipe(
  v.string(),
  v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1-64 letters, digits, _ or -"),
);

/**
 * What a tool can do to the world, declared by whoever registers it. `read` has no
 * side effects and may run unasked; the others are asked about unless the owner allows them:
 * `write` changes files or data, `exec` runs code or commands, `network` reaches other hosts,
 * `secret` touches credentials.
 */
export const RISK_CLASSES = ["read", "write", "exec", "network", "secret"] as const;
export const RiskClass = v.picklist(RISK_CLASSES, `risk must be one of ${RISK_CLASSES.join(", ")}`);
export type RiskClass = v.InferOutput<typeof RiskClass>;

export const ToolDefinition = v.strictObject({
  name: ToolName,
  description: v.pipe(v.string(), v.maxLength(4000)),
  /** JSON Schema of the arguments (an object schema). */
  parameters: v.record(v.string(), v.unknown()),
  /** Required: a tool that does not say what it can do is not registered. */
  risk: RiskClass,
  /** The plugin's own view: "ask" = a person should confirm each call unless policy says otherwise. */
  approval: v.optional(v.picklist(["auto", "ask"]), "auto"),
  /**
   * What it returns comes from outside the person's own words (web pages, feeds, files, notes,
   * command output, other agents): its result carries the untrusted mark, and so does the
   * conversation while the result is in what the model is sent — no `write`, `exec` or `secret`
   * tool, nor one that sends data out, runs without a person's yes, and `[approval]
   * untrusted_deny` applies (src/agent/approval.ts). The owner may trust a tool's output
   * (`[trust] tools`). A tool that declares neither this nor `ownOutput` is treated as this.
   */
  untrustedOutput: v.optional(v.boolean()),
  /**
   * Why what it returns is the person's own or the daemon's, not outside text ("says whether the
   * file was written", "the daemon's clock"): only a tool that says why returns unmarked output
   * (outputIsOwn). Every built-in tool declares one of the two (test/agent/tool-output.test.ts).
   */
  ownOutput: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  /**
   * It sends what the model gives it to someone else (a message to another agent, text typed
   * into a page): asked about while the conversation is marked, like `write` and `exec`.
   */
  sendsOut: v.optional(v.boolean(), false),
  /**
   * It checks a call before anyone is asked (`tool/check`): one it would refuse anyway (a page
   * on a private address the owner has not allowed) is refused without an approval question.
   */
  checks: v.optional(v.boolean(), false),
  /**
   * What a person says when they need it ("take a picture of the page"): memory's index ranks
   * the tools by these with the name and description (src/memory/tool-index.ts). Never sent to
   * the model, so they cost nothing per turn.
   */
  examples: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(300))), v.maxLength(20)), []),
  /**
   * Offered on every model call (src/agent/tool-offer.ts): a tool nearly any turn may need that
   * costs little to send. Honoured for the kernel's and built-in plugins' tools only, so an
   * installed plugin cannot make every request larger.
   */
  core: v.optional(v.boolean()),
});
export type ToolDefinition = v.InferOutput<typeof ToolDefinition>;

/** Whether a tool's output is the person's own or the daemon's: it says why, and not that it is untrusted. */
export function outputIsOwn(def: Pick<ToolDefinition, "untrustedOutput" | "ownOutput">): boolean {
  return def.untrustedOutput !== true && def.ownOutput !== undefined;
}

/** Whether a tool says what its output is (untrusted, or the person's own and why). */
export function declaresOutput(def: Pick<ToolDefinition, "untrustedOutput" | "ownOutput">): boolean {
  return def.untrustedOutput === true || def.ownOutput !== undefined;
}

export const RegisterToolsParams = v.strictObject({ tools: v.pipe(v.array(ToolDefinition), v.maxLength(500)) });
export const UnregisterToolsParams = v.strictObject({ names: v.array(ToolName) });

export const StageRegistration = v.strictObject({
  stage: v.picklist(STAGES),
  /** Lower runs first. */
  priority: v.optional(v.pipe(v.number(), v.integer(), v.minValue(-1_000_000), v.maxValue(1_000_000)), 100),
  /** How long the kernel waits for this handler on each turn. */
  deadlineMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(60_000)), 2000),
});
export const RegisterStagesParams = v.strictObject({ handlers: v.pipe(v.array(StageRegistration), v.maxLength(100)) });
export const RegisterStagesResult = v.object({ ids: v.array(v.number()) });

export interface ToolCallView {
  id: string;
  name: string;
  arguments: unknown;
}

/** What `stage/run` carries for each stage. */
export interface StagePayloads {
  on_input: {
    conv: string;
    channel: string;
    text: string;
    untrusted: boolean;
    /**
     * The files sent with the words, with the text read from them (src/protocol/attachments.ts
     * `attachmentLine`); a handler may block the input for them; a rewrite changes the words only.
     */
    attachments?: string[];
  };
  pre_action: { conv: string; channel: string; input: string; messages: number };
  post_action: {
    conv: string;
    iteration: number;
    text: string;
    toolCalls: { id: string; name: string; arguments: string }[];
  };
  before_toolcall: { conv: string; call: ToolCallView; untrusted: boolean; origin: ExecutionOrigin };
  after_toolcall: {
    conv: string;
    call: ToolCallView;
    /** `images`: what the tool returned besides text, already stored (a handler sees, cannot change them). */
    result: { content: string; isError: boolean; images?: StoredImage[] };
  };
  before_output: { conv: string; channel: string; text: string };
  after_output: { conv: string; channel: string; text: string; usage: { inputTokens: number; outputTokens: number } };
}

export type ExecutionOrigin = "foreground" | "background" | "scheduled";

export const StageRunParams = v.strictObject({
  stage: v.picklist(STAGES),
  handler: v.number(),
  payload: v.unknown(),
});

/** What a handler may answer, per stage. Everything is optional: `{}` means "carry on". */
export const StageResults = {
  on_input: v.object({
    action: v.optional(v.picklist(["continue", "block", "reply"])),
    /** continue: the (rewritten) input; reply: the reply to send instead of running the model. */
    text: v.optional(v.string()),
    reason: v.optional(v.string()),
  }),
  pre_action: v.object({ inject: v.optional(v.array(v.string())) }),
  post_action: v.object({
    action: v.optional(v.picklist(["continue", "redirect"])),
    /** Replace the model's text (filtering). */
    text: v.optional(v.string()),
    /** Ids of tool calls to drop. */
    dropToolCalls: v.optional(v.array(v.string())),
    /** redirect: discard this output and tell the model this instead; the loop goes on. */
    redirect: v.optional(v.string()),
  }),
  before_toolcall: v.object({
    action: v.optional(v.picklist(["allow", "deny"])),
    reason: v.optional(v.string()),
    arguments: v.optional(v.record(v.string(), v.unknown())),
  }),
  after_toolcall: v.object({ content: v.optional(v.string()) }),
  before_output: v.object({ text: v.optional(v.string()) }),
  after_output: v.object({}),
} satisfies Record<StageName, v.GenericSchema>;

export type StageResult<S extends StageName> = v.InferOutput<(typeof StageResults)[S]>;

/** A mark's source is a line a person reads in an approval question. */
export const MAX_MARK_CHARS = 300;

export const RunToolParams = v.strictObject({
  name: ToolName,
  callId: v.string(),
  arguments: v.unknown(),
  conv: v.string(),
  untrusted: v.boolean(),
  /**
   * Untrusted text was in the model's view when it made the call, and where it came from (sent
   * only then): what the tool keeps of the call (a job's prompt) should carry it on.
   */
  mark: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MARK_CHARS))),
});

export const CancelToolParams = v.object({ callId: v.string() });

export const CheckToolParams = v.strictObject({ name: ToolName, arguments: v.unknown(), conv: v.string() });
/** Why the call would be refused, or null: it may go on to the approval policy. */
export const CheckToolResult = v.object({ refuse: v.nullable(v.pipe(v.string(), v.maxLength(2000))) });

/**
 * An image in a tool's answer: its bytes as bulk (a segment reference, or base64 on stdio) and
 * the type the plugin claims. The kernel checks the size and sniffs the type itself
 * (src/protocol/images.ts); the claim is only compared. `alt`: what the image shows (a
 * screenshot's page), kept with its block record and indexed, so memory finds the image by it.
 */
export const ToolImageFrame = v.strictObject({
  mime: ImageMimeSchema,
  data: BulkRefSchema,
  alt: v.optional(v.pipe(v.string(), v.maxLength(MAX_IMAGE_ALT_CHARS))),
});

/** `source` cut to MAX_MARK_CHARS. */
export function capMark(source: string): string {
  return source.length > MAX_MARK_CHARS ? `${source.slice(0, MAX_MARK_CHARS - 1)}…` : source;
}

export const RunToolResult = v.object({
  content: v.string(),
  /**
   * The result carries text from outside the person's own words although the tool's definition
   * does not say so for every call: where it came from ("a page of other-agent"). It marks the
   * conversation as `untrustedOutput` does. A tool can only add a mark, never remove one.
   */
  mark: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MARK_CHARS))),
  /**
   * Why this result is the person's own although the tool's output in general is not (a file of
   * a folder the owner named trusted): no mark. Taken from built-in plugins only, and never over
   * a `mark`.
   */
  own: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MARK_CHARS))),
  isError: v.optional(v.boolean(), false),
  /** The kernel keeps the first MAX_TOOL_IMAGES and drops the rest with a note; past 64 the answer is malformed. */
  images: v.optional(v.pipe(v.array(ToolImageFrame), v.maxLength(64))),
});
export type RunToolResult = v.InferOutput<typeof RunToolResult>;
