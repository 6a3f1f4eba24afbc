/**
 * Backups of a whole data folder: `homed backup DEST` and `homed restore SRC`, and the daemon's
 * scheduled ones. A backup is a folder: homed.db as one consistent snapshot (src/store/snapshot.ts,
 * taken while the daemon may be writing), then every other file of the data folder as it is
 * (blocks, config.toml, settings, skills, plugins and their data), and `homed-backup.json`, the
 * manifest: what homed wrote it, when, the database's counts and each file's size and sha256.
 *
 * Left out: the socket, the lock, the database's WAL files (the snapshot holds what they held),
 * `logs/` and `models/` unless asked (logs are not memory; models can be pulled again), and the
 * secrets unless asked (`secrets.json` with API keys, `web-token`, and what plugins keep secrets
 * in, manifest `secret_data`: the browser's profile with its cookies): a backup is often kept
 * where the data folder's own protections do not reach.
 *
 * A backup is written under a temporary name beside DEST, checked (every file read back against
 * its digest, a block's name against its content, the database's integrity and counts), and only
 * then renamed to DEST; restore checks the same before it writes anything, writes only into an
 * empty folder that no daemon holds, and leaves the migrations to the daemon that opens it next.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import * as v from "valibot";
import { BackupStateView } from "../protocol/control.ts";
import { HomedError } from "../protocol/errors.ts";
import { checkDatabase, CURRENT_SCHEMA, type DatabaseCounts, snapshotDatabase } from "../store/snapshot.ts";
import { dataPaths } from "./data-paths.ts";
import { lockDataDir } from "./data-dir.ts";
import { secretDataNames } from "./plugins/catalog.ts";
import { VERSION } from "../version.ts";

export const MANIFEST = "homed-backup.json";
/** The state of the last backup, kept in the data folder for `homed status`. */
export const BACKUP_STATE = "backup-state.json";
const FORMAT = 1;

/** Names at the top of a data folder that are never copied: the live database and what the running daemon holds. */
const NEVER = new Set([
  "homed.sock",
  "homed.lock",
  "homed.db",
  "homed.db-wal",
  "homed.db-shm",
  "homed.db-journal",
  BACKUP_STATE,
]);
/** What holds secrets: copied only with `secrets` (and what plugins say they keep secrets in). */
const SECRETS = new Set(["secrets.json", "web-token", "login-link"]);

export interface BackupOptions {
  /** Copy secrets.json, web-token and the browser profile too. */
  secrets?: boolean;
  /** Copy DATA/models (embedding models, often hundreds of MB). */
  models?: boolean;
  /** Copy DATA/logs. */
  logs?: boolean;
  /** Called as bytes are written: done and total, in bytes. */
  progress?: (done: number, total: number) => void;
  now?: () => number;
}

const FileEntry = v.object({
  path: v.string(),
  bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
});
const Manifest = v.object({
  format: v.literal(FORMAT),
  homed: v.string(),
  created: v.string(),
  source: v.string(),
  schemaVersion: v.number(),
  secrets: v.boolean(),
  counts: v.object({
    events: v.number(),
    conversations: v.number(),
    turns: v.number(),
    blocks: v.number(),
    facts: v.number(),
  }),
  lastEventId: v.number(),
  files: v.array(FileEntry),
});
export type BackupManifest = v.InferOutput<typeof Manifest>;

export interface BackupResult {
  dest: string;
  manifest: BackupManifest;
  bytes: number;
  seconds: number;
}

/** The state of the last backup (`homed status`). */
export type BackupState = BackupStateView;

/** sha256 of a file, read in chunks. */
async function digestOf(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) h.update(chunk);
  return h.digest("hex");
}

/** Whether `child` is `parent` or inside it. */
function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== "..");
}

/** The files of the data folder a backup copies, relative to it, with their sizes. */
function filesToCopy(dir: string, opts: BackupOptions, skip: string): { path: string; bytes: number }[] {
  const out: { path: string; bytes: number }[] = [];
  const secret = new Set(secretDataNames());
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const abs = join(dir, r);
      if (!rel) {
        if (NEVER.has(name) || name.startsWith(".backup-")) continue;
        if ((SECRETS.has(name) || secret.has(name)) && !opts.secrets) continue;
        if (name === "logs" && !opts.logs) continue;
        if (name === "models" && !opts.models) continue;
      }
      // A block half-written by the daemon (renamed into place when whole), and the backup itself.
      if (name.startsWith(".tmp-") || inside(abs, skip)) continue;
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(abs);
      } catch {
        continue; // gone since it was listed
      }
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) out.push({ path: r, bytes: st.size });
    }
  };
  walk("");
  return out;
}

