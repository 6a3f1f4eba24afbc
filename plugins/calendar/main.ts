/**
 * The `calendar` plugin (lazy): events in DATA/calendar/*.ics (store.ts), the tools in
 * cal-tools.ts and transfer.ts (import/export). [tools.calendar] is read once at start.
 */
import { join } from "node:path";
import * as v from "valibot";
import { Confinement } from "../sdk/confine.ts";
import { connectPlugin, withRun } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { calendarTools } from "./cal-tools.ts";
import { CalendarStore } from "./store.ts";
import { TOOLS } from "./tools.ts";
import { exportCalendar, importCalendar } from "./transfer.ts";

const Section = v.object({
  calendar: v.object({ timezone: v.string(), max_list: v.number(), max_import_kb: v.number() }),
  files: v.object({ roots: v.array(v.string()) }),
});

const plugin = await connectPlugin();
const { calendar: cfg, files } = await plugin.call(PluginMethod.ConfigGet, { section: "tools" }, Section);
const dataDir = plugin.hello.dataDir;
// Imports read from the files tools' roots, made on first use.
let confinement: Confinement | undefined;
const roots = () => {
  confinement ??= new Confinement(files.roots, dataDir, "calendar tools");
  return confinement;
};
const store = new CalendarStore(join(dataDir, "calendar"));
const t = calendarTools(store, cfg, () => Date.now());

await plugin.tools([
  withRun(TOOLS.calendar_create, (a) => t.create(a)),
  withRun(TOOLS.calendar_list, (a) => t.list(a)),
  withRun(TOOLS.calendar_update, (a) => t.update(a)),
  withRun(TOOLS.calendar_delete, (a) => t.remove(a)),
  withRun(TOOLS.calendar_import, (a) => importCalendar(store, a, { files: roots, maxBytes: cfg.max_import_kb * 1024 })),
  withRun(TOOLS.calendar_export, (a) => exportCalendar(store, a, { dataDir, tools: t })),
]);
await plugin.ready();
