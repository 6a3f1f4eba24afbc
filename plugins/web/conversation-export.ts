/**
 * A conversation as a file the person keeps: Markdown to read, JSON to process. Both hold what
 * the transcript shows (messages, tool calls and results, token usage), not the model's drafts.
 */
import { tokenWords } from "../../src/protocol/usage.ts";
import type { ConversationSummary, TranscriptItem } from "../../src/protocol/channel.ts";

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
    if (it.kind === "user") {
      out.push(`## You · ${iso(it.ts)}`, "", it.text, "");
      // Attachments by name, type and block (the bytes stay in DATA/blocks).
      for (const a of it.attachments ?? [])
        out.push(`- attached ${a.kind}: ${a.name ?? "(no name)"} (${a.mime}, ${a.bytes} bytes, block ${a.sha256})`);
      if (it.attachments?.length) out.push("");
    } else if (it.kind === "assistant") {
      const ended = it.status && it.status !== "done" ? ` (${it.status})` : "";
      out.push(`## homed · ${iso(it.ts)}${ended}`, "", it.text, "");
      if (it.usage) out.push(`_${tokenWords(it.usage)} tokens_`, "");
    } else if (it.kind === "tool-call" || it.kind === "tool-result") {
      const f = fence(it.text);
      const head = it.kind === "tool-call" ? `Tool call \`${it.name ?? "tool"}\`` : `Tool result (${it.status ?? ""})`;
      out.push(`**${head}**`, "", `${f}${it.kind === "tool-call" ? "json" : ""}`, it.text, f, "");
    }
  }
  return out.join("\n");
}

export function exportJson(
  conv: string,
  summary: ConversationSummary | null,
  items: readonly TranscriptItem[],
): string {
  return `${JSON.stringify({ conversation: { id: conv, ...summary }, exportedAt: Date.now(), messages: items }, null, 2)}\n`;
}
