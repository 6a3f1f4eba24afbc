/** Install test plugins as external plugins (DATA/plugins/<name>/plugin.json + exec). */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT } from "./binary.ts";

export const FIXTURES = join(ROOT, "test/fixtures/plugins");

export interface TestManifest {
  transport?: "shm" | "stdio";
  provides?: string[];
  requires?: string[];
  critical?: boolean;
  lazy?: boolean;
  tools?: { name: string; description: string; parameters: Record<string, unknown>; risk: string; approval?: string }[];
}

/**
 * A plugin folder whose executable is `bun FIXTURE args…`. Returns the folder. The fixtures
 * register tools and stages, so unless the test says otherwise the manifest requires
 * kernel.agent, as a real plugin's must (the kernel refuses an undeclared facility's methods).
 */
export function installBunPlugin(
  dataDir: string,
  name: string,
  fixture: string,
  manifest: TestManifest = {},
  args: string[] = [],
): string {
  return installPlugin(dataDir, name, {
    requires: ["kernel.agent"],
    ...manifest,
    exec: BUN,
    args: [join(FIXTURES, fixture), ...args],
  });
}

export function installPlugin(
  dataDir: string,
  name: string,
  manifest: TestManifest & { exec: string; args?: string[] },
): string {
  const dir = join(dataDir, "plugins", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name, ...manifest }, null, 2));
  return dir;
}
