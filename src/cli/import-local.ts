/**
 * `homed import` on a data dir no daemon runs on: the command takes the lock and the store
 * itself, as `homed recall` does, and appends through the same function the daemon's
 * `memory.import` runs (src/memory/import-conversations.ts). Loaded only then, so an import into
 * a running daemon never loads memory's tokenizer.
 */
import { Store } from "../store/store.ts";
import { Tokenizer } from "../embed/tokenizer.ts";
import { Memory } from "../memory/memory.ts";
import { importConversations } from "../memory/import-conversations.ts";
import { IMPORT_CHANNEL, type ImportedConversation, type MemoryImportResult } from "../protocol/import.ts";
import { HomedError } from "../protocol/errors.ts";
import { loadConfig } from "../kernel/config/config.ts";
import { ensureDataDir, lockDataDir } from "../kernel/data-dir.ts";
import type { DataPaths } from "../kernel/data-paths.ts";
import { imageTagChannels } from "../kernel/plugins/catalog.ts";

export interface LocalImport {
  send(conversations: ImportedConversation[]): Promise<MemoryImportResult>;
  close(): void;
}

/**
 * Open `paths` for an import. A daemon holding the lock whose socket did not answer (it is
 * starting, or stopping) is a refusal: importing beside it would be two writers.
 */
export function openLocalImport(paths: DataPaths): LocalImport {
  ensureDataDir(paths);
  const config = loadConfig({ file: paths.config, env: process.env });
  let lock: ReturnType<typeof lockDataDir>;
  try {
    lock = lockDataDir(paths);
  } catch (err) {
    if (err instanceof HomedError && err.code === "locked")
      throw new HomedError(
        "locked",
        `${err.message}, but its control socket did not answer; import again once it is ready`,
        err.data,
      );
    throw err;
  }
  let store: Store;
  try {
    store = Store.open(paths.db, { busyTimeoutMs: config.store.busy_timeout_ms, imageTagChannels: imageTagChannels() });
  } catch (err) {
    lock.release();
    throw err;
  }
  const memory = new Memory(store, new Tokenizer());
  // The command's own connection, for the import alone: the larger page cache throughout.
  store.bulk(true);
  return {
    send: async (conversations) => importConversations(store, memory, IMPORT_CHANNEL, conversations),
    close() {
      store.close();
      lock.release();
    },
  };
}
