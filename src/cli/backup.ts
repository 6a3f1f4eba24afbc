/**
 * `homed backup DEST`, `homed restore SRC` and `homed restore -check SRC` (src/kernel/backup.ts):
 * a progress bar on a terminal, one summary line when done (or JSON with -json).
 */
import { backupDataDir, restoreBackup, verifyBackup, readManifest } from "../kernel/backup.ts";
import { dataPaths } from "../kernel/data-paths.ts";
import { HomedError } from "../protocol/errors.ts";

const MIB = 1024 * 1024;
const mib = (n: number) => `${(n / MIB).toFixed(n < 10 * MIB ? 1 : 0)} MiB`;

/** A one-line bar on stderr when it is a terminal, redrawn at most every 100 ms; nothing otherwise. */
function progressBar(label: string): { update(done: number, total: number): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const share = total > 0 ? Math.min(1, done / total) : 1;
      const width = 30;
      const full = Math.round(share * width);
      process.stderr.write(
        `\r${label} [${"#".repeat(full)}${".".repeat(width - full)}] ${String(Math.round(share * 100)).padStart(3)} %  ${mib(done)} of ${mib(total)}`,
      );
      drawn = true;
    },
    end() {
      if (drawn) process.stderr.write("\n");
    },
  };
}

export async function runBackup(
  dataDir: string,
  dest: string,
  opts: { secrets: boolean; models: boolean; logs: boolean; json: boolean },
): Promise<number> {
  const bar = progressBar("backup ");
  let r: Awaited<ReturnType<typeof backupDataDir>>;
  try {
    r = await backupDataDir(dataDir, dest, { ...opts, progress: bar.update });
  } finally {
    bar.end();
  }
  if (opts.json)
    process.stdout.write(
      `${JSON.stringify({ dest: r.dest, bytes: r.bytes, seconds: r.seconds, ...r.manifest, files: r.manifest.files.length })}\n`,
    );
  else {
    const c = r.manifest.counts;
    process.stdout.write(
      `backed up ${dataPaths(dataDir).dir} to ${r.dest}: ${c.events} events in ${c.conversations} conversations, ${c.blocks} blocks, ${r.manifest.files.length} files, ${mib(r.bytes)} in ${r.seconds.toFixed(1)} s; checked${r.manifest.secrets ? "; secrets included: keep it private" : " (secrets left out: -secrets takes them too)"}\n`,
    );
  }
  return 0;
}

export async function runRestore(
  dataDir: string,
  src: string,
  opts: { check: boolean; json: boolean },
): Promise<number> {
  if (opts.check) {
    const manifest = readManifest(src);
    const bar = progressBar("check  ");
    let problems: string[];
    try {
      problems = await verifyBackup(src, bar.update);
    } finally {
      bar.end();
    }
    if (opts.json)
      process.stdout.write(
        `${JSON.stringify({ ok: problems.length === 0, problems, created: manifest.created, homed: manifest.homed, counts: manifest.counts })}\n`,
      );
    else if (problems.length === 0)
      process.stdout.write(
        `${src}: checks out — written by homed ${manifest.homed} at ${manifest.created}, ${manifest.counts.events} events, ${manifest.files.length} files\n`,
      );
    if (problems.length > 0) {
      if (!opts.json) for (const p of problems) process.stderr.write(`${src}: ${p}\n`);
      throw new HomedError(
        "store",
        `${src}: ${problems.length} problem${problems.length === 1 ? "" : "s"}; do not restore it`,
        {
          problems,
        },
      );
    }
    return 0;
  }
  const bar = progressBar("restore");
  let r: Awaited<ReturnType<typeof restoreBackup>>;
  try {
    r = await restoreBackup(src, dataDir, bar.update);
  } finally {
    bar.end();
  }
  if (opts.json)
    process.stdout.write(
      `${JSON.stringify({ dataDir: r.dataDir, files: r.files, bytes: r.bytes, schemaVersion: r.manifest.schemaVersion, currentSchema: r.currentSchema, counts: r.manifest.counts })}\n`,
    );
  else {
    const migrate =
      r.manifest.schemaVersion < r.currentSchema
        ? `; its database (schema ${r.manifest.schemaVersion}) is brought up to schema ${r.currentSchema} when the daemon starts`
        : "";
    process.stdout.write(
      `restored ${src} (homed ${r.manifest.homed}, ${r.manifest.created}) into ${r.dataDir}: ${r.manifest.counts.events} events, ${r.files} files, ${mib(r.bytes)}${migrate}${r.manifest.secrets ? "" : "; the backup has no secrets: set the provider's key again (homed provider, or the web UI)"}\n`,
    );
  }
  return 0;
}