/** Refuse a destination that would lose something or copy the folder into itself. */
function checkDest(dataDir: string, dest: string): void {
  if (inside(dest, dataDir) || inside(dataDir, dest))
    throw new HomedError(
      "usage",
      `backup: ${dest} is inside the data folder ${dataDir} (or holds it): pick a folder outside it`,
      {
        dest,
      },
    );
  if (existsSync(dest)) {
    if (!statSync(dest).isDirectory() || readdirSync(dest).length > 0)
      throw new HomedError("conflict", `backup: ${dest} exists and is not an empty folder; a backup never overwrites`, {
        dest,
      });
  }
}

/** Write a backup of `dataDir` to `dest` (a folder that does not exist yet, or an empty one). */
export async function backupDataDir(dataDir: string, dest: string, opts: BackupOptions = {}): Promise<BackupResult> {
  const now = opts.now ?? Date.now;
  const start = now();
  const paths = dataPaths(dataDir);
  const target = resolve(dest);
  // A destination refused or a folder that is no data folder is a mistake, not a failed backup.
  if (!existsSync(paths.db))
    throw new HomedError("not_found", `backup: ${paths.dir} holds no homed.db`, { dir: paths.dir });
  checkDest(paths.dir, target);
  try {
    const result = await writeBackup(paths.dir, paths.db, target, opts, start, now);
    writeState(paths.dir, {
      at: start,
      ok: true,
      dest: target,
      bytes: result.bytes,
      events: result.manifest.counts.events,
      seconds: result.seconds,
    });
    return result;
  } catch (err) {
    writeState(paths.dir, { at: start, ok: false, dest: target, error: (err as Error).message });
    throw err;
  }
}

async function writeBackup(
  dir: string,
  db: string,
  target: string,
  opts: BackupOptions,
  start: number,
  now: () => number,
): Promise<BackupResult> {
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true, mode: 0o700 });
  try {
    // The database first: every block and file it names was written before it (blocks before
    // the events that hold them), so the files copied after it are at least as new.
    snapshotDatabase(db, join(partial, "homed.db"));
    const dbBytes = statSync(join(partial, "homed.db")).size;
    const files = filesToCopy(dir, opts, partial);
    const total = dbBytes + files.reduce((n, f) => n + f.bytes, 0);
    let done = dbBytes;
    opts.progress?.(done, total);
    const check = checkDatabase(join(partial, "homed.db"));
    if (!check.ok) throw new HomedError("store", `backup: the database copy is damaged: ${check.problems.join("; ")}`);
    const entries: v.InferOutput<typeof FileEntry>[] = [
      { path: "homed.db", bytes: dbBytes, sha256: await digestOf(join(partial, "homed.db")) },
    ];
    for (const f of files) {
      const from = join(dir, f.path);
      const to = join(partial, f.path);
      mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
      const entry = await copyChecked(from, to, f.path);
      if (entry) entries.push(entry);
      done += f.bytes;
      opts.progress?.(done, total);
    }
    const manifest: BackupManifest = {
      format: FORMAT,
      homed: VERSION,
      created: new Date(start).toISOString(),
      source: dir,
      schemaVersion: check.schemaVersion,
      secrets: opts.secrets === true,
      counts: check.counts,
      lastEventId: check.lastEventId,
      files: entries,
    };
    writeFileSync(join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const problems = await verifyBackup(partial);
    if (problems.length)
      throw new HomedError("store", `backup: the copy does not check out: ${problems.slice(0, 3).join("; ")}`);
    if (existsSync(target)) rmSync(target, { recursive: true }); // an empty folder (checkDest)
    renameSync(partial, target);
    const bytes = entries.reduce((n, e) => n + e.bytes, 0);
    return { dest: target, manifest, bytes, seconds: (now() - start) / 1000 };
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Copy one file and its digest. A file rewritten while it was copied (settings saved that moment)
 * is copied again; one that went away is left out (null).
 */
async function copyChecked(from: string, to: string, rel: string): Promise<v.InferOutput<typeof FileEntry> | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let before: string;
    try {
      before = await digestOf(from);
      copyFileSync(from, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new HomedError("data_dir", `backup: ${from}: ${(err as Error).message}`, { path: from }, { cause: err });
    }
    const after = await digestOf(to);
    if (after === before) return { path: rel, bytes: statSync(to).size, sha256: after };
  }
  throw new HomedError("data_dir", `backup: ${from} kept changing while it was copied`, { path: from });
}

/** Read and validate a backup's manifest. */
export function readManifest(dir: string): BackupManifest {
  const file = join(dir, MANIFEST);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
    throw new HomedError(
      missing ? "not_found" : "invalid_params",
      missing ? `${dir} is not a homed backup (no ${MANIFEST})` : `${file}: ${(err as Error).message}`,
      { path: file },
    );
  }
  const parsed = v.safeParse(Manifest, raw);
  if (!parsed.success)
    throw new HomedError("invalid_params", `${file}: not a homed backup manifest (${parsed.issues[0].message})`, {
      path: file,
    });
  for (const f of parsed.output.files)
    if (f.path.startsWith("/") || f.path.split("/").some((p) => p === ".." || p === ""))
      throw new HomedError("invalid_params", `${file}: a file path leaves the backup: ${JSON.stringify(f.path)}`, {
        path: file,
      });
  return parsed.output;
}

