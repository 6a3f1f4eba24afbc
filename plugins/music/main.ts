/**
 * The `music` plugin (lazy): the library index (library.ts), the queue and mpv (music-tools.ts,
 * mpv.ts). While mpv plays the plugin asks to keep running, so an idle stop does not cut the
 * music; on shutdown mpv is quit with it.
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectPlugin, withRun } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { Library } from "./library.ts";
import { Mpv } from "./mpv.ts";
import { musicTools } from "./music-tools.ts";
import { SETTINGS } from "./settings.ts";
import { TOOLS } from "./tools.ts";

const plugin = await connectPlugin();
const cfg = await plugin.call(PluginMethod.ConfigGet, { section: "tools.music" }, SETTINGS.schema);
const dir = join(plugin.hello.dataDir, "music-index");
mkdirSync(dir, { recursive: true, mode: 0o700 });
// A unix socket path is at most ~107 bytes; a deep data dir falls back to the temp dir.
const sock =
  join(dir, "mpv.sock").length < 100 ? join(dir, "mpv.sock") : join(tmpdir(), `homed-mpv-${crypto.randomUUID()}.sock`);
const library = new Library(join(dir, "index.json"), Library.foldersOf(cfg.library, plugin.hello.dataDir));
const mpv = new Mpv(cfg.mpv, sock, cfg.audio_output);

let keeping: boolean | null = null;
const { tools: t, stopMpv } = musicTools({
  library,
  mpv,
  queueFile: join(dir, "queue.json"),
  audioOutput: cfg.audio_output,
  keepRunning(on) {
    if (on === keeping) return;
    keeping = on;
    void plugin
      .keepRunning(on)
      .catch((err) => plugin.log.warn("keep-running not sent", { err: (err as Error).message }));
  },
});

await plugin.tools([
  withRun(TOOLS.music_scan, () => t.scan()),
  withRun(TOOLS.music_search, (a) => t.search(a)),
  withRun(TOOLS.music_queue, (a) => t.queue(a)),
  withRun(TOOLS.music_play, (a) => t.play(a)),
  withRun(TOOLS.music_pause, () => t.pause()),
  withRun(TOOLS.music_next, () => t.next()),
  withRun(TOOLS.music_stop, () => t.stop()),
  withRun(TOOLS.music_status, () => t.status()),
]);
plugin.onShutdown(() => stopMpv());
await plugin.ready();
// Not playing after a restart: the kernel need not start this plugin at boot.
plugin.keepRunning(false).catch(() => {});
