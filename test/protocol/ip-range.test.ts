/**
 * src/shared/ip-range.ts: which addresses the fetch tools' SSRF guard refuses, including the
 * IPv6 forms that carry an IPv4 address, and the CIDR ranges owners write in allow_hosts.
 */
import { describe, expect, test } from "bun:test";
import { formatIp, inCidr, nonPublicReason, parseCidr, parseIp } from "../../src/shared/ip-range.ts";

const reason = (a: string) => nonPublicReason(parseIp(a) as number[]);

describe("nonPublicReason", () => {
  test.each([
    ["0.0.0.0", "this-network"],
    ["10.20.30.40", "private"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["224.0.0.251", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fd12:3456::1", "private (unique local)"],
    ["fc00::1", "private (unique local)"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::192.168.0.1", "private"],
    // SIIT's IPv4-translated form, 6to4, Teredo (client inverted, and server), NAT64 local-use.
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::ffff:0:a00:1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:a9fe:a9fe::", "link-local"],
    ["2001:0:808:808:0:0:80ff:fffe", "loopback"],
    ["2001::808:808:0:0:f5ff:fffe", "private"],
    ["2001:0:7f00:1::f7f7:f7f7", "loopback"],
    ["64:ff9b:1::808:808", "NAT64 local-use"],
    ["64:ff9b:1:ffff::1", "NAT64 local-use"],
    ["2001:db8::1", "documentation"],
    ["100::1", "discard-only"],
  ])("%s is %s", (addr, why) => {
    expect(reason(addr)).toBe(why);
  });

  test.each([
    "8.8.8.8",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "::ffff:0:808:808",
    "2002:808:808::1",
    "2001:0:808:808::f7f7:f7f7",
    "2001:4860:4860::8888",
  ])("%s is public", (addr) => {
    expect(reason(addr)).toBeNull();
  });
});

describe("CIDR ranges", () => {
  test("parse and match", () => {
    const lan = parseCidr("10.0.0.0/8")!;
    expect(inCidr(parseIp("10.255.1.2")!, lan)).toBe(true);
    expect(inCidr(parseIp("11.0.0.1")!, lan)).toBe(false);
    const odd = parseCidr("192.168.4.0/22")!;
    expect(inCidr(parseIp("192.168.7.255")!, odd)).toBe(true);
    expect(inCidr(parseIp("192.168.8.0")!, odd)).toBe(false);
    const ula = parseCidr("fd00::/8")!;
    expect(inCidr(parseIp("fd12::1")!, ula)).toBe(true);
    expect(inCidr(parseIp("fe12::1")!, ula)).toBe(false);
    // Families never cross.
    expect(inCidr(parseIp("::ffff:10.0.0.1")!, lan)).toBe(false);
    expect(parseCidr("127.0.0.1")).toEqual({ bytes: [127, 0, 0, 1], prefix: 32 });
    expect(parseCidr("[::1]")?.prefix).toBe(128);
  });

  test("malformed ranges and shorthand addresses are not ranges", () => {
    for (const bad of ["10.0.0.0/33", "::/129", "wiki.lan", "127.1", "0177.0.0.1", "10.0.0.0/", "[10.0.0.1]"])
      expect(parseCidr(bad)).toBeNull();
  });

  test("formatIp writes canonical text", () => {
    expect(formatIp(parseIp("::ffff:127.0.0.1")!)).toBe("0:0:0:0:0:ffff:7f00:1");
    expect(formatIp([10, 0, 0, 1])).toBe("10.0.0.1");
  });
});
