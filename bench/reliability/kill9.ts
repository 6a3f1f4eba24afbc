/**
 * reliability.kill9_cycles, reliability.acked_lost, reliability.integrity_failures: the daemon is
 * killed with SIGKILL while turns are in flight, again and again, on one data dir.
 *
 * Each cycle starts dist/homed, has four clients send turns (`chat.send` on their own control
 * connections, each to its own conversation) to a fake model that streams every reply over
 * ~80 ms, waits until at least one turn of the cycle was acknowledged, then a random 0–250 ms,
 * and kills the daemon while turns are still running. A turn is *acknowledged* when `chat.send`
 * returned its result to the client: the reply reached the person, so its `user-message` and
 * `agent-reply` events must be in the log after any crash. After the restart the log is checked
 * with `PRAGMA integrity_check` and for every turn acknowledged so far (all cycles, not just the
 * last), read through a connection of our own while the restarted daemon runs.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchDaemon } from "../bench-daemon.ts";
import { startFakeModel } from "../fake-model.ts";
import { report } from "../report.ts";

const CLIENTS = 4;

interface Acked {
  conv: string;
  turn: string;
}

/** Acknowledged turns whose user or reply event is not in the log. */
function missing(dbPath: string, acked: readonly Acked[]): { lost: Acked[]; integrity: string } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const integrity = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    const q = db.query<{ n: number }, [string, string]>(
      "SELECT count(DISTINCT kind) AS n FROM events WHERE conv = ? AND json_extract(body, '$.turn') = ? AND kind IN ('user-message', 'agent-reply')",
    );
    const lost = acked.filter((a) => (q.get(a.conv, a.turn)?.n ?? 0) !== 2);
    return { lost, integrity };
  } finally {
    db.close();
  }
}

export interface Kill9Options {
  cycles?: number;
}

export async function benchKill9(opts: Kill9Options = {}): Promise<void> {
  const cycles = opts.cycles ?? 100;
  const data = mkdtempSync(join(tmpdir(), "homed-bench-kill9-"));
  const model = startFakeModel({ chunks: 8, chunkDelayMs: 10 });
  const acked: Acked[] = [];
  let killedMidTurn = 0;
  let integrityFailures = 0;
  let lostTotal = 0;
  let startFailures = 0;
  const t0 = performance.now();
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      let daemon: BenchDaemon;
      try {
        daemon = await BenchDaemon.start({ data, model, web: false });
      } catch (err) {
        // A daemon that cannot start on the data dir a kill left behind is itself a failure.
        startFailures++;
        console.error(`kill9: cycle ${cycle}: daemon did not start: ${String(err).slice(0, 2000)}`);
        continue;
      }
      const check = missing(join(data, "homed.db"), acked);
      if (check.integrity !== "ok") {
        integrityFailures++;
        console.error(`kill9: cycle ${cycle}: integrity_check: ${check.integrity}`);
      }
      if (check.lost.length) {
        lostTotal = Math.max(lostTotal, check.lost.length);
        console.error(
          `kill9: cycle ${cycle}: ${check.lost.length} acknowledged turns missing, e.g. ${JSON.stringify(check.lost.slice(0, 3))}`,
        );
      }
      let inFlight = 0;
      let ackedThisCycle = 0;
      let firstAck: () => void = () => {};
      const gotAck = new Promise<void>((r) => (firstAck = r));
      const clients = await Promise.all(Array.from({ length: CLIENTS }, () => daemon.connect()));
      const loops = clients.map(async (c, i) => {
        for (let k = 0; !c.peer.isClosed; k++) {
          inFlight++;
          try {
            const r = (await c.peer.request("chat.send", {
              conv: `kill9-${i}`,
              text: `cycle ${cycle} turn ${k}: remember the number ${cycle * 1000 + k}`,
            })) as { turn: string; conv: string; stopReason: string };
            if (r.stopReason === "done") {
              acked.push({ conv: r.conv, turn: r.turn });
              ackedThisCycle++;
              firstAck();
            }
          } catch {
            // The connection died with the daemon: this turn was never acknowledged.
          } finally {
            inFlight--;
          }
        }
      });
      const watchdog = setTimeout(() => firstAck(), 30_000);
      await gotAck;
      clearTimeout(watchdog);
      await Bun.sleep(Math.random() * 250);
      const runningAtKill = inFlight;
      daemon.kill("SIGKILL");
      await daemon.proc.exited;
      for (const c of clients) c.close();
      await Promise.all(loops);
      if (runningAtKill > 0 && ackedThisCycle > 0) killedMidTurn++;
      else
        console.error(
          `kill9: cycle ${cycle}: killed with ${runningAtKill} turns in flight and ${ackedThisCycle} acknowledged`,
        );
    }
    // The last kill is checked too: one more start, and every acknowledged turn of the run.
    const daemon = await BenchDaemon.start({ data, web: false });
    const final = missing(join(data, "homed.db"), acked);
    await daemon.stop();
    if (final.integrity !== "ok") integrityFailures++;
    lostTotal = Math.max(lostTotal, final.lost.length);
    console.error(
      `kill9: ${cycles} cycles in ${((performance.now() - t0) / 1000).toFixed(0)} s, ${acked.length} turns acknowledged, ${startFailures} failed starts`,
    );
    report("reliability.kill9_cycles", killedMidTurn, "cycles", 0);
    report("reliability.acked_turns", acked.length, "turns", 0);
    report("reliability.acked_lost", lostTotal, "turns", 0);
    report("reliability.integrity_failures", integrityFailures, "checks", 0);
    report("reliability.start_failures", startFailures, "starts", 0);
  } finally {
    model.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchKill9({ cycles: Number(process.env.KILL9_CYCLES ?? 100) });
