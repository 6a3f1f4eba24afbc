/** What counts as this machine: the listen address and Host header decisions rest on these. */
import { describe, expect, test } from "bun:test";
import { parseIPv6 } from "../../src/shared/ip-address.ts";
import { isLoopback } from "../../src/shared/listen.ts";

describe("isLoopback", () => {
  test("loopback IP literals and exactly localhost", () => {
    for (const h of [
      "127.0.0.1",
      "127.1.2.3",
      "127.255.255.255",
      "::1",
      "[::1]",
      "0:0:0:0:0:0:0:1",
      "[::ffff:127.0.0.1]",
      "localhost",
      "LocalHost",
    ])
      expect([h, isLoopback(h)]).toEqual([h, true]);
  });
  test("names that merely look like one, other addresses and malformed literals", () => {
    const no = [
      "127.evil.com",
      "127.0.0.1.nip.io",
      "127.",
      "127.1",
      "127.0.0.01",
      "0177.0.0.1",
      "127.0.0.256",
      "localhost.",
      "localhost.evil.com",
      "evillocalhost",
      "",
      "0.0.0.0",
      "::",
      "::2",
      "[::1",
      "::1]",
      "1::1::1",
      "::ffff:10.0.0.1",
      "10.0.0.1",
      "192.168.1.1",
      "fe80::1%lo",
    ];
    for (const h of no) expect([h, isLoopback(h)]).toEqual([h, false]);
  });
});

describe("parseIPv6", () => {
  test("expands :: and a trailing dotted quad; refuses malformed text", () => {
    expect(parseIPv6("2001:db8::1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const bad of ["1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2:3:4:5:6:7:8", "12345::", "1.2.3.4::", "g::1"])
      expect([bad, parseIPv6(bad)]).toEqual([bad, null]);
  });
});
