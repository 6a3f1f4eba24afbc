/**
 * Every door that checks a secret counts wrong guesses: the login form, bearer tokens on /v1,
 * A2A peer tokens and the QQ channel's access token. From one client, 5 wrong answers then 429
 * with Retry-After, even for the right secret; another address of the same machine is the same
 * client, another machine's still gets in, and the guesser gets in with the right secret once
 * its wait is over.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { rawRequest } from "../harness/raw-http.ts";
import { DOOR_KINDS, guessesBefore429, openDoor } from "../harness/guess-doors.ts";
import { poll } from "../harness/poll.ts";
import { otherLocalAddress } from "../harness/addresses.ts";

describe("guessing a secret is slowed down at every door", () => {
  for (const kind of DOOR_KINDS)
    test(`${kind}: 5 wrong answers, then 429 with Retry-After before anything is checked`, async () => {
      await using door = await openDoor(kind);
      // The right secret opens the door (so "opened" can tell), and a success clears nothing it should not.
      expect(door.opened(await door.knock(door.right, "127.0.0.4"))).toBe(true);
      expect(await guessesBefore429(door, 30)).toEqual({ wrong: 5, retryAfter: "1" });
      // Blocked: the right secret is not even looked at.
      expect((await door.knock(door.right)).status).toBe(429);
      // Another loopback address is this machine again: blocked too.
      expect((await door.knock(door.right, "127.0.0.2")).status).toBe(429);
      // Another client (this machine's own non-loopback address, where it has one) is not affected.
      const other = otherLocalAddress();
      if (other) expect(door.opened(await door.knock(door.right, other))).toBe(true);
      // The block is a second long at first: the guesser's right secret works once it is over.
      await poll(
        () => door.knock(door.right),
        (res) => res.status !== 429,
        { what: `${kind}: the block to end`, timeoutMs: 5_000, intervalMs: 100 },
      ).then((res) => expect(door.opened(res)).toBe(true));
    }, 30_000);

  test("a2a on an open loopback listener: a bearer that names nobody is counted too (a peer token is worth guessing)", async () => {
    using dir = tempDir();
    writeFileSync(
      join(dir.path, "config.toml"),
      `[channels.a2a]\npeers = [{ name = "laptop", token = "laptop-0123456789" }]\n`,
    );
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const list = (bearer: string, from: string) =>
      rawRequest(`${url}a2a`, {
        method: "POST",
        headers: [
          ["Host", new URL(url).host],
          ["Content-Type", "application/json"],
          ["Authorization", `Bearer ${bearer}`],
        ],
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
        localAddress: from,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await list(`laptop-guess-${i}`, "127.0.0.1")).status);
    // Anyone may call as "anon" here, so a wrong bearer is answered, but only 5 times.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect((await list("laptop-0123456789", "127.0.0.2")).status).toBe(429);
    const other = otherLocalAddress();
    if (other) expect((await list("laptop-0123456789", other)).status).toBe(200);
  }, 30_000);
});
