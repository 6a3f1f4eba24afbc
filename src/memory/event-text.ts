/** What memory indexes of an event: its text and who said it, by kind. */
import { userMessageText } from "../protocol/attachments.ts";
import { MAX_INDEXED_TEXT_CHARS, readEventBody, type ReadEventBody } from "../protocol/event-bodies.ts";
import { chunkIndexText } from "./attachment-chunks.ts";

/**
 * Memory's own tool. Its calls are not indexed, as its results are not: a search restates what
 * the person asked, and recalled later it would answer a question with the question.
 */
export const MEMORY_SEARCH = "memory_search";

/** The text memory indexes of a parsed body; null for events with none. */
export function bodyText(e: ReadEventBody): string | null {
  switch (e.kind) {
    case "user-message": {
      const said = userMessageText(e.body.text, e.body.attachments);
      return (e.body.caption ? `${said}\n${e.body.caption}` : said).slice(0, MAX_INDEXED_TEXT_CHARS) || null;
    }
    case "attachment-chunk":
      return chunkIndexText(e.body).slice(0, MAX_INDEXED_TEXT_CHARS);
    case "model-output":
      if (e.body.discarded) return null;
      // The calls it made are what it did: "BROWSEOPEN" alone would say nothing of which page.
      return (
        [
          e.body.text,
          ...e.body.toolCalls.filter((c) => c.name !== MEMORY_SEARCH).map((c) => `${c.name} ${c.arguments}`),
        ]
          .join("\n")
          .trim() || null
      );
    case "agent-reply":
      // A reply the model wrote is indexed as its model-output; only other replies stand alone,
      // and a failure's reply is for the person: memory does not quote it back.
      return e.body.fromModel || e.body.error ? null : e.body.text || null;
    case "recall-turn":
      return [e.body.text, e.body.caption].filter(Boolean).join("\n") || null;
    case "plugin-text":
      return e.body.text.slice(0, MAX_INDEXED_TEXT_CHARS) || null;
    case "tool-result":
      return `${e.body.name}\n${e.body.content.slice(0, MAX_INDEXED_TEXT_CHARS)}`;
    case "tool-call":
    case "plugin-record":
    case "mark-clear":
    case "context":
      return null;
    case "other":
      return e.body.text ?? null;
  }
}

/** The text of a stored event that memory indexes, by kind; null for events with none. */
export function eventText(kind: string, body: string): string | null {
  const e = readEventBody(kind, body);
  return e ? bodyText(e) : null;
}

/**
 * Whether eventSpeaker names a person of a dialogue between people ("Caroline": a message that
 * says who sent it), not a role ("user", "assistant", "tool") nor a plugin's name ("notes").
 */
export function speakerIsPerson(e: ReadEventBody): boolean {
  const who = e.kind === "user-message" || e.kind === "recall-turn" ? e.body.speaker : undefined;
  return who !== undefined && who !== "" && who !== "user" && who !== "assistant";
}

/**
 * Who said an event's text, as memory indexes it (the speaker's name weighs in ranking, and two
 * adjacent turns of different speakers are one exchange): the person is "user", the model
 * "assistant", a tool's output "tool"; a message of a dialogue between people names its speaker.
 * "" when the source did not say (such turns are never linked to their neighbours).
 */
export function eventSpeaker(e: ReadEventBody, actor: string): string {
  switch (e.kind) {
    case "user-message":
      return e.body.speaker ?? "user";
    case "attachment-chunk":
      return "user";
    case "model-output":
    case "agent-reply":
      return "assistant";
    case "tool-result":
      return "tool";
    case "recall-turn":
      return e.body.speaker ?? "";
    case "plugin-text":
      return actor;
    default:
      return "";
  }
}
