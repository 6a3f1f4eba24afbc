/**
 * System errors (errno) as sentences a model can act on, naming the path it gave. Anything
 * else keeps its own message.
 */
const WHY: Record<string, string> = {
  ENOENT: "does not exist (files_list or files_glob can find what is there)",
  EACCES: "is not permitted to the daemon's user (permission denied)",
  EPERM: "is not permitted to the daemon's user (operation not permitted)",
  EISDIR: "is a folder, not a file",
  ENOTDIR: "has a part that is a file, not a folder",
  EEXIST: "already exists",
  ENOSPC: "cannot be written: the disk is full",
  EDQUOT: "cannot be written: the disk quota is exceeded",
  EROFS: "is on a read-only filesystem",
  ELOOP: "has a symlink loop",
  ENAMETOOLONG: "is too long a name for the filesystem",
  EMFILE: "cannot be opened now: too many open files; try again",
  EBUSY: "is busy; try again",
  EXDEV: "cannot be replaced across filesystems",
};

export function describeFsError(err: unknown, path: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why = code ? WHY[code] : undefined;
  return why ? `${path} ${why}` : `${path}: ${(err as Error)?.message ?? String(err)}`;
}
