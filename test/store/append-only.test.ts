/** The events table refuses UPDATE and DELETE inside sqlite itself, whoever asks. */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";

const quiet = { warn: () => {}, debug: () => {} };

describe("events are append-only", () => {
  test("rows written through the daemon cannot be updated or deleted, and get layer-1 state", async () => {
    using dir = tempDir();
    const d = await startDaemon(dir.path);
    const client = await connectUnixRpc(d.socket, quiet);
    const { id } = (await client.peer.request("event.append", {
      conv: "c",
      kind: "user-message",
      actor: "me",
      untrusted: true,
      body: { text: "hi" },
    })) as { id: number };
    client.close();
    await d.stop();

    const db = new Database(join(dir.path, "homed.db"));
    expect(() => db.exec(`UPDATE events SET body = '{}' WHERE id = ${id}`)).toThrow("append-only");
    expect(() => db.exec(`DELETE FROM events WHERE id = ${id}`)).toThrow("append-only");
    const row = db
      .query<{ body: string; untrusted: number; layer: number }, [number]>(
        "SELECT e.body, e.untrusted, s.layer FROM events e JOIN event_state s ON s.event_id = e.id WHERE e.id = ?",
      )
      .get(id);
    expect(row).toEqual({ body: '{"text":"hi"}', untrusted: 1, layer: 1 });
    db.close();
  });

  test("bad append params are refused with InvalidParams and write nothing", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    const client = await connectUnixRpc(d.socket, quiet);
    for (const bad of [
      {},
      { conv: "", kind: "k", actor: "a", body: 1 },
      { conv: "c", kind: 5, actor: "a", body: 1 },
      { conv: "c", kind: "k", actor: "a", body: 1, extra: true },
    ]) {
      const err = (await client.peer.request("event.append", bad).catch((e) => e)) as { code: number };
      expect(err.code).toBe(-32602);
    }
    const st = (await client.peer.request("status")) as { store: { events: number } };
    expect(st.store.events).toBe(0);
    client.close();
  });
});
