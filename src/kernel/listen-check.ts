/**
 * At start, the daemon makes sure the web channel's address can be bound before it goes on:
 * a daemon whose UI cannot listen is no use to the person who started it, and the web plugin's
 * own failure would only show as `failed` in `homed status`. The probe binds and releases at
 * once; the web plugin binds a moment later (another program could take the port in between,
 * and then the plugin fails as before).
 */
import { HomedError } from "../protocol/errors.ts";
import { parseListen } from "../shared/listen.ts";

const REASONS: Record<string, string> = {
  EADDRINUSE: "address already in use (another program listens there; pick another port with -listen)",
  EADDRNOTAVAIL: "no interface of this machine has that address",
  EACCES: "permission denied (ports below 1024 need privileges)",
};

/** Throw HomedError("config") (exit 78), naming `listen`, unless it can be bound right now. */
export function checkListen(listen: string): void {
  const addr = parseListen(listen);
  if (!addr) throw new HomedError("config", `listen: ${listen} is not HOST:PORT`, { listen });
  let probe: { stop(closeActive?: boolean): void };
  try {
    probe = Bun.listen({ hostname: addr.host, port: addr.port, socket: { data() {} } });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    const reason = REASONS[code] ?? (err as Error).message;
    throw new HomedError("config", `cannot listen on ${listen}: ${reason}`, { listen, errno: code }, { cause: err });
  }
  probe.stop(true);
}
