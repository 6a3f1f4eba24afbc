/**
 * The music plugin in dist/homed: sine tones made by ffmpeg with title/artist/album tags are
 * indexed (music-metadata), searched, queued and played by a real mpv (--ao=null) over its JSON
 * IPC: status, pause, resume, next, stop. Without an audio device (made so on any machine by an
 * .asoundrc in the daemon's HOME whose default card does not exist) the answer is "no audio
 * output: …", and without mpv "mpv is not installed", never "playing".
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { poll } from "../harness/poll.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { toolTurn } from "./tool-turns.ts";

/** A tagged sine tone of `seconds` at `hz`, written by ffmpeg. */
function tone(path: string, hz: number, seconds: number, tags: Record<string, string>): void {
  const meta = Object.entries(tags).flatMap(([k, v]) => ["-metadata", `${k}=${v}`]);
  const r = Bun.spawnSync(
    ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", `sine=frequency=${hz}:duration=${seconds}`, ...meta, path],
    { stderr: "pipe" },
  );
  if (r.exitCode !== 0) throw new Error(`ffmpeg: ${r.stderr.toString()}`);
}

function library(data: string): void {
  const music = join(data, "music", "Sines");
  mkdirSync(music, { recursive: true });
  tone(join(music, "01-a.mp3"), 440, 20, { title: "Concert A", artist: "Tuning Fork", album: "Sines", track: "1" });
  tone(join(music, "02-e.ogg"), 660, 20, { title: "High E", artist: "Tuning Fork", album: "Sines", track: "2" });
  tone(join(data, "music", "hum.flac"), 50, 2, { title: "Mains Hum", artist: "Grid" });
  writeFileSync(join(data, "music", "broken.mp3"), "this is not audio");
}

// File tags are outside text; this owner trusts their own music folder's.
const musicConfig = (extra: string) =>
  `[approval]\nallow = ["music_*"]\n\n[trust]\ntools = ["music_*"]\n\n[tools.music]\n${extra}\n`;

