/**
 * `homed recall --stdio [-data DIR]`: offline evaluation and bulk import through the same
 * memory the agent uses. Reads JSON lines on stdin (src/protocol/recall.ts); only `query`
 * writes to stdout, always exactly one line; a bad line is reported on stderr and the stream
 * goes on. It opens the data dir itself, so the daemon must not be running on it.
 *
 * HOMED_RECALL_SCORER=hybrid|bm25|bm25c|recent picks the scorer (evaluation only; the agent
 * always uses hybrid).
 */
import * as v from "valibot";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { HomedError } from "../protocol/errors.ts";
import { RecallOp } from "../protocol/recall.ts";
import { Store } from "../store/store.ts";
import { Tokenizer } from "../embed/tokenizer.ts";
import { RecallSession } from "../memory/recall-session.ts";
import type { ScorerName } from "../memory/relevance.ts";
import { loadConfig } from "../kernel/config.ts";
import { ensureDataDir, lockDataDir } from "../kernel/data-dir.ts";
import { dataPaths } from "../kernel/data-paths.ts";

const SCORERS: ScorerName[] = ["hybrid", "bm25", "bm25c", "recent"];

export async function runRecall(dataDir: string): Promise<number> {
  const scorer = (process.env.HOMED_RECALL_SCORER ?? "hybrid") as ScorerName;
  if (!SCORERS.includes(scorer)) throw new HomedError("usage", `HOMED_RECALL_SCORER must be one of ${SCORERS.join(", ")}`);
  const paths = dataPaths(dataDir);
  ensureDataDir(paths);
  const config = loadConfig({ file: paths.config, env: process.env });
  const lock = lockDataDir(paths);
  const store = Store.open(paths.db, { busyTimeoutMs: config.store.busy_timeout_ms });
  const session = new RecallSession(store, new Tokenizer(), scorer);
  const handle = (op: RecallOp): void => {
    const ids = session.handle(op);
    if (ids) process.stdout.write(JSON.stringify({ ids }) + "\n");
  };

  let buffered = "";
  let lineNo = 0;
  const processLine = (line: string) => {
    lineNo++;
    if (!line.trim()) return;
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
      if (isQuery) process.stdout.write(JSON.stringify({ ids: [], error: describeIssues(parsed.issues) }) + "\n");
      return;
    }
    try {
      handle(parsed.output);
    } catch (err) {
      process.stderr.write(`recall: line ${lineNo}: ${(err as Error).message}\n`);
      if (parsed.output.op === "query") process.stdout.write(JSON.stringify({ ids: [], error: (err as Error).message }) + "\n");
    }
  };
  try {
    const dec = new TextDecoder();
    for await (const chunk of Bun.stdin.stream()) {
      buffered += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        processLine(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    }
    if (buffered) processLine(buffered);
    session.commit();
  } finally {
    store.close();
    lock.release();
  }
  return 0;
}
