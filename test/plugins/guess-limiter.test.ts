/**
 * White-box on purpose: the limiter's timing (doubling, cap, forgetting) and its memory bound
 * play out over minutes and ten thousand clients, which a black-box test cannot wait for or
 * produce. Driven through its public methods with an injected clock. The daemon-level behaviour
 * (429, Retry-After, per-client, reset, each door) is in test/web/security.test.ts and
 * test/web/guess-doors.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { clientKey, GuessLimiter, guesserKey } from "../../plugins/sdk/guess-limiter.ts";

function limiterAt() {
  const clock = { t: 1_000_000 };
  return { clock, limiter: new GuessLimiter(() => clock.t) };
}

describe("GuessLimiter", () => {
  test("5 free failures, then blocks that double up to 15 minutes", () => {
    const { clock, limiter } = limiterAt();
    const waits: number[] = [];
    for (let i = 0; i < 16; i++) {
      limiter.failed("10.0.0.1");
      const wait = limiter.retryAfter("10.0.0.1");
      waits.push(wait);
      clock.t += wait * 1000;
    }
    expect(waits).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
  });

  test("success clears the record; an hour without failures forgets it", () => {
    const { clock, limiter } = limiterAt();
    for (let i = 0; i < 5; i++) limiter.failed("10.0.0.1");
    expect(limiter.retryAfter("10.0.0.1")).toBe(1);
    limiter.succeeded("10.0.0.1");
    expect(limiter.retryAfter("10.0.0.1")).toBe(0);
    for (let i = 0; i < 4; i++) limiter.failed("10.0.0.2");
    clock.t += 59 * 60 * 1000;
    limiter.failed("10.0.0.2");
    expect(limiter.retryAfter("10.0.0.2")).toBe(1);
    clock.t += 60 * 60 * 1000;
    limiter.failed("10.0.0.2");
    expect(limiter.retryAfter("10.0.0.2")).toBe(0);
  });

  test("at most 10,000 clients are remembered; the longest quiet is dropped first", () => {
    const { limiter } = limiterAt();
    for (let i = 0; i < 5; i++) limiter.failed("10.0.0.1");
    for (let n = 0; n < 9_999; n++) limiter.failed(`fd00::${n.toString(16)}:0:0:0:1`);
    expect(limiter.retryAfter("10.0.0.1")).toBe(1);
    limiter.failed("192.168.0.1");
    expect(limiter.retryAfter("10.0.0.1")).toBe(0);
  });

  test("an IPv6 client is its /64; an IPv4-mapped one is its IPv4 address; a guesser on loopback is one", () => {
    expect(clientKey("2001:db8:1:2::1")).toBe(clientKey("2001:db8:1:2:ffff::9"));
    expect(clientKey("2001:db8:1:2::1")).not.toBe(clientKey("2001:db8:1:3::1"));
    expect(clientKey("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(clientKey("127.0.0.2")).toBe("127.0.0.2");
    const loopback = ["127.0.0.1", "127.0.0.2", "127.255.0.9", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"];
    expect(new Set(loopback.map(guesserKey))).toEqual(new Set(["loopback"]));
    expect(guesserKey("::2")).not.toBe("loopback");
    expect(guesserKey("128.0.0.1")).toBe("128.0.0.1");
    expect(guesserKey("2001:db8:1:2::1")).toBe(clientKey("2001:db8:1:2::1"));
  });

  test("guessing from six loopback addresses is guessing from one", () => {
    const { limiter } = limiterAt();
    for (let n = 1; n <= 4; n++) limiter.failed(`127.0.0.${n}`);
    expect(limiter.retryAfter("127.0.0.1")).toBe(0);
    limiter.failed("::1");
    expect(limiter.retryAfter("127.0.0.99")).toBeGreaterThan(0);
    expect(limiter.retryAfter("::1")).toBeGreaterThan(0);
  });
});
