/**
 * What the music tools do: the library (library.ts), a play queue kept in DATA/music/queue.json,
 * and mpv (mpv.ts). mpv's playlist is loaded from the queue on music_play; music_queue changes
 * both while mpv runs. With no usable audio output mpv cannot play a file: that is said as
 * "no audio output: …", never reported as playing.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as v from "valibot";
import { describeTrack, formatSeconds, type Library, type Track, trackId } from "./library.ts";
import { type Mpv, MpvError } from "./mpv.ts";
import type { TOOLS } from "./tools.ts";

type Args<K extends keyof typeof TOOLS> = v.InferOutput<(typeof TOOLS)[K]["input"]>;

export class MusicError extends Error {}

/** The saved queue: track ids; a file that does not parse is an empty queue. */
function readQueue(file: string): string[] {
  if (!existsSync(file)) return [];
  try {
    const r = v.safeParse(v.array(v.string()), JSON.parse(readFileSync(file, "utf8")));
    return r.success ? r.output : [];
  } catch {
    return [];
  }
}

/** How long music_play waits for mpv to start playing (or to fail) before answering. */
const START_WAIT_MS = 5000;

export interface MusicDeps {
  library: Library;
  mpv: Mpv;
  queueFile: string;
  audioOutput: string;
  /** Tell the kernel the plugin must keep running (mpv is playing) or may stop. */
  keepRunning(on: boolean): void;
}

/** The id mpv's property observer for idle-active goes by. */
const IDLE_OBSERVER = 1;