/**
 * What is wrong with the backup in `dir`: every file present with its size and digest, a block
 * named by its content, the database whole and holding what the manifest counted. Empty: it
 * checks out.
 */
export async function verifyBackup(dir: string, progress?: (done: number, total: number) => void): Promise<string[]> {
  const manifest = readManifest(dir);
  const problems: string[] = [];
  const total = manifest.files.reduce((n, f) => n + f.bytes, 0);
  let done = 0;
  for (const f of manifest.files) {
    const p = join(dir, f.path);
    if (!existsSync(p)) {
      problems.push(`${f.path}: missing`);
      continue;
    }
    const size = statSync(p).size;
    if (size !== f.bytes) problems.push(`${f.path}: ${size} bytes, the manifest says ${f.bytes}`);
    const sha = await digestOf(p);
    if (sha !== f.sha256) problems.push(`${f.path}: its content changed since the backup was written`);
    const block = /^blocks\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(f.path);
    if (block && block[1] !== sha) problems.push(`${f.path}: a block whose content is not its name`);
    done += f.bytes;
    progress?.(done, total);
  }
  if (!manifest.files.some((f) => f.path === "homed.db")) problems.push("homed.db: not in the manifest");
  else if (!problems.some((p) => p.startsWith("homed.db:"))) {
    const check = checkDatabase(join(dir, "homed.db"));
    if (!check.ok) problems.push(`homed.db: damaged (${check.problems.join("; ")})`);
    for (const [k, n] of Object.entries(manifest.counts) as [keyof DatabaseCounts, number][])
      if (check.counts[k] !== n) problems.push(`homed.db: ${check.counts[k]} ${k}, the manifest counted ${n}`);
  }
  return problems;
}

export interface RestoreResult {
  dataDir: string;
  files: number;
  bytes: number;
  manifest: BackupManifest;
  /** The schema this homed runs: the daemon migrates the restored database up to it when it starts. */
  currentSchema: number;
}

/**
 * Restore the backup in `src` into `dataDir`, which must be empty or not exist: a live data folder
 * is never overwritten. Checked before anything is written; the folder is locked while it is
 * written, so no daemon starts on half of it.
 */
export async function restoreBackup(
  src: string,
  dataDir: string,
  progress?: (done: number, total: number) => void,
): Promise<RestoreResult> {
  const from = resolve(src);
  const paths = dataPaths(dataDir);
  if (existsSync(paths.dir)) {
    const names = statSync(paths.dir).isDirectory() ? readdirSync(paths.dir) : ["(a file)"];
    if (names.length > 0)
      throw new HomedError(
        "conflict",
        names.includes("homed.db")
          ? `restore: ${paths.dir} holds a data folder (homed.db); restore never overwrites one: move it away, or restore into a new folder and point -data at it`
          : `restore: ${paths.dir} is not empty; restore writes only into an empty folder`,
        { dir: paths.dir },
      );
  }
  const manifest = readManifest(from);
  if (manifest.schemaVersion > CURRENT_SCHEMA)
    throw new HomedError(
      "schema_too_new",
      `restore: the backup's database has schema ${manifest.schemaVersion}, this homed knows up to ${CURRENT_SCHEMA}: restore it with homed ${manifest.homed} or newer`,
      { schemaVersion: manifest.schemaVersion, supported: CURRENT_SCHEMA },
    );
  const problems = await verifyBackup(from);
  if (problems.length)
    throw new HomedError(
      "store",
      `restore: ${from} does not check out, nothing was written: ${problems.slice(0, 3).join("; ")}`,
      {
        problems,
      },
    );
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const lock = lockDataDir(paths);
  try {
    const total = manifest.files.reduce((n, f) => n + f.bytes, 0);
    let done = 0;
    for (const f of manifest.files) {
      const to = join(paths.dir, f.path);
      mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
      copyFileSync(join(from, f.path), to);
      if ((await digestOf(to)) !== f.sha256)
        throw new HomedError("data_dir", `restore: ${to} did not come out as it went in`, { path: to });
      done += f.bytes;
      progress?.(done, total);
    }
    return { dataDir: paths.dir, files: manifest.files.length, bytes: total, manifest, currentSchema: CURRENT_SCHEMA };
  } finally {
    lock.release();
  }
}

function writeState(dir: string, state: BackupState): void {
  try {
    const tmp = join(dir, `.${BACKUP_STATE}.tmp`);
    writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(tmp, join(dir, BACKUP_STATE));
  } catch {
    // The state is for `homed status`; a data folder that cannot take it has the backup all the same.
  }
}

/** The last backup's state, or null when none was taken (or the file is unreadable). */
export function lastBackup(dir: string): BackupState | null {
  try {
    const parsed = v.safeParse(BackupStateView, JSON.parse(readFileSync(join(dir, BACKUP_STATE), "utf8")));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}
