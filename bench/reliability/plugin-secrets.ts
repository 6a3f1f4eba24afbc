/**
 * `security.plugin_secret_reads`: an external plugin — one in TypeScript, one in Python
 * (test/fixtures/room-probe) — that reads every file it can find under the data dir, every
 * /proc entry it can see, its environment and what the kernel methods it requires answer, run
 * by the compiled daemon with its default sandbox. Counted: each thing it got that carries the
 * provider key, a key from the daemon's environment, the web token or the database. The same
 * TypeScript plugin run unconfined ([plugins] sandbox = "none") is the control: it must find
 * them, or the probe proves nothing.
 */
import { report } from "../report.ts";
import { runRoomProbe } from "../../test/harness/room-probe.ts";

export async function benchPluginSecrets(): Promise<void> {
  const t0 = performance.now();
  let leaks = 0;
  let read = 0;
  for (const lang of ["ts", "py"] as const) {
    const o = await runRoomProbe({ lang, sandbox: true });
    leaks += o.leaks.length;
    read += o.report.files.length;
    for (const l of o.leaks) console.error(`plugin-secrets: ${lang} got ${l}`);
    console.error(
      `plugin-secrets: ${lang} in ${o.sandbox}: ${o.report.files.length} files read, ${o.report.denied} refused, own folder written: ${o.report.wrote.ownFolder}`,
    );
  }
  report("security.plugin_secret_reads", leaks, "reads", 0);
  const control = await runRoomProbe({ lang: "ts", sandbox: false });
  report("security.plugin_secret_reads_unconfined", control.leaks.length, "reads", 0);
  console.error(
    `plugin-secrets: ${read} files read in the sandboxes; unconfined control got ${control.leaks.length} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
}
