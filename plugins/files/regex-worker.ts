/**
 * files_grep's matching, in a Worker that can be killed. JavaScript cannot interrupt a RegExp,
 * and a pattern like `(a+)+$` on forty characters backtracks for minutes: run in the plugin's
 * own thread it would stall every other call and get the plugin killed as hung. In a worker,
 * a file that takes longer than its time is answered by `terminate()` and an error naming
 * the pattern.
 *
 * JavaScriptCore also gives up on its own: past a backtracking budget (about 0.4–2 s of one
 * line, by the machine) `test()` answers false as if the line did not match. A grep that said
 * "no lines match" then would be wrong, so a line that took over `slowLineMs` and came back
 * false ends the file's matching with that line named, instead of being counted as no match.
 *
 * The worker is made from a blob URL of `workerMain`'s source, so it needs no separate entry
 * point in the compiled binary; `workerMain` must therefore use nothing from outside itself.
 */

/** What the worker answers for one file: matching lines (at most `keep`) and their count. */
export interface FileMatches {
  count: number;
  hits: { line: number; text: string }[];
  /** Set when matching stopped at a line that took too long to be trusted as "no match". */
  slowLine?: { line: number; ms: number };
}

interface MatchRequest {
  pattern: string;
  flags: string;
  text: string;
  keep: number;
  /** Each line is matched on this many characters from its start. */
  lineMatchMax: number;
  /** Lines are shown cut to this many characters, around the match. */
  lineShowMax: number;
  /** A line that comes back false after this long may be one the engine gave up on. */
  slowLineMs: number;
}

function workerMain(): void {
  const scope = globalThis as unknown as {
    onmessage: (e: { data: MatchRequest }) => void;
    postMessage: (m: FileMatches) => void;
  };
  scope.onmessage = (e) => {
    const r = e.data;
    const re = new RegExp(r.pattern, r.flags);
    const hits: FileMatches["hits"] = [];
    let count = 0;
    let lineNo = 0;
    let from = 0;
    while (from <= r.text.length) {
      let nl = r.text.indexOf("\n", from);
      if (nl === -1) nl = r.text.length;
      lineNo++;
      const end = Math.min(nl, from + r.lineMatchMax);
      let line = r.text.slice(from, end);
      from = nl + 1;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line === "" && from > r.text.length) break; // the text's final newline ends no line
      const started = performance.now();
      if (!re.test(line)) {
        const ms = performance.now() - started;
        if (ms <= r.slowLineMs) continue;
        scope.postMessage({ count, hits, slowLine: { line: lineNo, ms } });
        return;
      }
      count++;
      if (hits.length >= r.keep) continue;
      if (line.length > r.lineShowMax) {
        const at = Math.max(0, line.search(re) - 100);
        const part = line.slice(at, at + r.lineShowMax);
        line = `${at > 0 ? "…" : ""}${part}${at + r.lineShowMax < line.length ? "…" : ""}`;
      }
      hits.push({ line: lineNo, text: line });
    }
    scope.postMessage({ count, hits });
  };
}

let workerUrl: string | undefined;

/** One grep's matcher: a worker, killed and replaced when a file overruns its time. */
export class RegexRunner {
  private worker: Worker | undefined;
  /** Ends the match in flight (with undefined) when the worker is closed. */
  private abandon: (() => void) | undefined;

  constructor(
    private readonly pattern: string,
    private readonly flags: string,
  ) {}

  /**
   * Match `text` line by line; undefined when it took longer than `timeoutMs` or the runner
   * was closed meanwhile (the worker is then killed). Rejects only if the worker itself fails.
   */
  match(
    text: string,
    keep: number,
    limits: { lineMatchMax: number; lineShowMax: number; slowLineMs: number; timeoutMs: number },
  ): Promise<FileMatches | undefined> {
    workerUrl ??= URL.createObjectURL(new Blob([`(${workerMain.toString()})();`], { type: "application/javascript" }));
    this.worker ??= new Worker(workerUrl);
    const worker = this.worker;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.abandon = undefined;
      };
      const timer = setTimeout(() => this.close(), limits.timeoutMs);
      this.abandon = () => {
        done();
        resolve(undefined);
      };
      worker.onmessage = (e: MessageEvent<FileMatches>) => {
        done();
        resolve(e.data);
      };
      worker.onerror = (e) => {
        done();
        this.close();
        reject(new Error(`the regex worker failed: ${e.message}`));
      };
      const req: MatchRequest = {
        pattern: this.pattern,
        flags: this.flags,
        text,
        keep,
        lineMatchMax: limits.lineMatchMax,
        lineShowMax: limits.lineShowMax,
        slowLineMs: limits.slowLineMs,
      };
      worker.postMessage(req);
    });
  }

  /** Kill the worker (a runaway match included); a match in flight answers undefined. */
  close(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.abandon?.();
  }
}
