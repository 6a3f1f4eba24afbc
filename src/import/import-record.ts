/**
 * What an export reader makes of one record of its file (a conversation of a ChatGPT or Claude
 * export, a line of JSON lines): the conversation — with what was left out of it on purpose —
 * or, for a record that does not parse or validate, its line and the reason. A bad record is
 * never partly imported.
 */
import * as v from "valibot";
import type { ImportedConversation } from "../protocol/import.ts";

/**
 * Counts of what a reader leaves out on purpose, by reason: whole messages ("system", "tool",
 * "hidden", "empty", "content code" …) and the non-text parts of messages whose text is kept
 * ("non-text parts": images, files, tool calls).
 */
export type LeftOut = Record<string, number>;

export type ImportRecord =
  | { kind: "conversation"; line: number; conversation: ImportedConversation; left: LeftOut }
  | { kind: "bad"; line: number; reason: string };

/** The formats `homed import` reads. */
export const IMPORT_FORMATS = ["chatgpt", "claude", "jsonl", "homed"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Add one to a reason's count. */
export function leave(left: LeftOut, reason: string, n = 1): void {
  if (n > 0) left[reason] = (left[reason] ?? 0) + n;
}

/** A title as the list shows it: one line, cut to `max` characters. */
export function titleOf(raw: string | null | undefined, max: number): string | undefined {
  const t = (raw ?? "").replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/**
 * A title made from a conversation's first words, as the conversation list makes one for a chat
 * from its first message (Store.listConversations): one line of at most this many characters.
 */
export const FIRST_WORDS_TITLE_CHARS = 60;

/**
 * The title an export's conversation is listed by: the source's own, else — as a chat is titled
 * by its first message — `firstWords`, what the person said first (else the assistant). So a
 * conversation without a title in its export (Claude's `name` is often "", ChatGPT's `title` may
 * be null) is listed by what was said in it, never by its id.
 */
export function conversationTitle(
  raw: string | null | undefined,
  firstWords: string | undefined,
  max: number,
): string | undefined {
  return titleOf(raw, max) ?? titleOf(firstWords, FIRST_WORDS_TITLE_CHARS);
}

/** The first words of `messages` for a title: the person's first message, else the first. */
export function firstWords(messages: readonly { role: string; words: string }[]): string | undefined {
  return (messages.find((m) => m.role === "user") ?? messages[0])?.words;
}

/** A record's validation issues as a reason, each path under `prefix` ("mapping.n3.message"). */
export function issuesAt(prefix: string, issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = [prefix, v.getDotPath(issue)].filter(Boolean).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/**
 * A document's text as it follows a message's words (as src/protocol/attachments.ts shows a
 * chat's attachment to the model): its name, then what it says.
 */
export function attachedText(name: string | null | undefined, text: string): string {
  const n = (name ?? "").trim();
  return `[attached document${n ? ` "${n}"` : ""}]\nits text:\n${text}`;
}
