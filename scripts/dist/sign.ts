/**
 * The key `make dist` signs the release with (SHA256SUMS, the APT repository's Release, the dnf
 * repository's repomd.xml and the .rpm packages), in a GnuPG home of its own under /tmp so the
 * builder's keyrings are never touched:
 *
 *   HOMED_SIGNING_KEY=FILE        an armored secret key (gpg --export-secret-keys --armor), imported
 *   HOMED_SIGNING_GNUPGHOME=DIR   a GnuPG home holding the key (HOMED_SIGNING_KEY_ID picks one;
 *                                 else its first secret key); used as it is, not copied
 *   HOMED_SIGNING_PASSPHRASE_FILE the key's passphrase, when it has one
 *
 * With none of them it makes a throwaway key for this run (RSA 3072, no passphrase, valid one
 * year) and says so on stderr: such a release verifies against the key shipped beside it, which
 * proves only that the files belong together, not who built them. Nothing secret is written
 * into the release folder; only the public key (homed-release-key.asc) is.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DistError, run } from "./common.ts";

export interface Signer {
  /** The GnuPG home gpg runs with. */
  home: string;
  /** The signing key's fingerprint. */
  fingerprint: string;
  /** True when this run made the key itself. */
  throwaway: boolean;
  /** The public key, armored. */
  publicKey(): string;
  /** FILE.asc (or `out`): an armored detached signature of `file`. */
  detach(file: string, out?: string): string;
  /** `out`: `file` clear-signed (an APT InRelease). */
  clearsign(file: string, out: string): string;
  /** Sign .rpm packages in place (rpmsign: a header signature dnf and rpm -K check). */
  signRpms(files: string[]): void;
  /** Stop the gpg-agent this run started and remove a home this run made. */
  dispose(): void;
}

export const PUBLIC_KEY_NAME = "homed-release-key.asc";

function gpg(home: string, args: string[]): string {
  const pass = process.env.HOMED_SIGNING_PASSPHRASE_FILE;
  const argv = [
    "gpg",
    "--homedir",
    home,
    "--batch",
    "--yes",
    "--no-tty",
    ...(pass ? ["--pinentry-mode", "loopback", "--passphrase-file", pass] : []),
    ...args,
  ];
  return run(argv);
}

/** The fingerprint of the first (or the named) secret key in `home`. */
function secretKey(home: string, id?: string): string {
  const listing = gpg(home, ["--with-colons", "--list-secret-keys", ...(id ? [id] : [])]);
  const fpr = /^fpr:(?::*)([0-9A-F]{40,64}):/m.exec(listing)?.[1];
  if (!fpr) throw new DistError(`no secret key${id ? ` ${id}` : ""} in ${home}`);
  return fpr;
}

/** Import the key in `given` into `home`, or make a throwaway one there; its fingerprint. */
function ownKey(home: string, given: string | undefined): string {
  if (given) {
    if (!existsSync(given)) throw new DistError(`HOMED_SIGNING_KEY ${given} does not exist`);
    gpg(home, ["--import", given]);
    return secretKey(home);
  }
  gpg(home, [
    "--passphrase",
    "",
    "--quick-gen-key",
    "homed release (throwaway key made by make dist) <release@homed.invalid>",
    "rsa3072",
    "sign",
    "1y",
  ]);
  const fingerprint = secretKey(home);
  process.stderr.write(
    `dist: no HOMED_SIGNING_KEY or HOMED_SIGNING_GNUPGHOME: signed with a throwaway key made for this run (${fingerprint}); ` +
      `its public half is ${PUBLIC_KEY_NAME}, which proves the files belong together, not who built them\n`,
  );
  return fingerprint;
}

export function makeSigner(): Signer {
  if (!Bun.which("gpg")) throw new DistError("gpg is missing: apt-get install gnupg");
  const given = process.env.HOMED_SIGNING_KEY;
  const givenHome = process.env.HOMED_SIGNING_GNUPGHOME;
  let home: string;
  let own = true;
  let throwaway = false;
  let fingerprint: string;
  if (givenHome) {
    if (!existsSync(givenHome)) throw new DistError(`HOMED_SIGNING_GNUPGHOME ${givenHome} does not exist`);
    home = givenHome;
    own = false;
    fingerprint = secretKey(home, process.env.HOMED_SIGNING_KEY_ID || undefined);
  } else {
    // Short, under /tmp: gpg-agent's socket path must fit in 108 bytes.
    home = mkdtempSync(join(tmpdir(), "homed-gpg-"));
    try {
      fingerprint = ownKey(home, given);
    } catch (e) {
      Bun.spawnSync(["gpgconf", "--homedir", home, "--kill", "gpg-agent"], { stdout: "ignore", stderr: "ignore" });
      rmSync(home, { recursive: true, force: true });
      throw e;
    }
    throwaway = !given;
  }
  const signer: Signer = {
    home,
    fingerprint,
    throwaway,
    publicKey: () => gpg(home, ["--armor", "--export", fingerprint]),
    detach(file, out = `${file}.asc`) {
      gpg(home, ["--local-user", fingerprint, "--armor", "--detach-sign", "--output", out, file]);
      return out;
    },
    clearsign(file, out) {
      gpg(home, ["--local-user", fingerprint, "--clearsign", "--output", out, file]);
      return out;
    },
    signRpms(files) {
      if (files.length === 0) return;
      if (!Bun.which("rpmsign")) throw new DistError("rpmsign is missing: apt-get install rpm");
      const pass = process.env.HOMED_SIGNING_PASSPHRASE_FILE;
      run([
        "rpmsign",
        "--addsign",
        "--define",
        `_gpg_name ${fingerprint}`,
        "--define",
        `_gpg_path ${home}`,
        // Debian's rpm names gpg2, which bookworm no longer ships under that name.
        "--define",
        `__gpg ${Bun.which("gpg")}`,
        ...(pass ? ["--define", `_gpg_sign_cmd_extra_args --pinentry-mode loopback --passphrase-file ${pass}`] : []),
        ...files,
      ]);
    },
    dispose() {
      Bun.spawnSync(["gpgconf", "--homedir", home, "--kill", "gpg-agent"], { stdout: "ignore", stderr: "ignore" });
      if (own) rmSync(home, { recursive: true, force: true });
    },
  };
  return signer;
}

/** Write the public key beside the release; returns its path. */
export function writePublicKey(signer: Signer, outDir: string): string {
  const path = join(outDir, PUBLIC_KEY_NAME);
  writeFileSync(path, signer.publicKey());
  if (!readFileSync(path, "utf8").startsWith("-----BEGIN PGP PUBLIC KEY BLOCK-----"))
    throw new DistError("gpg exported no public key");
  return path;
}
