/**
 * The signed release and its repositories (issue 32), built by scripts/dist.ts -sign from the
 * binaries make test built (no compile; ~20 s): SHA256SUMS.asc, the APT repository's InRelease
 * and Release.gpg, the dnf repository's repomd.xml.asc and the rpm's own signature verify
 * against the public key shipped beside them (gpgv, rpm -K) and fail on a changed byte or
 * without the key; Release lists the Packages files by their real hashes and Packages points at
 * the pool; repomd.xml names primary.xml.gz by its checksum. Without a key in the environment
 * the run makes a throwaway one and says so on stderr; with HOMED_SIGNING_KEY it signs with that
 * key and says nothing of the kind. Needs gpg/gpgv, apt-ftparchive, createrepo_c and rpmsign
 * (make test installs gnupg, apt-utils, createrepo-c and rpm).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, run } from "../harness/binary.ts";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const DEB = `homed-client_${VERSION}_amd64.deb`;
const RPM = `homed-server-${VERSION}-1.homed.x86_64.rpm`;

let dir = "";
let stderr = "";
let keyring = "";

async function sign(out: string, env: Record<string, string>, ...names: string[]) {
  const r = await run([BUN, join(ROOT, "scripts/dist.ts"), "-out", out, "-sign", ...names], { env });
  if (r.exitCode !== 0) throw new Error(`scripts/dist.ts -sign ${names.join(" ")} failed:\n${r.stderr}`);
  return r;
}

/** The armored public key as a keyring file gpgv reads. */
async function dearmor(asc: string, out: string): Promise<string> {
  const r = await run(["gpg", "--batch", "--yes", "--dearmor", "--output", out, asc]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return out;
}

beforeAll(async () => {
  for (const tool of ["gpg", "gpgv", "apt-ftparchive", "createrepo_c", "rpmsign"])
    if (!Bun.which(tool)) throw new Error(`${tool} is missing: make test installs it (scripts/ensure-test-tools.sh)`);
  dir = mkdtempSync(join(tmpdir(), "homed-signed-"));
  const r = await sign(dir, {}, "deb-client-amd64", "rpm-server-x86_64");
  stderr = r.stderr;
  keyring = await dearmor(join(dir, "homed-release-key.asc"), join(dir, "..", `${dir.split("/").pop()}.gpg`));
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (keyring) rmSync(keyring, { force: true });
});

const gpgv = (...args: string[]) => run(["gpgv", "--keyring", keyring, ...args]);
const sha256 = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

test("without a key in the environment: a throwaway key, said on stderr; the public key beside SHA256SUMS", () => {
  expect(stderr).toMatch(/^dist: no HOMED_SIGNING_KEY or HOMED_SIGNING_GNUPGHOME: signed with a throwaway key/m);
  expect(readFileSync(join(dir, "homed-release-key.asc"), "utf8")).toStartWith("-----BEGIN PGP PUBLIC KEY BLOCK-----");
  expect(readFileSync(join(dir, "homed-release-key.asc"), "utf8")).not.toContain("PRIVATE KEY");
  expect(readdirSync(dir).sort()).toEqual(
    ["SHA256SUMS", "SHA256SUMS.asc", "apt", DEB, "homed-release-key.asc", RPM, "rpm"].sort(),
  );
});

test("SHA256SUMS.asc verifies with gpgv, and not once SHA256SUMS changes", async () => {
  const ok = await gpgv(join(dir, "SHA256SUMS.asc"), join(dir, "SHA256SUMS"));
  expect(ok.stderr).toContain("Good signature");
  expect(ok.exitCode).toBe(0);
  const changed = join(dir, "..", `${dir.split("/").pop()}-SUMS`);
  writeFileSync(
    changed,
    readFileSync(join(dir, "SHA256SUMS"), "utf8").replace(/^./, (c) => (c === "0" ? "1" : "0")),
  );
  try {
    const bad = await gpgv(join(dir, "SHA256SUMS.asc"), changed);
    expect(bad.stderr).toContain("BAD signature");
    expect(bad.exitCode).not.toBe(0);
  } finally {
    rmSync(changed, { force: true });
  }
  expect(readFileSync(join(dir, "SHA256SUMS"), "utf8")).toContain(`${sha256(join(dir, RPM))}  ${RPM}\n`);
});

test("the APT repository: InRelease and Release.gpg verify; Release hashes the Packages files; Packages points into the pool", async () => {
  const dist = join(dir, "apt/dists/stable");
  expect((await gpgv(join(dist, "InRelease"))).exitCode).toBe(0);
  expect((await gpgv(join(dist, "Release.gpg"), join(dist, "Release"))).exitCode).toBe(0);
  const release = readFileSync(join(dist, "Release"), "utf8");
  expect(release).toMatch(/^Suite: stable$/m);
  expect(release).toMatch(/^Architectures: amd64 arm64$/m);
  expect(release).toMatch(/^Components: main$/m);
  for (const f of ["main/binary-amd64/Packages", "main/binary-amd64/Packages.gz", "main/binary-arm64/Packages"]) {
    expect(release).toContain(` ${sha256(join(dist, f))} `);
  }
  const packages = readFileSync(join(dist, "main/binary-amd64/Packages"), "utf8");
  expect(packages).toMatch(/^Package: homed-client$/m);
  expect(packages).toContain(`Filename: pool/main/h/homed/${DEB}\n`);
  expect(packages).toContain(`SHA256: ${sha256(join(dir, DEB))}\n`);
  expect(readFileSync(join(dist, "main/binary-arm64/Packages"), "utf8")).toBe("");
  expect(Bun.gunzipSync(readFileSync(join(dist, "main/binary-amd64/Packages.gz")))).toEqual(
    new Uint8Array(Buffer.from(packages)),
  );
});

test("the dnf repository: repomd.xml.asc verifies, primary lists the rpm; the rpm's own signature checks with the key imported, not without", async () => {
  const repodata = join(dir, "rpm/repodata");
  expect((await gpgv(join(repodata, "repomd.xml.asc"), join(repodata, "repomd.xml"))).exitCode).toBe(0);
  const repomd = readFileSync(join(repodata, "repomd.xml"), "utf8");
  const primary = readdirSync(repodata).find((f) => f.endsWith("-primary.xml.gz")) as string;
  expect(repomd).toContain(`<location href="repodata/${primary}"/>`);
  expect(repomd).toContain(`<checksum type="sha256">${sha256(join(repodata, primary))}</checksum>`);
  const xml = new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(repodata, primary))));
  expect(xml).toContain("<name>homed-server</name>");
  expect(xml).toContain(`<location href="${RPM}"/>`);
  const db = mkdtempSync(join(tmpdir(), "homed-rpmdb-"));
  try {
    const unsigned = await run(["rpm", "--dbpath", db, "-K", join(dir, RPM)]);
    expect(unsigned.stdout).toContain("SIGNATURES NOT OK");
    expect((await run(["rpm", "--dbpath", db, "--import", join(dir, "homed-release-key.asc")])).exitCode).toBe(0);
    const signed = await run(["rpm", "--dbpath", db, "-K", join(dir, RPM)]);
    expect(signed.stdout).toBe(`${join(dir, RPM)}: digests signatures OK\n`);
  } finally {
    rmSync(db, { recursive: true, force: true });
  }
});

