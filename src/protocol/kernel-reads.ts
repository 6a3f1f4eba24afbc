/**
 * What the kernel itself needs of a built-in plugin's settings, found by the field that declares
 * it rather than by the plugin's or the field's name: the web plugin's section holds the login
 * token the owner set, the files plugin's the most a read returns (skill_file reads as
 * files_read does), the shell plugin's how commands are confined (where a skill's folder is seen
 * from inside). Only built-in sections are asked: an installed plugin cannot supply these.
 */
import * as v from "valibot";
import { fieldMetadata } from "./plugin-settings.ts";

export const KERNEL_READS = {
  /** The login token of the web UI and HTTP APIs the owner set ("": one is generated). */
  loginToken: "login-token",
  /** The most of a file one read returns, in KiB. */
  readMaxKb: "read-max-kb",
  /** How commands run: "none" when unconfined, anything else confined. */
  commandSandbox: "command-sandbox",
} as const;
export type KernelRead = (typeof KERNEL_READS)[keyof typeof KERNEL_READS];

const KERNEL_READS_KEY = "homed.kernel-reads";

/** Mark a field as the one the kernel reads for `what`. */
export function kernelReads<const S extends v.GenericSchema>(schema: S, what: KernelRead) {
  return v.pipe(schema, v.metadata({ [KERNEL_READS_KEY]: what }));
}

/** What the kernel reads a field for, if anything. */
export function fieldKernelRead(entry: v.GenericSchema): KernelRead | undefined {
  const what = fieldMetadata(entry, KERNEL_READS_KEY);
  return typeof what === "string" ? (what as KernelRead) : undefined;
}