describe("music plugin in the daemon", () => {
  test("scan, search, queue, play with mpv --ao=null, status, pause, resume, next, stop", async () => {
    using dir = tempDir();
    library(dir.path);
    await Bun.write(join(dir.path, "config.toml"), musicConfig('audio_output = "null"'));
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const offered = (await rig.status()).tools.filter((t) => t.name.startsWith("music_"));
    expect(offered.map((t) => [t.name, t.risk])).toEqual([
      ["music_next", "write"],
      ["music_pause", "write"],
      ["music_play", "exec"],
      ["music_queue", "write"],
      ["music_scan", "read"],
      ["music_search", "read"],
      ["music_status", "read"],
      ["music_stop", "write"],
    ]);

    const a = await toolTurn(rig, [
      [{ name: "music_search", arguments: { query: "tuning" } }],
      [{ name: "music_scan", arguments: {} }],
      [
        { name: "music_search", arguments: { query: "tuning fork" } },
        { name: "music_search", arguments: { query: "broken" } },
        { name: "music_search", arguments: { query: "polka" } },
      ],
    ]);
    const [early, scanned, fork, broken, none] = a.results;
    expect(early).toStartWith("error: the library index is empty; run music_scan");
    expect(scanned).toBe(
      `Indexed 4 tracks (2 artists) in ${join(dir.path, "music")}. 1 had no title tag (indexed by file name).`,
    );
    expect(fork).toMatch(
      /^2 tracks:\n- [a-f0-9]{10} · Tuning Fork — Concert A · Sines #1 · 0:20\n- [a-f0-9]{10} · Tuning Fork — High E · Sines #2 · 0:20$/,
    );
    expect(broken).toMatch(/^1 track:\n- [a-f0-9]{10} · unknown artist — broken · \?:\?\?$/);
    expect(none).toBe('No track matches "polka" (4 indexed).');
    const ids = [...(fork as string).matchAll(/- ([a-f0-9]{10}) ·/g)].map((m) => m[1] as string);

    const b = await toolTurn(rig, [
      [{ name: "music_queue", arguments: { ids } }],
      [{ name: "music_play", arguments: {} }],
      [{ name: "music_status", arguments: {} }],
      [{ name: "music_pause", arguments: {} }],
      [{ name: "music_status", arguments: {} }],
      [{ name: "music_play", arguments: {} }],
      [{ name: "music_next", arguments: {} }],
      [{ name: "music_next", arguments: {} }],
    ]);
    const [queued, playing, status, paused, statusPaused, resumed, next, last] = b.results;
    expect(queued).toContain("Added 2 tracks. Queue (2):\n1. ");
    expect(playing).toContain(
      'Playing 2 tracks (silently: [tools.music] audio_output = "null"). Now: Tuning Fork — Concert A',
    );
    expect(playing).toContain("track 1 of 2");
    expect(status).toMatch(/^Playing: Tuning Fork — Concert A \([a-f0-9]{10}\) · 0:\d\d of 0:20 · track 1 of 2$/);
    expect(paused).toStartWith("Paused: Tuning Fork — Concert A");
    expect(statusPaused).toStartWith("Paused: Tuning Fork — Concert A");
    expect(resumed).toStartWith("Resumed: Tuning Fork — Concert A");
    expect(next).toMatch(/^Next: Tuning Fork — High E \([a-f0-9]{10}\) · 0:\d\d of 0:20 · track 2 of 2$/);
    expect(last).toBe("error: this is the last track of the queue (2); add more with music_queue");
    // While mpv plays, the lazy plugin must not be stopped as idle.
    await rig.daemon.waitFor(/msg="plugin keep-running" component=supervisor plugin=music on=true/);

    const c = await toolTurn(rig, [
      [{ name: "music_stop", arguments: {} }],
      [{ name: "music_status", arguments: {} }],
      [{ name: "music_pause", arguments: {} }],
      [{ name: "music_play", arguments: { ids: ["0000000000"] } }],
      [{ name: "music_play", arguments: { query: "hum" } }],
    ]);
    const [stopped, idle, pauseIdle, unknown, hum] = c.results;
    expect(stopped).toBe("Stopped; mpv is closed. 2 tracks stay in the queue.");
    await rig.daemon.waitFor(/msg="plugin keep-running" component=supervisor plugin=music on=false/);
    expect(idle).toStartWith("Not playing (mpv is not running). Queue (2):");
    expect(pauseIdle).toBe("error: nothing is playing");
    expect(unknown).toBe("error: no track 0000000000 in the index; music_search shows the ids");
    expect(hum).toContain("Now: Grid — Mains Hum");
    // The 2 s hum plays to its end: the queue is done, so mpv closes on its own.
    const ended = await poll(
      async () => (await toolTurn(rig, [[{ name: "music_status", arguments: {} }]])).results[0] ?? "",
      (s) =>
        s.startsWith("Not playing (mpv is not running).") && !existsSync(join(dir.path, "music-index", "mpv.sock")),
      { what: "mpv to close when the queue has played", timeoutMs: 20_000 },
    );
    expect(ended).toContain("Queue (1):");
    // mpv is gone with its socket.
    expect(existsSync(join(dir.path, "music-index", "mpv.sock"))).toBe(false);
  }, 90_000);

  test("headless: no audio output is said plainly; a missing mpv too", async () => {
    using dir = tempDir();
    library(dir.path);
    await Bun.write(join(dir.path, "config.toml"), musicConfig('audio_output = "alsa"'));
    // A board without sound, on any machine: the daemon's HOME (which its plugins get) holds an
    // .asoundrc whose default ALSA device is a card that does not exist.
    const home = join(dir.path, "home");
    mkdirSync(home);
    await Bun.write(join(home, ".asoundrc"), "pcm.!default { type hw card 99 }\nctl.!default { type hw card 99 }\n");
    {
      await using rig = await startAgentRig(dir.path, { plugin: false, env: { HOME: home } });
      const r = await toolTurn(rig, [
        [{ name: "music_scan", arguments: {} }],
        [{ name: "music_play", arguments: { query: "concert" } }],
        [{ name: "music_status", arguments: {} }],
      ]);
      expect(r.results[1]).toStartWith("error: no audio output: mpv could not open an audio device");
      expect(r.results[1]).toContain('Set [tools.music] audio_output = "null" to play silently.');
      expect(r.results[2]).toStartWith("Not playing (mpv is not running).");
    }
    await Bun.write(join(dir.path, "config.toml"), musicConfig('mpv = "/nonexistent/mpv"'));
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const r = await toolTurn(rig, [[{ name: "music_play", arguments: { query: "concert" } }]]);
    expect(r.results[0]).toBe(
      "error: mpv is not installed at /nonexistent/mpv ([tools.music] mpv); install it (Debian: apt install mpv) to play music",
    );
  }, 90_000);
});