test("HOMED_SIGNING_KEY: the release is signed with the key given, and no throwaway key is made", async () => {
  const home = mkdtempSync(join(tmpdir(), "homed-gpg-test-"));
  const out = mkdtempSync(join(tmpdir(), "homed-signed-given-"));
  try {
    const g = (...a: string[]) => run(["gpg", "--homedir", home, "--batch", "--yes", ...a]);
    expect(
      (await g("--passphrase", "", "--quick-gen-key", "test <t@homed.invalid>", "rsa2048", "sign", "1d")).exitCode,
    ).toBe(0);
    const fpr = /^fpr:+([0-9A-F]{40}):/m.exec((await g("--with-colons", "--list-secret-keys")).stdout)?.[1] as string;
    expect(fpr).toMatch(/^[0-9A-F]{40}$/);
    const secret = join(home, "secret.asc");
    expect((await g("--armor", "--export-secret-keys", "--output", secret, fpr)).exitCode).toBe(0);
    const r = await sign(out, { HOMED_SIGNING_KEY: secret }, "deb-client-amd64");
    expect(r.stderr).not.toContain("throwaway");
    expect(r.stdout).toContain(`dist: signed with ${fpr};`);
    const v = await run([
      "gpgv",
      "--keyring",
      await dearmor(join(out, "homed-release-key.asc"), join(home, "given.gpg")),
      join(out, "apt/dists/stable/InRelease"),
    ]);
    expect(v.stderr).toContain(fpr.slice(-16));
    expect(v.exitCode).toBe(0);
    // The keyring of the first run (the throwaway key) does not verify this release.
    expect((await gpgv(join(out, "SHA256SUMS.asc"), join(out, "SHA256SUMS"))).exitCode).not.toBe(0);
  } finally {
    await run(["gpgconf", "--homedir", home, "--kill", "gpg-agent"]);
    rmSync(home, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