export function musicTools(d: MusicDeps) {
  let queue: string[] = readQueue(d.queueFile);
  // The queue played to its end (mpv idle, nothing loaded) or mpv gone: nothing plays, so mpv
  // closes and the plugin may be stopped when idle again, as after music_stop.
  d.mpv.onEvent((e) => {
    if (e.event === "exited") d.keepRunning(false);
    else if (e.event === "property-change" && e.name === "idle-active" && e.data === true) void stopMpv();
  });
  const saveQueue = () => writeFileSync(d.queueFile, JSON.stringify(queue), { mode: 0o600 });

  function needIndex(): void {
    if (d.library.tracks.length === 0)
      throw new MusicError(`the library index is empty; run music_scan (folders: ${d.library.folders.join(", ")})`);
  }

  function pick(ids: string[] | undefined, query: string | undefined): Track[] {
    if (ids && query) throw new MusicError("give ids or query, not both");
    needIndex();
    if (ids) {
      const missing = ids.filter((id) => !d.library.get(id));
      if (missing.length)
        throw new MusicError(`no track ${missing.join(", ")} in the index; music_search shows the ids`);
      return ids.map((id) => d.library.get(id) as Track);
    }
    const found = d.library.search(query);
    if (found.length === 0) throw new MusicError(`no track matches "${query}"`);
    return found;
  }

  const queueText = () =>
    queue.length === 0
      ? "The queue is empty."
      : `Queue (${queue.length}):\n${queue
          .slice(0, 50)
          .map(
            (id, n) =>
              `${n + 1}. ${d.library.get(id) ? describeTrack(d.library.get(id) as Track) : `${id} (no longer in the library)`}`,
          )
          .join("\n")}${queue.length > 50 ? `\n… ${queue.length - 50} more` : ""}`;

  async function stopMpv(): Promise<void> {
    await d.mpv.quit();
    d.keepRunning(false);
  }

  /** Why mpv could not play, in words a person acts on. */
  function cannotPlay(fileError: string | undefined, path: string): MusicError {
    const last = d.mpv.stderr.trim().split("\n").at(-1)?.trim() ?? "";
    if (/audio output|audio device/i.test(`${fileError}\n${d.mpv.stderr}`) && d.audioOutput !== "null")
      return new MusicError(
        `no audio output: mpv could not open an audio device (${fileError}${last ? `; ${last}` : ""}). This machine has no sound output the daemon can reach (headless, or no PulseAudio/PipeWire/ALSA device), so nothing is playing. Set [tools.music] audio_output = "null" to play silently.`,
      );
    return new MusicError(`mpv could not play ${path}: ${fileError ?? "unknown error"}${last ? ` (${last})` : ""}`);
  }

  const tools = {
    async scan() {
      const r = await d.library.scan();
      const untagged = d.library.tracks.filter((t) => t.untagged).length;
      const artists = new Set(d.library.tracks.map((t) => t.artist).filter(Boolean)).size;
      return (
        `Indexed ${r.found} track${r.found === 1 ? "" : "s"} (${artists} artist${artists === 1 ? "" : "s"}) in ${d.library.folders.join(", ")}.` +
        (untagged ? ` ${untagged} had no title tag (indexed by file name).` : "") +
        (r.missing.length
          ? ` Missing folders: ${r.missing.join(", ")} (create them or change [tools.music] library).`
          : "") +
        (r.cut ? " The library is larger than one scan indexes; the rest was left out." : "")
      );
    },
    search(a: Args<"music_search">) {
      needIndex();
      const found = d.library.search(a.query);
      if (found.length === 0) return `No track matches "${a.query}" (${d.library.tracks.length} indexed).`;
      const shown = found.slice(0, a.limit ?? 20);
      return `${found.length} track${found.length === 1 ? "" : "s"}${found.length > shown.length ? `, first ${shown.length}` : ""}:\n${shown.map((t) => `- ${describeTrack(t)}`).join("\n")}`;
    },
    async queue(a: Args<"music_queue">) {
      const adding = a.ids || a.query ? pick(a.ids, a.query) : [];
      if (a.clear) {
        queue = [];
        if (d.mpv.running) await d.mpv.command("playlist-clear");
      }
      for (const t of adding) {
        queue.push(t.id);
        if (d.mpv.running) await d.mpv.command("loadfile", t.path, "append");
      }
      saveQueue();
      return `${a.clear ? "Cleared the queue. " : ""}${adding.length ? `Added ${adding.length} track${adding.length === 1 ? "" : "s"}. ` : ""}${queueText()}`;
    },
    async play(a: Args<"music_play">) {
      if (a.ids || a.query) {
        queue = pick(a.ids, a.query).map((t) => t.id);
        saveQueue();
      } else if (d.mpv.running && (await d.mpv.get("pause")) === true && (await d.mpv.get("path"))) {
        await d.mpv.command("set_property", "pause", false);
        return `Resumed: ${await nowPlaying()}`;
      }
      const tracks = queue.map((id) => d.library.get(id)).filter((t): t is Track => t !== undefined);
      if (tracks.length === 0)
        throw new MusicError("the queue is empty; give ids or a query, or add tracks with music_queue");
      try {
        await d.mpv.start();
      } catch (err) {
        if (err instanceof MpvError) throw new MusicError(err.message);
        throw err;
      }
      d.keepRunning(true);
      const first = tracks[0] as Track;
      const failed = d.mpv.waitFor((e) => e.event === "end-file" && e.reason === "error", START_WAIT_MS);
      await d.mpv.command("loadfile", first.path, "replace");
      for (const t of tracks.slice(1)) await d.mpv.command("loadfile", t.path, "append");
      await d.mpv.command("set_property", "pause", false);
      // mpv says playback-restart before it finds it has no audio output, so playing means the
      // position moving; an end-file error first means it could not play.
      const outcome = await Promise.race([
        failed.then((e) => (e ? { error: e.file_error ?? "error" } : null)),
        positionMoves(START_WAIT_MS).then((ok) => (ok ? { ok: true } : null)),
      ]);
      if (!outcome || "error" in outcome) {
        await stopMpv();
        throw cannotPlay(outcome ? outcome.error : `it did not start within ${START_WAIT_MS / 1000} s`, first.path);
      }
      // Watched only once playing: before the first loadfile mpv is idle by definition.
      await d.mpv.command("observe_property", IDLE_OBSERVER, "idle-active");
      return `Playing ${tracks.length} track${tracks.length === 1 ? "" : "s"}${d.audioOutput === "null" ? ' (silently: [tools.music] audio_output = "null")' : ""}. Now: ${await nowPlaying()}`;
    },
    async pause() {
      if (!d.mpv.running || !(await d.mpv.get("path"))) throw new MusicError("nothing is playing");
      await d.mpv.command("set_property", "pause", true);
      return `Paused: ${await nowPlaying()}`;
    },
    async next() {
      if (!d.mpv.running || !(await d.mpv.get("path"))) throw new MusicError("nothing is playing");
      const pos = Number(await d.mpv.get("playlist-pos"));
      const count = Number(await d.mpv.get("playlist-count"));
      if (pos + 1 >= count)
        throw new MusicError(`this is the last track of the queue (${count}); add more with music_queue`);
      const started = d.mpv.waitFor((e) => e.event === "playback-restart", START_WAIT_MS);
      await d.mpv.command("playlist-next", "force");
      await started;
      return `Next: ${await nowPlaying()}`;
    },
    async stop() {
      if (!d.mpv.running) return "Nothing was playing.";
      await stopMpv();
      return `Stopped; mpv is closed. ${queue.length} track${queue.length === 1 ? "" : "s"} stay in the queue.`;
    },
    async status() {
      if (!d.mpv.running) return `Not playing (mpv is not running). ${queueText()}`;
      if (!(await d.mpv.get("path"))) return `mpv is idle: nothing is loaded. ${queueText()}`;
      return `${(await d.mpv.get("pause")) === true ? "Paused" : "Playing"}: ${await nowPlaying()}`;
    },
  };

  /** True once mpv's time-pos passes 0.05 s, false after `ms` or when mpv goes idle. */
  async function positionMoves(ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until && d.mpv.running) {
      const t = await d.mpv.get("time-pos").catch(() => null);
      if (typeof t === "number" && t > 0.05) return true;
      await Bun.sleep(40);
    }
    return false;
  }

  async function nowPlaying(): Promise<string> {
    const path = String((await d.mpv.get("path")) ?? "");
    const t = d.library.get(trackId(path));
    const pos = Number(await d.mpv.get("playlist-pos"));
    const count = Number(await d.mpv.get("playlist-count"));
    const at = (await d.mpv.get("time-pos")) as number | null;
    const len = (await d.mpv.get("duration")) as number | null;
    return `${t ? `${t.artist || "unknown artist"} — ${t.title} (${t.id})` : path} · ${formatSeconds(at)} of ${formatSeconds(len ?? t?.seconds ?? null)} · track ${pos + 1} of ${count}`;
  }

  return { tools, stopMpv };
}
