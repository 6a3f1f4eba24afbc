import { describe, expect, test } from "bun:test";
import { GROWTH_MIB, QUIET_CPU_SHARE, startIdleTrim, TRIM_CHECK_MS, TrimPolicy } from "../../src/shared/idle-trim.ts";

const MiB = 1024 * 1024;
/** CPU microseconds of one check's interval at a given share of one core. */
const cpu = (share: number) => Math.round(share * TRIM_CHECK_MS * 1000);
const busy = cpu(0.9);
const idle = cpu(QUIET_CPU_SHARE / 5);

/** Feed the policy a run of checks: [cpu used since the last, RSS in MiB]; returns the trims. */
function run(policy: TrimPolicy, steps: [number, number][]): boolean[] {
  let used = 0;
  return steps.map(([c, mib]) => {
    used += c;
    return policy.check({ cpuUs: used, rssBytes: mib * MiB });
  });
}

describe("TrimPolicy", () => {
  test("a burst that grew memory is trimmed once, after two quiet checks", () => {
    const p = new TrimPolicy();
    const trims = run(p, [
      [0, 100], // ready: the reference
      [busy, 130],
      [busy, 150],
      [idle, 140], // quiet 1
      [idle, 140], // quiet 2: trim
      [idle, 112], // the trim's result is the new reference
      [idle, 112],
      [idle, 112],
    ]);
    expect(trims).toEqual([false, false, false, false, true, false, false, false]);
  });

  test("an idle process is never trimmed, nor one that grew less than the threshold", () => {
    const p = new TrimPolicy();
    const steps: [number, number][] = [[0, 100]];
    for (let i = 0; i < 20; i++) steps.push([i % 5 === 0 ? busy : idle, 100 + GROWTH_MIB - 1]);
    expect(run(p, steps).some(Boolean)).toBe(false);
  });

  test("no trim while the process keeps working, however much it holds", () => {
    const p = new TrimPolicy();
    const steps: [number, number][] = [[0, 100]];
    for (let i = 0; i < 20; i++) steps.push([i % 2 ? busy : idle, 200]); // never two quiet in a row
    expect(run(p, steps).some(Boolean)).toBe(false);
  });

  test("quiet means below the CPU share, measured per interval", () => {
    const p = new TrimPolicy();
    const justBusy = cpu(QUIET_CPU_SHARE) + 1;
    expect(
      run(p, [
        [0, 100],
        [justBusy, 200],
        [justBusy, 200],
        [justBusy, 200],
      ]).some(Boolean),
    ).toBe(false);
    expect(
      run(new TrimPolicy(), [
        [0, 100],
        [justBusy - 2, 200],
        [justBusy - 2, 200],
      ]),
    ).toEqual([false, false, true]);
  });

  test("memory given back by itself lowers the reference; a later burst is measured from there", () => {
    const p = new TrimPolicy();
    const trims = run(p, [
      [0, 120], // ready while still holding start-up garbage
      [idle, 100], // a collection gave 20 MiB back: reference 100
      [busy, 105],
      [idle, 110], // 10 MiB over 100, not over 120
      [idle, 110],
    ]);
    expect(trims).toEqual([false, false, false, false, true]);
  });

  test("after a trim, the next burst is trimmed again", () => {
    const p = new TrimPolicy();
    const trims = run(p, [
      [0, 100],
      [busy, 150],
      [idle, 150],
      [idle, 150], // trim
      [idle, 110], // new reference
      [busy, 160],
      [idle, 160],
      [idle, 160], // trim
    ]);
    expect(trims.map((t, i) => (t ? i : -1)).filter((i) => i >= 0)).toEqual([3, 7]);
  });
});

test("the engine offers the deeper trim (Bun.shrink), so a trim is more than a collection", () => {
  expect(typeof (Bun as unknown as { shrink?: unknown }).shrink).toBe("function");
});

test("startIdleTrim trims once after a burst and reports what came back at the next check", async () => {
  // Ready at 100 MiB, a burst to 150, then quiet: trimmed, and the trim leaves 110.
  const steps: [number, number][] = [
    [0, 100],
    [busy, 150],
    [idle, 150],
    [idle, 150],
    [idle, 110],
    [idle, 110],
    [idle, 110],
  ];
  let i = 0;
  let used = 0;
  let trims = 0;
  const reports: unknown[] = [];
  const stop = startIdleTrim((r) => reports.push(r), {
    intervalMs: 5,
    sample: () => {
      const [c, mib] = steps[Math.min(i++, steps.length - 1)] as [number, number];
      used += c * (5 / TRIM_CHECK_MS); // the same shares of a 5 ms interval
      return { cpuUs: used, rssBytes: mib * MiB };
    },
    shrink: () => trims++,
  });
  while (i < steps.length + 3) await Bun.sleep(5);
  stop();
  expect(trims).toBe(1);
  expect(reports).toEqual([{ rss_mb_before: 150, rss_mb_after: 110 }]);
});
