/**
 * The `notes` plugin (lazy): Markdown notes in DATA/notes/ (notebook.ts), the tools in
 * note-tools.ts. With [tools.notes] index_memory each write sends the note's text to the
 * kernel's memory/add, so memory_search finds it.
 */
import { join } from "node:path";
import { connectPlugin, withRun } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { ChannelMethod, MemoryAddResult } from "../../src/protocol/channel.ts";
import { MAX_INDEXED_TEXT_CHARS } from "../../src/protocol/event-bodies.ts";
import { Notebook } from "./notebook.ts";
import { noteTools, type Remember } from "./note-tools.ts";
import { SETTINGS } from "./settings.ts";
import { TOOLS } from "./tools.ts";

const plugin = await connectPlugin();
const cfg = await plugin.call(PluginMethod.ConfigGet, { section: "tools.notes" }, SETTINGS.schema);
const book = new Notebook(join(plugin.hello.dataDir, "notes"), cfg.max_kb * 1024);
const remember: Remember = cfg.index_memory
  ? async (name, text, untrusted) => {
      await plugin.call(
        ChannelMethod.MemoryAdd,
        { key: name, text: `note "${name}"\n${text.slice(0, MAX_INDEXED_TEXT_CHARS)}`, untrusted },
        MemoryAddResult,
      );
    }
  : null;
const t = noteTools(book, remember);

await plugin.tools([
  withRun(TOOLS.notes_create, (a, ctx) => t.create(a, ctx.untrusted)),
  withRun(TOOLS.notes_read, (a) => t.read(a)),
  withRun(TOOLS.notes_edit, (a, ctx) => t.edit(a, ctx.untrusted)),
  withRun(TOOLS.notes_append, (a, ctx) => t.append(a, ctx.untrusted)),
  withRun(TOOLS.notes_search, (a) => t.search(a)),
  withRun(TOOLS.notes_list, () => t.list()),
  withRun(TOOLS.notes_links, (a) => t.links(a)),
  withRun(TOOLS.notes_delete, (a) => t.delete(a)),
]);
await plugin.ready();
