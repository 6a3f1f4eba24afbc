/**
 * One-time login links for the web UI. On a loopback address homed asks for a login too (another
 * account on the same machine can reach 127.0.0.1), so the person needs a way in that does not
 * make them copy a token: the daemon prints a link at start, and `homed open` asks for a fresh
 * one over the control socket (0600, the owner's). A link's code is 128 random bits, works once,
 * and expires after LINK_TTL_MS; the web plugin redeems it (login/redeem) for a session
 * cookie. Only a hash of each code is kept, so a memory dump reveals none.
 */
/** A printed link still works after a long coffee, but not forever. */
export const LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** Codes not yet used that are kept; minting more forgets the oldest. */
const MAX_LINKS = 32;

const digest = (code: string) => new Bun.CryptoHasher("sha256").update(code).digest("hex");

export class LoginLinks {
  /** sha256(code) → when it expires, oldest first. */
  private readonly codes = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new code, valid once until LINK_TTL_MS from now. */
  mint(): string {
    const code = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
    this.codes.set(digest(code), this.now() + LINK_TTL_MS);
    while (this.codes.size > MAX_LINKS) this.codes.delete(this.codes.keys().next().value as string);
    return code;
  }

  /** Whether `code` is a live one; it is used up either way (a second try with it fails). */
  redeem(code: string): boolean {
    const key = digest(code);
    const until = this.codes.get(key);
    this.codes.delete(key);
    return until !== undefined && until > this.now();
  }
}

/** The link a person opens: with a one-time code where a login is needed, the bare page where not. */
export function loginUrl(origin: string, code: string | null): string {
  return code === null ? `${origin}/` : `${origin}/login?code=${code}`;
}
