/**
 * The SSE frames the fake LLM sends, shaped like the real APIs' streams (field names, event
 * order, `usage: null` on OpenAI chunks, Anthropic's ping and empty first input_json_delta), so
 * the providers are tested against something faithful.
 */
import type { FakeToolCall, FakeUsage } from "./fake-llm.ts";

export type Wire = "openai" | "anthropic";

export interface Reply {
  text?: string;
  /** How many pieces the text streams in (default 3). */
  chunks?: number;
  toolCalls?: FakeToolCall[];
  finish?: "stop" | "length";
}

/** The frames of one response, and how many of them reach the first output (for cut-off steps). */
export interface Frames {
  frames: string[];
  cut: number;
}

/** `text` in `n` pieces of nearly equal length (fewer when it is shorter than `n`). */
export function pieces(text: string, n = 3): string[] {
  if (text === "") return [];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function argsText(call: FakeToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/**
 * OpenAI chat.completion.chunk frames: a role chunk, content deltas, each tool call as a first
 * fragment (index, id, name, empty arguments) followed by argument fragments, a finish chunk,
 * the usage chunk (empty choices) when `usage` is given, then `[DONE]`.
 */
export function openAIFrames(model: string, reply: Reply, usage: FakeUsage | null): Frames {
  const base = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    system_fingerprint: "fp_fake",
  };
  const extra = usage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
  const frames = [chunk({ role: "assistant", content: "", refusal: null })];
  let cut = 0;
  for (const p of pieces(reply.text ?? "", reply.chunks)) {
    frames.push(chunk({ content: p }));
    cut ||= frames.length;
  }
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, index) => {
    const id = call.id ?? `call_fake_${index}`;
    frames.push(chunk({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }));
    cut ||= frames.length;
    for (const p of pieces(argsText(call))) frames.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  frames.push(chunk({}, calls.length > 0 ? "tool_calls" : (reply.finish ?? "stop")));
  if (usage) {
    const u = {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      ...(usage.cached ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
    };
    frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage: u })}\n\n`);
  }
  frames.push("data: [DONE]\n\n");
  return { frames, cut: cut || frames.length };
}

/**
 * Anthropic message stream: message_start, per content block start/deltas/stop (a ping after the
 * first block start, as the API does), message_delta with stop_reason and output usage, message_stop.
 */
export function anthropicFrames(model: string, reply: Reply, usage: FakeUsage): Frames {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames = [
    event("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          // Anthropic counts cache reads apart from input_tokens; their sum is the prompt.
          input_tokens: usage.input - (usage.cached ?? 0),
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: usage.cached ?? 0,
          output_tokens: 1,
        },
      },
    }),
  ];
  let cut = 0;
  let index = 0;
  const ping = () => index === 0 && frames.push(event("ping", {}));
  if (reply.text) {
    frames.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    ping();
    for (const p of pieces(reply.text, reply.chunks)) {
      frames.push(event("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
      cut ||= frames.length;
    }
    frames.push(event("content_block_stop", { index }));
    index++;
  }
  const calls = reply.toolCalls ?? [];
  for (const [n, call] of calls.entries()) {
    frames.push(
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: call.id ?? `toolu_fake_${n}`, name: call.name, input: {} },
      }),
    );
    ping();
    cut ||= frames.length;
    frames.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }));
    for (const p of pieces(argsText(call)))
      frames.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }));
    frames.push(event("content_block_stop", { index }));
    index++;
  }
  const stopReason = calls.length > 0 ? "tool_use" : reply.finish === "length" ? "max_tokens" : "end_turn";
  frames.push(
    event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  );
  frames.push(event("message_stop", {}));
  return { frames, cut: cut || frames.length };
}
