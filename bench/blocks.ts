/**
 * Block figures (issue 15):
 *   blocks.property_ops, blocks.property_violations — random append / prune / recall (Remove) /
 *     forget operations on a real Store + Memory + BlockStore, every block audited after each
 *     (test/harness/block-ops.ts: exactly one holder, the event's layer; nothing lost or changed)
 *   blocks.get_4mib_shm_ms, blocks.get_4mib_stdio_ms, blocks.get_4mib_ratio — one 4 MiB image
 *     from the kernel's block store to a plugin with blocks/get (record + bytes, sha-checked by
 *     the plugin): through the shared-memory arena vs base64 in a JSON-RPC frame on stdio; the
 *     median of ROUNDS reads each, alternating
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBlockOps } from "../test/harness/block-ops.ts";
import { pngOf, startBlockRig } from "../test/harness/block-rig.ts";
import { median, report } from "./report.ts";

const OPS = 3000;
const SEED = 20261201;
const ROUNDS = 15;

export async function benchBlocks(): Promise<void> {
  const data = mkdtempSync(join(tmpdir(), "homed-bench-blocks-"));
  try {
    const r = await runBlockOps(join(data), SEED, OPS);
    if (r.violation) console.error(`blocks.property: seed ${SEED}: ${r.violation}`);
    report("blocks.property_ops", r.audits, "ops", 0);
    report("blocks.property_violations", r.violation ? 1 : 0, "violations", 0);
    console.error(`blocks.property: seed ${SEED}, ${JSON.stringify(r.counts)}, ${r.events} events, ${r.blocks} blocks`);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
  const rigDir = mkdtempSync(join(tmpdir(), "homed-bench-blocks-ipc-"));
  try {
    await using rig = await startBlockRig(rigDir, 8 << 20);
    const id = rig.addImage(pngOf(4 << 20));
    const times: Record<"shm" | "stdio", number[]> = { shm: [], stdio: [] };
    for (let i = 0; i <= ROUNDS; i++)
      for (const name of ["shm", "stdio"] as const) {
        const t0 = performance.now();
        const got = await rig.read(name, id);
        const ms = performance.now() - t0;
        if (got.len !== 4 << 20) throw new Error(`${name}: ${got.error ?? `read ${got.len} bytes`}`);
        if (i > 0) times[name].push(ms); // the first round warms up
      }
    const shm = median(times.shm);
    const stdio = median(times.stdio);
    report("blocks.get_4mib_shm_ms", shm, "ms", 2);
    report("blocks.get_4mib_stdio_ms", stdio, "ms", 2);
    report("blocks.get_4mib_ratio", stdio / shm, "x");
  } finally {
    rmSync(rigDir, { recursive: true, force: true });
  }
}
