/**
 * An event acknowledged to a caller survives kill -9 of the daemon. The daemon is killed
 * mid-write many times on one data dir; after each kill the database must pass
 * `PRAGMA integrity_check` and hold every event whose append was acknowledged.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";
import { tempDir } from "../harness/binary.ts";
import { startDaemon } from "../harness/daemon.ts";

const ROUNDS = 20;
const WINDOW = 32; // appends in flight at once, so the kill lands mid-write

const quiet = { warn: () => {}, debug: () => {} };

describe("append-only log under kill -9", () => {
  test(`${ROUNDS} kills mid-write lose no acknowledged event and never corrupt the database`, async () => {
    using dir = tempDir();
    const acked = new Map<number, string>();
    let sent = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const d = await startDaemon(dir.path);
      const client = await connectUnixRpc(d.socket, quiet, { timeoutMs: 5000 });
      const killAfter = 50 + Math.floor(Math.random() * 400);
      let ackedThisRound = 0;
      let dead = false;
      const worker = async () => {
        while (!dead) {
          const text = `r${round}-m${sent++}-${"x".repeat(sent % 300)}`;
          try {
            const res = (await client.peer.request("event.append", {
              conv: `c${round % 3}`,
              kind: "user-message",
              actor: "test",
              body: { text },
            })) as { id: number };
            acked.set(res.id, text);
            if (++ackedThisRound === killAfter) {
              dead = true;
              d.proc.kill("SIGKILL");
            }
          } catch {
            dead = true; // the daemon is gone; unacknowledged writes may or may not be there
          }
        }
      };
      await Promise.all(Array.from({ length: WINDOW }, worker));
      await d.proc.exited;
      client.close();
      expect(d.proc.signalCode).toBe("SIGKILL");

      const db = new Database(join(dir.path, "homed.db"), { readonly: true });
      expect(db.query("PRAGMA integrity_check").all()).toEqual([{ integrity_check: "ok" }]);
      const rows = db.query<{ id: number; body: string }, []>("SELECT id, body FROM events").all();
      const byId = new Map(rows.map((r) => [r.id, JSON.parse(r.body).text as string]));
      for (const [id, text] of acked) expect(byId.get(id)).toBe(text);
      db.close();
    }
    expect(acked.size).toBeGreaterThan(ROUNDS * 50 - 1);
  }, 120_000); // twenty daemon starts: seconds on a quiet machine, far more on a loaded one
});
