/**
 * The part of a bubblewrap sandbox every confined program of homed shares: the system
 * read-only (/usr, /bin, /lib*, /etc less its secrets), a fresh /proc, /dev and /tmp, every
 * namespace unshared (the network too, unless asked), no capabilities, a session of its own,
 * and death with its parent. What each confinement adds — the shell's workspace, an external
 * plugin's folder and state — comes after these arguments.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";

/** PATH inside a sandbox: only system folders are there. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Top-level system folders bound read-only (or re-created as the symlinks they are). */
const SYSTEM_DIRS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** Secrets under /etc, hidden behind an unreadable node or an empty folder. */
const HIDDEN_ETC_FILES = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"];
const HIDDEN_ETC_DIRS = [
  "/etc/ssh",
  "/etc/ssl/private",
  "/etc/sudoers.d",
  "/etc/wireguard",
  "/etc/letsencrypt",
  "/etc/NetworkManager/system-connections",
  "/etc/credstore",
  "/etc/credstore.encrypted",
];

/** bwrap's arguments for the shared part, before the caller's binds and `--`. */
export function systemSandboxArgs(opts: { network: boolean }): string[] {
  const a = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  if (opts.network) a.push("--share-net");
  a.push("--ro-bind", "/usr", "/usr");
  for (const dir of SYSTEM_DIRS) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) a.push("--symlink", readlinkSync(dir), dir);
    else if (st?.isDirectory()) a.push("--ro-bind", dir, dir);
  }
  a.push("--ro-bind", "/etc", "/etc");
  for (const f of HIDDEN_ETC_FILES) if (existsSync(f)) a.push("--ro-bind", "/dev/null", f);
  for (const d of HIDDEN_ETC_DIRS) if (existsSync(d)) a.push("--tmpfs", d);
  if (opts.network) {
    // A resolv.conf that points into /run (systemd-resolved) needs its target to resolve names.
    const resolv = lstatSync("/etc/resolv.conf", { throwIfNoEntry: false });
    if (resolv?.isSymbolicLink()) {
      const target = realpathSync("/etc/resolv.conf");
      if (!target.startsWith("/etc/") && !target.startsWith("/usr/")) a.push("--ro-bind-try", target, target);
    }
  }
  a.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  return a;
}

/** Why bwrap's own first line of complaint means the machine, in words an owner can act on. */
export function bwrapCannotRun(detail: string): string {
  return `bubblewrap cannot build its sandbox here (${detail}); let it create user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile allowing bwrap)`;
}
