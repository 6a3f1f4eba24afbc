/**
 * [memory.scenes]: the half-life defaults to 14 days, must be a number of days, and changes on
 * a reload without a restart (the scenes read it at each use).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { loadConfig } from "../../src/kernel/config/config.ts";
import { applyLiveChanges } from "../../src/kernel/config/reload.ts";
import { createLogger, createLogSink } from "../../src/kernel/log.ts";

describe("[memory.scenes]", () => {
  test("half_life_days: 14 unless set, a number of days, applied by a reload", () => {
    using dir = tempDir();
    const file = join(dir.path, "config.toml");
    const current = loadConfig({ file, env: {} });
    expect(current.memory.scenes.half_life_days).toBe(14);
    writeFileSync(file, "[memory.scenes]\nhalf_life_days = 3.5\n");
    const next = loadConfig({ file, env: {} });
    expect(next.memory.scenes.half_life_days).toBe(3.5);
    writeFileSync(file, '[memory.scenes]\nhalf_life_days = "a week"\n');
    expect(() => loadConfig({ file, env: {} })).toThrow("memory.scenes.half_life_days: must be a number of days");
    writeFileSync(file, "[memory.scenes]\nhalf_life_days = -1\n");
    expect(() => loadConfig({ file, env: {} })).toThrow("memory.scenes.half_life_days");

    const scenes = current.memory.scenes; // what the kernel's Scenes reads from
    const r = applyLiveChanges(current, next, {
      agent: { setApproval: () => {} },
      supervisor: { list: () => [], enable: () => {}, restart: () => {} } as never,
      log: createLogger(createLogSink("error")),
      sections: [],
      enabledBy: () => undefined,
      read: () => undefined,
    });
    expect(r.applied).toContain("memory.scenes.half_life_days");
    expect(r.restartNeeded).toEqual([]);
    expect(scenes.half_life_days).toBe(3.5);
  });
});
