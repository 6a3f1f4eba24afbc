/**
 * The way into the web UI for the person at this machine: where the web plugin listens, the link
 * printed when it starts listening, and the links `homed open` asks for (src/kernel/login-links.ts
 * makes and redeems their one-time codes). The link goes to the daemon's stderr directly, never
 * through the logger, so no code lands in DATA/logs — unless stderr is the journal (a system
 * service), which the `adm` and `systemd-journal` groups read: then the link goes to `linkFile`
 * (DATA/login-link, 0600, its owner's), and the journal is told only where it is.
 */
import { renameSync, writeFileSync } from "node:fs";
import { HomedError } from "../protocol/errors.ts";
import { LoginLinks, loginUrl } from "./login-links.ts";

export class WebLogin {
  private readonly links = new LoginLinks();
  private at: { origin: string; loginRequired: boolean } | null = null;

  constructor(
    private readonly print: (line: string) => void = (line) => process.stderr.write(line),
    /** Where the link goes instead of `print` (the service's journal is not the owner's alone); null: printed. */
    private readonly linkFile: string | null = null,
  ) {}

  /** The web plugin listens at `origin` now: say where to open it. */
  listening(origin: string, loginRequired: boolean): void {
    this.at = { origin, loginRequired };
    if (loginRequired && this.linkFile) {
      const tmp = `${this.linkFile}.tmp`;
      writeFileSync(tmp, `${this.url()}\n`, { mode: 0o600 });
      renameSync(tmp, this.linkFile);
      this.print(
        `homed's web UI listens at ${origin}; a one-time login link is in ${this.linkFile} (its owner's only; \`homed open\` makes another)\n`,
      );
      return;
    }
    this.print(
      loginRequired
        ? `\nopen ${this.url()} to log in to homed's web UI (the link works once; \`homed open\` makes another)\n\n`
        : `\nhomed's web UI: ${this.url()} (no login on this machine: [web] auth = "none")\n\n`,
    );
  }

  /** A link to the web UI: with a new one-time code when a login is needed. */
  url(): string {
    if (!this.at) throw new HomedError("unavailable", "the web UI is not listening (yet): see `homed status`");
    return loginUrl(this.at.origin, this.at.loginRequired ? this.links.mint() : null);
  }

  get loginRequired(): boolean {
    return this.at?.loginRequired ?? true;
  }

  redeem(code: string): boolean {
    return this.links.redeem(code);
  }
}
