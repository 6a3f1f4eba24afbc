/**
 * The notes plugin's tool specs (names, words for the model, argument schemas, risk classes).
 * The build imports this file to list the tools in the manifest: valibot and the spec type only.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

/** A note's name: its file name without .md. Letters (any script), digits, space, _ - . ' , ( ). */
export const NOTE_NAME = /^[\p{L}\p{N}_][\p{L}\p{N} _.,'()-]{0,119}$/u;
const Name = v.pipe(
  v.string(),
  v.trim(),
  v.regex(
    NOTE_NAME,
    "a note's name is 1-120 letters, digits, spaces and _ - . , ' ( ), not starting with a space or dot",
  ),
  v.description("The note's name (its file is DATA/notes/<name>.md), e.g. Shopping list."),
);
const Text = (what: string) => v.pipe(v.string(), v.maxLength(1_000_000), v.description(what));

export const TOOLS = {
  notes_create: {
    name: "notes_create",
    examples: ["write a note about this", "jot this down", "save this as a note", "记一下笔记"],
    description:
      "Create a Markdown note. Link other notes with [[their name]]. Fails if a note of that name exists (use notes_edit or notes_append). The note is indexed into memory.",
    input: v.strictObject({ name: Name, text: Text("The note's Markdown text.") }),
    risk: "write",
    ownOutput: "says whether the note was saved, with its name and links",
  },
  notes_read: {
    name: "notes_read",
    examples: ["open my note on the trip", "what's in my notes about the project"],
    description: "Read a note: its Markdown text, the notes it links to ([[...]]) and the notes that link to it.",
    input: v.strictObject({ name: Name }),
    risk: "read",
    untrustedOutput: true,
  },
  notes_edit: {
    name: "notes_edit",
    examples: ["fix the typo in my note", "update my note with the new date"],
    description:
      "Change a note: replace the exact text `find` (it must occur exactly once) with `replace`, or give `text` to replace the whole note.",
    input: v.strictObject({
      name: Name,
      find: v.optional(v.pipe(v.string(), v.minLength(1), v.description("Exact text to replace (once)."))),
      replace: v.optional(Text("What `find` becomes.")),
      text: v.optional(Text("The note's whole new text (instead of find/replace).")),
    }),
    risk: "write",
    ownOutput: "says whether the note was changed, with its name and links",
  },
  notes_append: {
    name: "notes_append",
    examples: ["add this to my shopping list note", "append to my journal", "加到笔记里"],
    description: "Add text at the end of a note (on a new line); creates the note if it does not exist.",
    input: v.strictObject({ name: Name, text: v.pipe(Text("Markdown to add."), v.minLength(1)) }),
    risk: "write",
    ownOutput: "says whether the note was saved, with its name and links",
  },
  notes_search: {
    name: "notes_search",
    examples: ["find my notes about recipes", "which note mentions the landlord", "搜一下我的笔记"],
    description:
      "Search the notes for words (every word must occur, any case); returns matching notes, best first, with the lines that match.",
    input: v.strictObject({
      query: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200), v.description("Words to find.")),
      limit: v.optional(
        v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50), v.description("Notes, default 10.")),
      ),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  notes_list: {
    name: "notes_list",
    examples: ["what notes do I have", "list my notes"],
    description: "List the notes: name, size, last change, newest first.",
    input: v.strictObject({}),
    risk: "read",
    untrustedOutput: true,
  },
  notes_links: {
    name: "notes_links",
    examples: ["which notes link to this one", "backlinks of my note"],
    description:
      "The wiki links of a note: the notes it links to with [[name]] (and which of them do not exist yet) and its backlinks (notes linking to it).",
    input: v.strictObject({ name: Name }),
    risk: "read",
    untrustedOutput: true,
  },
  notes_delete: {
    name: "notes_delete",
    examples: ["delete that note", "remove the old note"],
    description: "Delete a note's file. Memory keeps what it indexed of it (memory never forgets).",
    input: v.strictObject({ name: Name }),
    risk: "write",
    ownOutput: "says whether the note was deleted and which notes still link to it",
  },
} satisfies Record<string, ToolSpec>;
