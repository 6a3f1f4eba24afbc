/**
 * The Windows installers HomedSetup-<v>-{full,server,client}.exe, built with makensis (Debian's
 * nsis; zlib, as the payload is large) from packaging/nsis/homed.nsi: the AGPL licence page,
 * waiter.exe (the cross-compiled waiter), the licences, and for full and client the desktop
 * app's Start-menu entry (`waiter.exe desktop`). full and server embed the server .deb and
 * install it inside WSL2, bootstrapping WSL2 when missing; the desktop app of full runs on the
 * Windows side, so WSL gets the server package for both. Built here, never run (no Windows).
 */
import { join } from "node:path";
import { ARCHES, CROSS_WAITERS, DistError, needBinary, ROOT, run, VERSION } from "./common.ts";
import { debFor, debName } from "./deb.ts";
import { staged } from "./stage.ts";
import { packageName, type Variant } from "./variants.ts";

export function installerName(v: Variant): string {
  return `HomedSetup-${VERSION}-${v}.exe`;
}

/** Build variant `v`'s installer into `outDir`; returns its path. */
export function buildInstaller(v: Variant, work: string, outDir: string): string {
  if (!Bun.which("makensis")) throw new DistError("makensis is missing: apt-get install nsis (make dist does)");
  const s = staged(ARCHES.amd64, work);
  const out = join(outDir, installerName(v));
  const defines: Record<string, string> = {
    VERSION,
    VARIANT: v,
    WAITER: needBinary(CROSS_WAITERS["windows-amd64"]),
    LICENSE: s.license,
    README: s.readme,
    LICENSES: s.licenses,
    OUTFILE: out,
  };
  if (v !== "client") {
    defines.DEB = debFor("server", ARCHES.amd64, work);
    defines.DEBNAME = debName("server", ARCHES.amd64);
    defines.DEBPACKAGE = packageName("server");
  }
  const args = Object.entries(defines).map(([k, val]) => `-D${k}=${val}`);
  run(["makensis", "-V2", "-NOCD", ...args, join(ROOT, "packaging/nsis/homed.nsi")]);
  return out;
}
