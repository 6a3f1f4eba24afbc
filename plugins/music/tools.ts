/**
 * The music plugin's tool specs (names, words for the model, argument schemas, risk classes).
 * The build imports this file to list the tools in the manifest: valibot and the spec type only.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

const Ids = v.pipe(
  v.array(v.pipe(v.string(), v.regex(/^[a-f0-9]{10}$/, "a track id is what music_search shows, e.g. 3fa9c01b2d"))),
  v.minLength(1),
  v.maxLength(500),
  v.description("Track ids from music_search."),
);
const Query = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1),
  v.maxLength(200),
  v.description("Words matched against title, artist, album, genre and file name (every word must match)."),
);

export const TOOLS = {
  music_scan: {
    name: "music_scan",
    examples: ["scan my music folder", "I added new songs to the library"],
    description:
      "Index the music library folders ([tools.music] library, default DATA/music) by their tags: title, artist, album, track, year, genre, length. Run after adding music; search uses the index.",
    input: v.strictObject({}),
    risk: "read",
    untrustedOutput: true,
  },
  music_search: {
    name: "music_search",
    examples: ["do I have any beatles songs", "find the album in my music"],
    description:
      "Search the indexed library; returns track ids with artist, title, album and length. No query: the first tracks by artist and album.",
    input: v.strictObject({
      query: v.optional(Query),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200), v.description("Default 20."))),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  music_queue: {
    name: "music_queue",
    examples: ["add this song next", "what's in the queue", "queue up the album"],
    description:
      "Show the play queue, or change it: add tracks (ids, or every match of a query, in album order) at the end, or clear it first. A playing mpv gets the added tracks too.",
    input: v.strictObject({
      ids: v.optional(Ids),
      query: v.optional(Query),
      clear: v.optional(v.pipe(v.boolean(), v.description("Empty the queue before adding."))),
    }),
    risk: "write",
    untrustedOutput: true,
  },
  music_play: {
    name: "music_play",
    examples: ["play some jazz", "put on my favourite album", "play music", "放首歌"],
    description:
      "Play through mpv: with ids or a query, those tracks replace the queue and play; without, the queue plays (or a paused track resumes). Says plainly when mpv is missing or there is no audio output.",
    input: v.strictObject({ ids: v.optional(Ids), query: v.optional(Query) }),
    risk: "exec",
    untrustedOutput: true,
  },
  music_pause: {
    name: "music_pause",
    examples: ["pause the music", "hold the song"],
    description: "Pause what is playing (music_play resumes).",
    input: v.strictObject({}),
    risk: "write",
    untrustedOutput: true,
  },
  music_next: {
    name: "music_next",
    examples: ["skip this song", "next track"],
    description: "Skip to the next track in the queue.",
    input: v.strictObject({}),
    risk: "write",
    untrustedOutput: true,
  },
  music_stop: {
    name: "music_stop",
    examples: ["stop the music", "turn the music off"],
    description: "Stop playing and close mpv; the queue is kept.",
    input: v.strictObject({}),
    risk: "write",
    ownOutput: "says whether playback stopped and how many tracks are queued",
  },
  music_status: {
    name: "music_status",
    examples: ["what song is this", "what's playing now", "现在放的是什么歌"],
    description: "What is playing: the track, position and length, paused or not, and the queue around it.",
    input: v.strictObject({}),
    risk: "read",
    untrustedOutput: true,
  },
} satisfies Record<string, ToolSpec>;
