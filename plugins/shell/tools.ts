/**
 * The shell plugin's tool specs (listed in the manifest at build time, so they are offered
 * before the lazy plugin starts). Keep this file free of heavy imports: the build imports it.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

const TimeoutMs = v.optional(
  v.pipe(
    v.number(),
    v.integer(),
    v.minValue(1),
    v.description("Time limit in ms; at most [tools.sandbox] timeout_ms (the default)."),
  ),
);
const JobId = v.pipe(
  v.string(),
  v.regex(/^j\d{1,9}$/, "must be a job id like j1"),
  v.description("A job id, e.g. j1."),
);

export const TOOLS = {
  shell_run: {
    name: "shell_run",
    examples: [
      "run this command",
      "how much disk space is left",
      "what process is using the cpu",
      "install the package",
      "执行这个命令",
    ],
    description:
      "Run a shell command (bash -c) in a sandbox: the workspace is the working directory and HOME (/workspace, read-write), the system is read-only, /tmp is private and empty, there is no network unless the owner allowed it. Returns the exit status and the output (head and tail kept when long). With background=true it returns a job id at once (the job still ends at the time limit); follow it with shell_jobs and end it with shell_kill.",
    input: v.strictObject({
      command: v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(100_000)),
      timeout_ms: TimeoutMs,
      background: v.optional(v.pipe(v.boolean(), v.description("Start it as a background job and return its id."))),
    }),
    risk: "exec",
    untrustedOutput: true,
  },
  shell_jobs: {
    name: "shell_jobs",
    examples: ["is the download still running", "show the background jobs"],
    description:
      "List background jobs started with shell_run (id, command, state, exit, run time), or with id show one job and the tail of its output.",
    input: v.strictObject({
      id: v.optional(JobId),
      tail_kb: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.maxValue(1024),
          v.description("Output tail to show, KiB (default 4)."),
        ),
      ),
    }),
    risk: "read",
    untrustedOutput: true,
  },
  shell_kill: {
    name: "shell_kill",
    examples: ["stop that running job", "kill the process"],
    description: "End a background job: SIGTERM, then SIGKILL if it is still running 2 s later.",
    input: v.strictObject({ id: JobId }),
    risk: "exec",
    ownOutput: "says whether the job ended, and how",
  },
} satisfies Record<string, ToolSpec>;
