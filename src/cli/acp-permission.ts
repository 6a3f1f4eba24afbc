/**
 * One tool call put to the editor's person as `session/request_permission`: allow once, allow
 * in this session (the conversation: asked no more there), always allow, or reject. Anything but a well-formed choice of an allow option — the editor's
 * "cancelled", a malformed answer, the editor gone — is a rejection: the approval gate fails closed.
 */
import * as v from "valibot";
import type { RpcPeer } from "../ipc/rpc-peer.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { ApprovalQuestion } from "../client/chat-connection.ts";
import { AcpMethod, PermissionAnswer, PermissionOptionId } from "./acp-schema.ts";
import { toolCallUpdate } from "./acp-updates.ts";

export type AcpLog = (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;

/** How long the editor may take over a question: the daemon's own approval timeout decides first. */
const PERMISSION_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** What the person chose. */
export type PermissionChoice = "once" | "session" | "always" | "reject";

export async function askEditor(
  editor: RpcPeer,
  sessionId: string,
  toolCallId: string,
  q: ApprovalQuestion,
  log: AcpLog,
): Promise<PermissionChoice> {
  const { sessionUpdate: _, ...toolCall } = toolCallUpdate(
    toolCallId,
    q.tool,
    JSON.stringify(q.arguments ?? {}),
    "pending",
  );
  // Why it is asked although a rule allows it (the turn read untrusted content) shows in the card.
  const note = q.note ? { content: [{ type: "content", content: { type: "text", text: q.note } }] } : {};
  let raw: unknown;
  try {
    raw = await editor.request(
      AcpMethod.RequestPermission,
      {
        sessionId,
        toolCall: { ...toolCall, ...note },
        options: [
          { optionId: PermissionOptionId.AllowOnce, name: "Allow once", kind: "allow_once" },
          {
            optionId: PermissionOptionId.AllowSession,
            name: `Allow ${q.tool} in this session`,
            kind: "allow_always",
          },
          { optionId: PermissionOptionId.AllowAlways, name: `Always allow ${q.tool}`, kind: "allow_always" },
          { optionId: PermissionOptionId.RejectOnce, name: "Reject", kind: "reject_once" },
        ],
      },
      { timeoutMs: PERMISSION_TIMEOUT_MS },
    );
  } catch (err) {
    log("warn", "permission request failed: denied", { tool: q.tool, err: (err as Error).message });
    return "reject";
  }
  const a = v.safeParse(PermissionAnswer, raw);
  if (!a.success) {
    log("warn", "malformed permission answer: denied", { reason: describeIssues(a.issues) });
    return "reject";
  }
  const o = a.output.outcome;
  if (o.outcome !== "selected") return "reject";
  if (o.optionId === PermissionOptionId.AllowOnce) return "once";
  if (o.optionId === PermissionOptionId.AllowSession) return "session";
  if (o.optionId === PermissionOptionId.AllowAlways) return "always";
  return "reject";
}
