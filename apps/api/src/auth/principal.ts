/** Who made a request: `token:<id>` or a JWT `sub`. */
export interface Principal {
  /** null under `--auth none` (no identity). */
  actor: string | null;
  perms: readonly string[];
}
