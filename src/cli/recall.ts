/**
 * `homed recall --stdio [-data DIR]`: offline evaluation and bulk import through the same
 * memory the agent uses. Reads JSON lines on stdin (src/protocol/recall.ts); only `query`
 * writes to stdout, always exactly one line; a bad line is reported on stderr and the stream
 * goes on. Lines over 4 MiB are skipped unread (memory stays bounded whatever comes in). It
 * opens the data dir itself, so the daemon must not be running on it.
 *
 * HOMED_RECALL_SCORER=hybrid|bm25|bm25c|recent picks the scorer (evaluation only; the agent
 * always uses hybrid).
 */
import * as v from "valibot";
import { read } from "node:fs";
import { promisify } from "node:util";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { HomedError } from "../protocol/errors.ts";
import { RecallOp } from "../protocol/recall.ts";
import { Store } from "../store/store.ts";
import { Tokenizer } from "../embed/tokenizer.ts";
import { RecallSession } from "../memory/recall-session.ts";
import type { ScorerName } from "../memory/relevance.ts";
import { loadConfig } from "../kernel/config/config.ts";
import { ensureDataDir, lockDataDir } from "../kernel/data-dir.ts";
import { dataPaths } from "../kernel/data-paths.ts";
import { LineDecoder } from "../ipc/line-decoder.ts";
import { DEFAULT_MAX_FRAME_BYTES } from "../ipc/rpc-peer.ts";
import { imageTagChannels } from "../kernel/plugins/catalog.ts";

/**
 * The longest line read, as for a control-socket frame: an index op carries one turn, which is
 * far smaller. A longer line is skipped without being buffered and reported on stderr; if it was
 * a query, it gets no answer line (we never parsed it).
 */
const MAX_LINE_BYTES = DEFAULT_MAX_FRAME_BYTES;

const readAsync = promisify(read);

const SCORERS: ScorerName[] = ["hybrid", "bm25", "bm25c", "recent"];

/**
 * stdin in chunks read into one reused buffer, so any amount of input leaves no garbage behind
 * (Bun's stream allocates every chunk, and a fast writer outran the GC by 150 MB over a 256 MiB
 * line). A chunk is valid until the next is asked for. A non-blocking stdin (EAGAIN) falls back
 * to the stream for the rest: correct, just not as frugal.
 */
async function* stdinChunks(): AsyncGenerator<Uint8Array> {
  const buf = new Uint8Array(64 << 10);
  for (;;) {
    let n: number;
    try {
      n = (await readAsync(0, buf, 0, buf.length, null)).bytesRead;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN") throw err;
      yield* Bun.stdin.stream();
      return;
    }
    if (n === 0) return;
    yield buf.subarray(0, n);
  }
}

export async function runRecall(dataDir: string): Promise<number> {
  const scorer = (process.env.HOMED_RECALL_SCORER ?? "hybrid") as ScorerName;
  if (!SCORERS.includes(scorer))
    throw new HomedError("usage", `HOMED_RECALL_SCORER must be one of ${SCORERS.join(", ")}`);
  const paths = dataPaths(dataDir);
  ensureDataDir(paths);
  const config = loadConfig({ file: paths.config, env: process.env });
  const lock = lockDataDir(paths);
  const store = Store.open(paths.db, {
    busyTimeoutMs: config.store.busy_timeout_ms,
    imageTagChannels: imageTagChannels(),
  });
  const session = new RecallSession(store, new Tokenizer(), scorer);
  const handle = (op: RecallOp): void => {
    const ids = session.handle(op);
    if (ids) process.stdout.write(`${JSON.stringify({ ids })}\n`);
  };

  const processLine = (line: string, lineNo: number) => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      process.stderr.write(`recall: line ${lineNo}: not JSON\n`);
      return;
    }
    const parsed = v.safeParse(RecallOp, raw);
    if (!parsed.success) {
      const isQuery = typeof raw === "object" && raw !== null && (raw as { op?: unknown }).op === "query";
      process.stderr.write(`recall: line ${lineNo}: ${describeIssues(parsed.issues)}\n`);
      if (isQuery) process.stdout.write(`${JSON.stringify({ ids: [], error: describeIssues(parsed.issues) })}\n`);
      return;
    }
    try {
      handle(parsed.output);
    } catch (err) {
      process.stderr.write(`recall: line ${lineNo}: ${(err as Error).message}\n`);
      if (parsed.output.op === "query")
        process.stdout.write(`${JSON.stringify({ ids: [], error: (err as Error).message })}\n`);
    }
  };
  const decoder: LineDecoder = new LineDecoder(
    {
      line: (text) => processLine(text, decoder.lineNumber),
      oversized: (bytes) => {
        process.stderr.write(
          `recall: line ${decoder.lineNumber}: longer than ${MAX_LINE_BYTES >> 20} MiB (${bytes} bytes), skipped\n`,
        );
      },
    },
    MAX_LINE_BYTES,
  );
  try {
    for await (const chunk of stdinChunks()) decoder.push(chunk);
    decoder.end();
    session.commit();
  } finally {
    store.close();
    lock.release();
  }
  return 0;
}
