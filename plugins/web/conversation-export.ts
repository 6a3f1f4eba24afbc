/**
 * A conversation as a file the person keeps: Markdown to read, JSON to process. Both hold what
 * the transcript shows (messages, tool calls and results, token usage), not the model's drafts:
 * the turns' events, folded into Markdown as a renderer folds them.
 */
import { tokenWords } from "../../src/protocol/usage.ts";
import type { ConversationSummary, TranscriptItem } from "../../src/protocol/channel.ts";
import { knownEvent, type StreamEvent } from "../../src/protocol/turn-stream.ts";

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

const iso = (ms: number) => new Date(ms).toISOString();

export function exportMarkdown(
  conv: string,
  summary: ConversationSummary | null,
  items: readonly TranscriptItem[],
): string {
  const out: string[] = [`# ${summary?.title ?? conv}`, ""];
  out.push(
    `- conversation: \`${conv}\``,
    ...(summary
      ? [
          `- channel: ${summary.channel}`,
          `- started: ${iso(summary.createdAt)}`,
          `- turns: ${summary.turns}, tokens: ${tokenWords(summary)}`,
        ]
      : []),
    `- exported: ${iso(Date.now())}`,
    "",
  );
  for (const it of items) {
    const e = knownEvent(it.event);
    if (e) out.push(...markdownOf(e, it.ts));
  }
  return out.join("\n");
}

/** One event of a turn as Markdown lines; none for what a reader of the file does not need. */
function markdownOf(e: StreamEvent, ts: number): string[] {
  switch (e.type) {
    case "turn-start": {
      if (!e.text && !e.attachments?.length) return [];
      // Attachments by name, type and block (the bytes stay in DATA/blocks).
      const files = (e.attachments ?? []).map(
        (a) => `- attached ${a.kind}: ${a.name ?? "(no name)"} (${a.mime}, ${a.bytes} bytes, block ${a.sha256})`,
      );
      return [`## You · ${iso(ts)}`, "", e.text ?? "", "", ...(files.length ? [...files, ""] : [])];
    }
    case "text-delta":
      return e.text ? [`## homed · ${iso(ts)}`, "", e.text, ""] : [];
    case "done": {
      const r = e.result;
      const ended = r.stopReason !== "done" ? ` (${r.stopReason})` : "";
      const spent = r.usage.inputTokens + r.usage.outputTokens > 0;
      return [
        `## homed · ${iso(ts)}${ended}`,
        "",
        r.text,
        "",
        ...(spent ? [`_${tokenWords(r.usage)} tokens_`, ""] : []),
      ];
    }
    case "tool-call": {
      const f = fence(e.arguments);
      return [`**Tool call \`${e.name}\`**`, "", `${f}json`, e.arguments, f, ""];
    }
    case "tool-result": {
      const f = fence(e.content);
      return [`**Tool result (${e.status})**`, "", f, e.content, f, ""];
    }
    default:
      return [];
  }
}

/** The conversation's events as the transcript has them (TranscriptItem: the turns' stream events, with id, time and mark). */
export function exportJson(
  conv: string,
  summary: ConversationSummary | null,
  items: readonly TranscriptItem[],
): string {
  return `${JSON.stringify({ conversation: { id: conv, ...summary }, exportedAt: Date.now(), events: items }, null, 2)}\n`;
}
