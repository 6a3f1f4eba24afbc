/**
 * The files plugin's tool specs: names, words for the model, argument schemas and risk classes.
 * The build imports this file to list the tools in the manifest, so it imports nothing but
 * valibot and the spec type (main.ts attaches the code).
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

const Path = v.pipe(
  v.string("path must be a string"),
  v.minLength(1, "path must not be empty"),
  v.maxLength(4096, "path must be at most 4096 characters"),
  v.description("Relative to the workspace (the first allowed root), or absolute inside an allowed root."),
);
const Count = (what: string, max: number) =>
  v.pipe(
    v.number(`${what} must be a number`),
    v.integer(`${what} must be a whole number`),
    v.minValue(1),
    v.maxValue(max),
  );

export const TOOLS = {
  files_read: {
    name: "files_read",
    examples: ["show me the config file", "what's in this file", "open readme", "看看这个文件"],
    description:
      "Read a text file, with line numbers. Large files come a page at a time: the answer says which lines it shows and the offset to ask for next. Binary files are refused.",
    input: v.strictObject({
      path: Path,
      offset: v.optional(
        v.pipe(Count("offset", 1_000_000_000), v.description("First line to show (1-based). Default 1.")),
      ),
      limit: v.optional(
        v.pipe(
          Count("limit", 1_000_000),
          v.description("How many lines to show at most. Default: as many as fit a page."),
        ),
      ),
    }),
    risk: "read",
    untrustedOutput: true,
    // Reading a file the person names is as common as recalling: offered on every call.
    core: true,
  },
  files_write: {
    name: "files_write",
    examples: ["save this to a file", "create a text file with this", "写到文件里"],
    description:
      "Create a file or replace its whole content (missing parent folders are made). The file is written whole or not at all. To change part of a file, use files_edit.",
    input: v.strictObject({
      path: Path,
      content: v.pipe(v.string("content must be a string"), v.description("The complete new content of the file.")),
    }),
    risk: "write",
    ownOutput: "says whether the file was written, and its size",
  },
  files_edit: {
    name: "files_edit",
    examples: ["change this line in the file", "replace the port in the config"],
    description:
      "Replace an exact piece of text in a file. old_string must match the file exactly (spaces, indentation and line breaks included) and only once, unless replace_all is true; include enough surrounding lines to make it unique. Read the file first.",
    input: v.strictObject({
      path: Path,
      old_string: v.pipe(v.string("old_string must be a string"), v.description("The exact text to replace.")),
      new_string: v.pipe(v.string("new_string must be a string"), v.description("The text to put in its place.")),
      replace_all: v.optional(
        v.pipe(
          v.boolean("replace_all must be true or false"),
          v.description("Replace every occurrence. Default false."),
        ),
      ),
    }),
    risk: "write",
    untrustedOutput: true,
  },
  files_list: {
    name: "files_list",
    examples: ["what's in my documents folder", "list the files here"],
    description:
      "List a folder: each entry's type (file, dir, link), size and modification time, folders first. Without a path, lists the workspace.",
    input: v.strictObject({
      path: v.optional(Path),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  files_glob: {
    name: "files_glob",
    examples: ["find all the photos from last year", "where are my spreadsheets", "find files named report"],
    description:
      'Find files whose path under a folder matches a glob pattern such as "**/*.ts" or "src/*.{js,json}"; newest first unless sort is "name". Names starting with a dot match only when the pattern spells the dot.',
    input: v.strictObject({
      pattern: v.pipe(
        v.string("pattern must be a string"),
        v.minLength(1, "pattern must not be empty"),
        v.maxLength(1000, "pattern must be at most 1000 characters"),
        v.description("A glob relative to path: *, **, ?, [abc], {a,b}."),
      ),
      path: v.optional(v.pipe(Path, v.description("The folder to search under. Default: the workspace."))),
      sort: v.optional(
        v.pipe(
          v.picklist(["mtime", "name"], 'sort must be "mtime" or "name"'),
          v.description("Default mtime (newest first)."),
        ),
      ),
      limit: v.optional(v.pipe(Count("limit", 1000), v.description("How many paths to show at most. Default 200."))),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  files_grep: {
    name: "files_grep",
    examples: ["which file mentions the invoice number", "search my files for this text"],
    description:
      "Search file contents with a JavaScript regular expression; answers path:line: text for each matching line. Binary files and files over 8 MiB are skipped.",
    input: v.strictObject({
      pattern: v.pipe(
        v.string("pattern must be a string"),
        v.minLength(1, "pattern must not be empty"),
        v.maxLength(1000, "pattern must be at most 1000 characters"),
        v.description("A JavaScript RegExp source without slashes or flags, e.g. ^import .* from"),
      ),
      path: v.optional(v.pipe(Path, v.description("A folder or one file to search. Default: the workspace."))),
      glob: v.optional(
        v.pipe(
          v.string("glob must be a string"),
          v.minLength(1, "glob must not be empty"),
          v.maxLength(1000),
          v.description('Only files whose path (relative to path) matches, e.g. "**/*.md". Default: every file.'),
        ),
      ),
      ignore_case: v.optional(
        v.pipe(
          v.boolean("ignore_case must be true or false"),
          v.description("Match letters in either case. Default false."),
        ),
      ),
      limit: v.optional(
        v.pipe(Count("limit", 1000), v.description("How many matching lines to show at most. Default 100.")),
      ),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  files_move: {
    name: "files_move",
    examples: ["rename the file", "move the pictures into a folder"],
    description:
      "Move or rename a file or folder within the allowed roots (missing parent folders are made). A symlink moves as the link. An existing file at `to` is replaced only with overwrite: true.",
    input: v.strictObject({
      from: Path,
      to: Path,
      overwrite: v.optional(
        v.pipe(v.boolean("overwrite must be true or false"), v.description("Replace a file already at `to`.")),
      ),
    }),
    risk: "write",
    ownOutput: "says whether the file was moved",
  },
  files_delete: {
    name: "files_delete",
    examples: ["delete the old backups", "remove this file"],
    description:
      "Delete a file, a symlink (the link, not what it points to) or a folder; a folder with anything in it needs recursive: true. There is no undo.",
    input: v.strictObject({
      path: Path,
      recursive: v.optional(
        v.pipe(v.boolean("recursive must be true or false"), v.description("Delete a folder and everything in it.")),
      ),
    }),
    risk: "write",
    ownOutput: "says whether the file was deleted",
  },
} satisfies Record<string, ToolSpec>;
