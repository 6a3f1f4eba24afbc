/**
 * Audio vectors through the compiled daemon (issue 15): with the tiny CLAP-style pair as the
 * memory model, two voice messages are uploaded through the web plugin's real HTTP API
 * (/api/uploads, /api/chat) — an Opus whistle and a WAV hum, each sent with the word "hello" —
 * and get vectors in the background. Long turns on other things then push both out of a small
 * model window (cold, L2); recall for "world", a word neither message says, offers the whistle's
 * message first, by its sound. `homed models check-audio`
 * embeds the same files from the command line.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { poll } from "../harness/poll.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { sineWav, writeTinyClap } from "../harness/tiny-onnx.ts";
import { opusOf } from "../harness/block-vectors.ts";

const TOKEN = "tok-audio-vectors-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };
const CONV = "web-voice";
/** A small model window, so that a few long turns make the voice turns cold (L2). */
const WINDOW = 1024;
const FILLER =
  "Today I spent the morning sorting the garage shelves, labelling boxes of old tools, paint tins and garden " +
  "gloves, then drove to the recycling centre with two bags of cardboard and a broken lamp before lunch, and " +
  "after lunch I repotted the basil, swept the patio and planned next week's meals around lentils and rice";

describe("audio block vectors through the daemon", () => {
  test("uploaded voice messages get vectors; recall finds one by its sound", async () => {
    using dir = tempDir();
    writeTinyClap(join(dir.path, "models", "clap"));
    await Bun.write(join(dir.path, "config.toml"), `[memory]\nmodel = "clap"\n\n[llm]\ncontext_window = ${WINDOW}\n`);
    const whistle = await opusOf(sineWav(8000, 1.5));
    const hum = sineWav(100, 1);
    await Bun.write(join(dir.path, "whistle.ogg"), whistle);
    await Bun.write(join(dir.path, "hum.wav"), hum);

    // The command line first: the same model, the same files.
    const cli = await run([
      HOMED,
      "-data",
      dir.path,
      "models",
      "-json",
      "check-audio",
      "clap",
      join(dir.path, "whistle.ogg"),
      join(dir.path, "hum.wav"),
    ]);
    expect(cli.exitCode).toBe(0);
    const checked = JSON.parse(cli.stdout) as { id: string; dim: number; vectors: number[][] };
    expect([checked.id, checked.dim, checked.vectors.length]).toEqual(["tiny-clap@1", 4, 2]);

    // The media plugin is off: no transcript, so only the sound can say "world".
    await using rig = await startAgentRig(dir.path, {
      env: { HOMED_WEB_TOKEN: TOKEN, HOMED_PLUGINS_DISABLED: "media" },
      plugin: false,
    });
    await rig.daemon.waitFor(/dense memory model loaded.*id=tiny-clap@1 dim=4/);
    const rpc = async (method: string, params: unknown) => {
      const c = await connectUnixRpc(rig.daemon.socket, { warn: () => {}, debug: () => {} });
      try {
        return await c.peer.request(method, params);
      } finally {
        c.close();
      }
    };
    await rpc("llm.set", { provider: "openai", baseURL: rig.llm.url, model: "test-model", contextWindow: WINDOW });
    const web = await webUrlOf(rig.daemon);
    const say = async (text: string, reply: string, attachments?: { sha256: string; name: string }[]) => {
      rig.llm.script([{ text: reply }]);
      const r = await fetch(`${web}api/chat`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ conv: CONV, text, attachments }),
      });
      expect(r.status).toBe(200);
      await r.text();
    };
    const send = async (bytes: Uint8Array, name: string) => {
      const up = await fetch(`${web}api/uploads?name=${name}`, { method: "POST", headers: auth, body: bytes });
      expect(up.status).toBe(200);
      const file = (await up.json()) as { sha256: string; kind: string };
      expect(file.kind).toBe("audio");
      await say("hello", "hello", [{ sha256: file.sha256, name }]);
    };
    await send(whistle, "voice-1.ogg");
    await send(hum, "voice-2.wav");

    const eventsWithAudio = () => {
      const db = new Database(join(dir.path, "homed.db"), { readonly: true });
      try {
        return db
          .query<{ event_id: number }, []>("SELECT event_id FROM blocks WHERE kind = 'audio' ORDER BY id")
          .all()
          .map((r) => r.event_id);
      } finally {
        db.close();
      }
    };
    const vectors = () => {
      const db = new Database(join(dir.path, "homed.db"), { readonly: true });
      try {
        return db
          .query<{ kind: string; mime: string; dim: number }, []>(
            "SELECT b.kind, b.mime, v.dim FROM block_vectors v JOIN blocks b ON b.id = v.block_id ORDER BY b.id",
          )
          .all();
      } finally {
        db.close();
      }
    };
    await poll(
      async () => vectors(),
      (v) => v.length >= 2,
      { what: "the two clips' vectors" },
    );
    expect(vectors()).toEqual([
      { kind: "audio", mime: "audio/ogg", dim: 4 },
      { kind: "audio", mime: "audio/wav", dim: 4 },
    ]);
    const st = (await rig.status()) as unknown as { memory: { audioVectorsMade: number } };
    expect(st.memory.audioVectorsMade).toBe(2);
    expect((await run([HOMED, "status", "-data", dir.path])).stdout).toMatch(/\d+ vectors made, 2 of audio, /);

    // Long turns on other things push both voice turns out of the 1024-token window (cold, L2).
    for (let i = 0; i < 8; i++) await say(`${FILLER} (${i + 1})`, "Noted, thank you for the long update.");
    const ids = eventsWithAudio();
    expect(ids).toHaveLength(2);
    const peek = (await rpc("memory.peek", { conv: CONV, text: "world", k: 10 })) as {
      l2: number;
      candidates: { id: number; score: number }[];
    };
    expect(peek.l2).toBeGreaterThan(4);
    // The whistle's message first, by its sound alone (no word of it is "world").
    expect(peek.candidates[0]?.id).toBe(ids[0]);

    // And the next turn that says "world" brings the whistle's turn back to the model by
    // relevance (the memory page's reason), the hum's only as recent filler if at all.
    await say("world", "ok");
    expect(JSON.stringify(rig.llm.requests.at(-1)?.body.messages)).toContain("voice-1.ogg");
    const view = (await (await fetch(`${web}api/context/${CONV}`, { headers: auth })).json()) as {
      messages: { content: string; reason: string | null; recalled: boolean }[];
    };
    const voice = (name: string) =>
      view.messages.filter((m) => m.content.includes(name)).map((m) => [m.reason, m.recalled]);
    expect(voice("voice-1.ogg")).toEqual([["relevant", true]]);
    expect(voice("voice-2.wav")).not.toContainEqual(["relevant", true]);
  }, 60_000);
});
