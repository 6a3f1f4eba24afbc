/** [tools.sandbox]: how shell_run and code_run (plugins/code uses this plugin's sandbox) confine commands. */
import * as v from "valibot";
import { KERNEL_READS, kernelReads } from "../../src/protocol/kernel-reads.ts";
import { configFileOnly, defineSettings, setting, wholeNumber } from "../../src/protocol/plugin-settings.ts";

export const SETTINGS = defineSettings({
  doc: "",
  schema: v.strictObject({
    mode: setting(
      configFileOnly(kernelReads(v.picklist(["bwrap", "none"], "must be bwrap or none"), KERNEL_READS.commandSandbox)),
      "bwrap",
      `shell_run and code_run: "bwrap" runs commands in bubblewrap with the first files root
read-write (as /workspace) and the system read-only; where bubblewrap cannot run the tools
refuse. "none" runs them unconfined as the daemon's user: only if you mean it.`,
    ),
    network: setting(v.boolean("must be true or false"), false, "Let sandboxed commands reach the network."),
    timeout_ms: setting(
      wholeNumber(100, 86_400_000),
      60_000,
      `Longest run of a command, background jobs included; a call may ask for less, not more.
Foreground calls are also bounded by [agent] tool_timeout_ms.`,
    ),
    output_kb: setting(
      wholeNumber(1, 65_536),
      64,
      `Output shown per command (KiB, stdout and stderr together), half from the start and half
from the end; the middle is cut and counted.`,
    ),
    max_jobs: setting(wholeNumber(1, 256), 8, "Background jobs (shell_run background = true) running at once."),
  }),
  reload: "daemon-restart",
});
