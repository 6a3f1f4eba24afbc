/** What memory indexes of an event: its text, by kind. */
import { userMessageText } from "../protocol/attachments.ts";
import { MAX_INDEXED_TEXT_CHARS, readEventBody, type ReadEventBody } from "../protocol/event-bodies.ts";
import { chunkIndexText } from "./attachment-chunks.ts";

/** The text memory indexes of a parsed body; null for events with none. */
export function bodyText(e: ReadEventBody): string | null {
  switch (e.kind) {
    case "user-message":
      return userMessageText(e.body.text, e.body.attachments).slice(0, MAX_INDEXED_TEXT_CHARS) || null;
    case "attachment-chunk":
      return chunkIndexText(e.body).slice(0, MAX_INDEXED_TEXT_CHARS);
    case "model-output":
      return e.body.text || null;
    case "agent-reply":
      // A reply the model wrote is indexed as its model-output; only other replies stand alone.
      return e.body.fromModel ? null : e.body.text || null;
    case "recall-turn":
      return [e.body.text, e.body.caption].filter(Boolean).join("\n") || null;
    case "plugin-text":
      return e.body.text.slice(0, MAX_INDEXED_TEXT_CHARS) || null;
    case "tool-result":
      return `${e.body.name}\n${e.body.content.slice(0, MAX_INDEXED_TEXT_CHARS)}`;
    case "tool-call":
    case "plugin-record":
    case "mark-clear":
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
