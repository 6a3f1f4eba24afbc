/** Building A2A requests and reading replies with @a2a-js/sdk's own types, for the A2A suites. */
import { SendMessageRequest } from "@a2a-js/sdk";

/** A user message as the SDK builds one from JSON. */
export const userMessage = (text: string, o: { contextId?: string; returnImmediately?: boolean } = {}) =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [{ text }],
      ...(o.contextId ? { contextId: o.contextId } : {}),
    },
    ...(o.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });

export const textOf = (parts: { content?: { $case: string; value: unknown } }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
