/**
 * Export files as the suites write them, after the formats' public descriptions: a ChatGPT
 * `conversations.json` (a tree per conversation, `current_node` its visible leaf), a Claude one
 * (`chat_messages` in order, content blocks) and JSON lines. Pretty-printed like the real
 * exports, so each conversation starts on a line of its own.
 */

export interface ChatgptNode {
  id: string;
  parent: string | null;
  role?: string;
  text?: unknown[];
  contentType?: string;
  time?: number | null;
  extra?: Record<string, unknown>;
}

/** One ChatGPT conversation from its nodes (children are filled in from the parents). */
export function chatgptConversation(
  id: string,
  title: string,
  createTime: number,
  nodes: ChatgptNode[],
  currentNode: string | null,
): Record<string, unknown> {
  const mapping: Record<string, { id: string; parent: string | null; children: string[]; message: unknown }> = {};
  for (const n of nodes)
    mapping[n.id] = {
      id: n.id,
      parent: n.parent,
      children: [],
      message:
        n.role === undefined
          ? null
          : {
              id: `msg-${n.id}`,
              author: { role: n.role, name: null, metadata: {} },
              create_time: n.time === undefined ? createTime + 1 : n.time,
              content: { content_type: n.contentType ?? "text", parts: n.text ?? [] },
              status: "finished_successfully",
              weight: 1,
              recipient: "all",
              metadata: {},
              ...n.extra,
            },
    };
  for (const n of nodes) if (n.parent) mapping[n.parent]?.children.push(n.id);
  return {
    id,
    conversation_id: id,
    title,
    create_time: createTime,
    update_time: createTime + 100,
    mapping,
    current_node: currentNode,
  };
}

/** A conversation whose person edited a message and regenerated a reply, with everything a reader leaves out. */
export function branchingChatgpt(): Record<string, unknown> {
  const t = 1_700_000_000;
  return chatgptConversation(
    "conv-branch",
    "Kayak trip planning",
    t,
    [
      { id: "root", parent: null },
      { id: "sys", parent: "root", role: "system", text: ["You are ChatGPT."], extra: { weight: 0 } },
      { id: "u1", parent: "sys", role: "user", text: ["Where should I kayak in June, near Oslo?"], time: t + 30 },
      { id: "a1-first", parent: "u1", role: "assistant", text: ["A reply that was regenerated."], time: t + 40 },
      {
        id: "call",
        parent: "u1",
        role: "assistant",
        contentType: "code",
        text: [],
        time: t + 41,
        extra: { recipient: "browser", content: { content_type: "code", language: "unknown", text: "search('oslo')" } },
      },
      { id: "tool", parent: "call", role: "tool", text: ["search results"], time: t + 42 },
      {
        id: "a1",
        parent: "tool",
        role: "assistant",
        text: ["Try the Oslofjord islands.", "Bring a spray skirt."],
        time: t + 50,
      },
      {
        id: "u2",
        parent: "a1",
        role: "user",
        contentType: "multimodal_text",
        text: [
          { content_type: "image_asset_pointer", asset_pointer: "file-service://x", width: 10 },
          "Is this boat fine?",
        ],
        time: null,
      },
      {
        id: "hidden",
        parent: "u2",
        role: "user",
        text: ["(context)"],
        extra: { metadata: { is_visually_hidden_from_conversation: true } },
      },
      { id: "think", parent: "hidden", role: "assistant", contentType: "thoughts", text: [], time: t + 60 },
      { id: "empty", parent: "think", role: "assistant", text: ["   "], time: t + 65 },
      { id: "a2", parent: "empty", role: "assistant", text: ["Yes, a sea kayak is fine."], time: t + 70 },
      // The person went back to the first wording after trying another: the last child is not the current branch.
      { id: "u1-old", parent: "sys", role: "user", text: ["Where should I paddle in June?"], time: t + 10 },
      { id: "a1-old", parent: "u1-old", role: "assistant", text: ["The old answer nobody sees."], time: t + 20 },
    ],
    "a2",
  );
}

/** A Claude export's conversation: content blocks when given, else `text`. */
export function claudeConversation(): Record<string, unknown> {
  return {
    uuid: "c-uuid-1",
    name: "Sourdough starter",
    summary: "",
    created_at: "2024-05-01T08:00:00.000Z",
    updated_at: "2024-05-01T09:00:00.000Z",
    account: { uuid: "acct" },
    chat_messages: [
      {
        uuid: "m1",
        text: "My starter smells like acetone, is it dead?",
        content: [{ type: "text", text: "My starter smells like acetone, is it dead?" }],
        sender: "human",
        created_at: "2024-05-01T08:00:05.000Z",
        updated_at: "2024-05-01T08:00:05.000Z",
        attachments: [],
        files: [],
      },
      {
        uuid: "m2",
        text: "",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "No, it is hungry." },
          { type: "tool_use", name: "web_search", input: {} },
          { type: "text", text: "Feed it twice a day." },
        ],
        sender: "assistant",
        created_at: "2024-05-01T08:00:09.000Z",
      },
      { uuid: "m3", text: "Thanks, naming it Bubbles.", sender: "human", created_at: "2024-05-01T08:01:00.000Z" },
      { uuid: "m4", text: "", content: [], sender: "assistant", created_at: "2024-05-01T08:01:05.000Z" },
    ],
  };
}

/** A JSON array as a real export writes it: pretty-printed, one conversation after another. */
export const pretty = (xs: unknown[]) => JSON.stringify(xs, null, 2);

/** The 1-based line each top-level element of `pretty(xs)` starts on. */
export function elementLines(text: string): number[] {
  return text
    .split("\n")
    .map((l, i) => (l === "  {" ? i + 1 : 0))
    .filter(Boolean);
}
