/**
 * The release figures of the last `make dist` (issue 17), read from dist/release-sizes.json
 * rather than measured: building the packages takes minutes and is `make dist`'s job. Says so
 * on stderr when there is no such run yet.
 */
import { existsSync, readFileSync } from "node:fs";
import { SIZES } from "../scripts/dist/common.ts";
import { report } from "./report.ts";

const FIGURES: Record<string, string> = {
  seconds: "s",
  "dist.deb_amd64_mb": "MB",
  "dist.deb_arm64_mb": "MB",
  "dist.rpm_mb": "MB",
  "dist.tar_amd64_mb": "MB",
  "dist.tar_arm64_mb": "MB",
  "dist.deb_full_amd64_mb": "MB",
  "dist.deb_full_arm64_mb": "MB",
  "dist.deb_client_amd64_mb": "MB",
  "dist.deb_client_arm64_mb": "MB",
  "dist.rpm_full_mb": "MB",
  "dist.waiter_windows_amd64_mb": "MB",
  "dist.waiter_darwin_arm64_mb": "MB",
  "dist.waiter_darwin_amd64_mb": "MB",
  "dist.setup_full_mb": "MB",
  "dist.setup_server_mb": "MB",
  "dist.setup_client_mb": "MB",
};

export function benchDist(): void {
  if (!existsSync(SIZES)) {
    console.error("bench: no dist figures (run make dist first)");
    return;
  }
  const last = JSON.parse(readFileSync(SIZES, "utf8")) as Record<string, number>;
  for (const [key, unit] of Object.entries(FIGURES)) {
    const value = last[key];
    if (typeof value === "number") report(key === "seconds" ? "dist.seconds" : key, value, unit);
  }
}
