/**
 * What a plugin may ask of the kernel over its control channel: `hello` first, then readiness
 * (`facility/ready`, `plugin/ready`), the plugin list, restarts, keep-running (a lazy plugin
 * with work on a clock is not stopped when idle), and the kernel's own methods
 * (`kernelMethods`). Nothing but `hello` is answered before `hello`.
 *
 * Guard, as for the kernel's other privileged methods: restarting another plugin is reserved
 * to built-in plugins (the web UI's restart button is one); any plugin may restart itself.
 */
import { HomedError, RpcError } from "../../protocol/errors.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { parseParams } from "../../protocol/parse-params.ts";
import {
  FacilityReadyParams,
  HelloParams,
  KeepRunningParams,
  methodFacility,
  PLUGIN_PROTOCOL_VERSION,
  PluginMethod,
  RestartParams,
  type HelloResult,
  type PluginInfo,
} from "../../protocol/plugin.ts";

/** One running plugin process, as far as its requests are concerned. */
export interface PluginSession {
  readonly name: string;
  readonly provides: readonly string[];
  /** The facilities its manifest requires: for an external plugin, what it may call. */
  readonly requires: readonly string[];
  /** Compiled into this binary: trusted code, not held to `requires` at run time. */
  readonly builtin: boolean;
  readonly helloDone: boolean;
  /** The plugin said a valid hello. */
  greeted(): void;
  /** It announced `facility` (one it declares). */
  facilityReady(facility: string): void;
  /** It said `plugin/ready`. */
  saidReady(): void;
}

/** What the kernel side offers to every plugin. */
export interface PluginRpcHost {
  hello(name: string): HelloResult;
  list(): PluginInfo[];
  restart(name: string): PluginInfo;
  isBuiltin(name: string): boolean;
  /** A lazy plugin must keep running (on) or may be stopped when idle again (off). */
  keepRunning(name: string, on: boolean): void;
  /** Kernel methods beyond these (each checks its own rights with the caller's name). */
  kernelMethods: Record<string, (params: unknown, plugin: string) => unknown>;
}

/** Answer one request from the plugin of `session`. */
export function answerPlugin(session: PluginSession, host: PluginRpcHost, method: string, params: unknown): unknown {
  const name = session.name;
  if (method === PluginMethod.Hello) {
    const p = parseParams(HelloParams, params);
    if (p.name !== name) throw new HomedError("conflict", `this is plugin ${name}, not ${p.name}`);
    if (p.protocol !== PLUGIN_PROTOCOL_VERSION)
      throw new HomedError(
        "conflict",
        `protocol ${p.protocol} unsupported; this kernel speaks ${PLUGIN_PROTOCOL_VERSION}`,
      );
    session.greeted();
    return host.hello(name);
  }
  if (!session.helloDone) throw new RpcError(RpcErrorCode.InvalidRequest, `${method} before ${PluginMethod.Hello}`);
  switch (method) {
    case PluginMethod.FacilityReady: {
      const { facility } = parseParams(FacilityReadyParams, params);
      if (!session.provides.includes(facility))
        throw new HomedError("forbidden", `${name} does not declare ${facility} in provides`);
      session.facilityReady(facility);
      return { ok: true };
    }
    case PluginMethod.Ready:
      session.saidReady();
      return { ok: true };
    case PluginMethod.List:
      return host.list();
    case PluginMethod.KeepRunning:
      host.keepRunning(name, parseParams(KeepRunningParams, params).on);
      return { ok: true };
    case PluginMethod.Restart: {
      const target = parseParams(RestartParams, params).name;
      if (target !== name && !host.isBuiltin(name)) {
        throw new HomedError(
          "forbidden",
          `restarting another plugin is reserved to built-in plugins; ${name} is not one`,
        );
      }
      return host.restart(target);
    }
  }
  const fn = host.kernelMethods[method];
  if (!fn) throw new RpcError(RpcErrorCode.MethodNotFound, `unknown method: ${method}`);
  if (!session.builtin) requireFacility(session, method);
  return fn(params, name);
}

/**
 * An external plugin calls only what its manifest declares: the method's facility must be in
 * `requires` (src/protocol/plugin.ts, METHOD_FACILITIES), and a method that names none there is
 * not for it at all. Built-in plugins are our own code, checked at build time instead.
 */
function requireFacility(session: PluginSession, method: string): void {
  const facility = methodFacility(method);
  if (facility === null)
    throw new HomedError("forbidden", `${method} is not available to external plugins; ${session.name} is one`);
  if (facility !== "" && !session.requires.includes(facility))
    throw new HomedError(
      "forbidden",
      `${method} needs the facility ${facility}, which ${session.name} does not declare: add it to "requires" in its plugin.json`,
    );
}
