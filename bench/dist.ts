/**
 * The release figures of the last `make dist` (issue 17), read from dist/release-sizes.json
 * rather than measured: building the packages takes minutes and is `make dist`'s job; and those
 * of the last `make dist-check` (issue 32: a headless install's size, lintian errors), from
 * dist/dist-check.json. Says so on stderr when there is no such run yet.
 */
import { existsSync, readFileSync } from "node:fs";
import { CHECKED, SIZES } from "../scripts/dist/common.ts";
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
  "dist.rpm_aarch64_mb": "MB",
  "dist.rpm_full_aarch64_mb": "MB",
  "dist.waiter_windows_amd64_mb": "MB",
  "dist.waiter_darwin_arm64_mb": "MB",
  "dist.waiter_darwin_amd64_mb": "MB",
  "dist.setup_full_mb": "MB",
  "dist.setup_server_mb": "MB",
  "dist.setup_client_mb": "MB",
};

const CHECK_FIGURES: Record<string, string> = {
  "dist.install_mb_server": "MB",
  "dist.lintian_errors": "errors",
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
  if (!existsSync(CHECKED)) {
    console.error("bench: no dist-check figures (run make dist-check after make dist)");
    return;
  }
  const checked = JSON.parse(readFileSync(CHECKED, "utf8")) as Record<string, number>;
  for (const [key, unit] of Object.entries(CHECK_FIGURES)) {
    const value = checked[key];
    if (typeof value === "number") report(key, value, unit);
  }
}
