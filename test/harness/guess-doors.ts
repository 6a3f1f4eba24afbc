/**
 * The doors a secret can be guessed at, each behind a real daemon: the web login form, a bearer
 * token on /v1, an A2A peer token on /a2a, and the QQ channel's access token on its reverse
 * WebSocket listener. Every request goes over a raw socket from a chosen loopback source address
 * (127.0.0.1 is "the guesser", others are other clients). Shared by test/web/guess-doors.test.ts
 * and the `security.guesses_before_429.<kind>` benchmarks.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./binary.ts";
import { startDaemon, webUrlOf } from "./daemon.ts";
import { freePort, startQqRig } from "./qq-rig.ts";
import { type RawResponse, rawRequest } from "./raw-http.ts";

export type DoorKind = "login" | "v1" | "a2a" | "qq";
export const DOOR_KINDS: readonly DoorKind[] = ["login", "v1", "a2a", "qq"];

export interface Door {
  kind: DoorKind;
  /** The secret that opens this door. */
  right: string;
  /** Present `secret` from `from` (a loopback address); the response. */
  knock(secret: string, from?: string): Promise<RawResponse>;
  /** Whether a response means the secret was accepted (401/403/429 never do). */
  opened(res: RawResponse): boolean;
  [Symbol.asyncDispose](): Promise<void>;
}

const WEB_TOKEN = "correct-horse-battery-staple-42";
const PEER_TOKEN = "laptop-token-0123456789abcdef";
const QQ_TOKEN = "qq-door-token-0123456789";

/** Start the daemon behind `kind`'s door. */
export async function openDoor(kind: DoorKind): Promise<Door> {
  const dir = tempDir();
  if (kind === "qq") {
    const port = freePort();
    const rig = await startQqRig(dir.path, { mode: "reverse", listen: `127.0.0.1:${port}`, access_token: QQ_TOKEN });
    await rig.daemon.waitFor('msg="qq listening" plugin=qq mode=reverse');
    return {
      kind,
      right: QQ_TOKEN,
      knock: (secret, from = "127.0.0.1") =>
        rawRequest(`http://127.0.0.1:${port}/onebot/v11/ws`, {
          headers: [
            ["Host", `127.0.0.1:${port}`],
            ["Authorization", `Bearer ${secret}`],
          ],
          localAddress: from,
        }),
      // Past the token check, a plain HTTP request is told to upgrade.
      opened: (res) => res.status === 426,
      async [Symbol.asyncDispose]() {
        await rig[Symbol.asyncDispose]();
        dir[Symbol.dispose]();
      },
    };
  }
  if (kind === "a2a")
    writeFileSync(
      join(dir.path, "config.toml"),
      `[channels.a2a]\npeers = [{ name = "laptop", token = "${PEER_TOKEN}" }]\n`,
    );
  // The A2A door beyond loopback, where a peer token is what lets anyone in; the others on a
  // loopback bind with a token the owner set.
  const d = await startDaemon(
    dir.path,
    kind === "a2a" ? { args: ["-listen", "0.0.0.0:0"] } : { env: { HOMED_WEB_TOKEN: WEB_TOKEN } },
  );
  const url = await webUrlOf(d);
  const host: [string, string] = ["Host", new URL(url).host];
  const knock = (secret: string, from = "127.0.0.1"): Promise<RawResponse> => {
    if (kind === "login")
      return rawRequest(`${url}api/login`, {
        method: "POST",
        headers: [host, ["Content-Type", "application/json"], ["X-Homed", "1"]],
        body: JSON.stringify({ token: secret }),
        localAddress: from,
      });
    if (kind === "v1")
      return rawRequest(`${url}v1/models`, {
        headers: [host, ["Authorization", `Bearer ${secret}`]],
        localAddress: from,
      });
    return rawRequest(`${url}a2a`, {
      method: "POST",
      headers: [host, ["Content-Type", "application/json"], ["Authorization", `Bearer ${secret}`]],
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
      localAddress: from,
    });
  };
  return {
    kind,
    right: kind === "a2a" ? PEER_TOKEN : WEB_TOKEN,
    knock,
    opened: (res) => res.status === 200,
    async [Symbol.asyncDispose]() {
      await d[Symbol.asyncDispose]();
      dir[Symbol.dispose]();
    },
  };
}

/** Wrong secrets `door` answered (each refused) before its first 429; `limit` if none came. */
export async function guessesBefore429(door: Door, limit = 100): Promise<{ wrong: number; retryAfter: string }> {
  for (let i = 0; i < limit; i++) {
    const res = await door.knock(`wrong-guess-${i}-0123456789`);
    if (res.status === 429) return { wrong: i, retryAfter: res.headers["retry-after"] ?? "" };
    if (door.opened(res)) throw new Error(`${door.kind}: a wrong secret was accepted (${res.status})`);
  }
  return { wrong: limit, retryAfter: "" };
}
