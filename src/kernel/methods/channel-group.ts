/**
 * What every group of channel methods (channel.ts) is: a table of handlers called with the
 * plugin that calls them, and the one check that reserves a method to built-in plugins.
 */
import { HomedError } from "../../protocol/errors.ts";
import type { KernelServices } from "../kernel-services.ts";

/** Handlers by method name; `plugin` is the caller, as the supervisor knows it. */
export type ChannelMethodGroup = Record<string, (params: unknown, plugin: string) => unknown>;

/** Throws `forbidden` unless `plugin` is built in; `what` names the refused action in the message. */
export type BuiltinOnly = (plugin: string, what: string) => void;

/** The built-in check for the plugins `k` runs. */
export function builtinOnlyFor(k: Pick<KernelServices, "plugins">): BuiltinOnly {
  return (plugin, what) => {
    if (!k.plugins.isBuiltin(plugin))
      throw new HomedError("forbidden", `${what} is reserved to built-in plugins; ${plugin} is not one`);
  };
}
