/** Who made a request: `token:<id>` or a JWT `sub`. */
export interface Principal {
  /** null under `--auth none` (no identity). */
  actor: string | null;
  perms: readonly string[];
  /**
   * Process-name patterns the credential reaches (docs/auth.md "Scopes"); null = every
   * process, the meaning of a credential without scopes. Decided by auth/scope.ts only.
   */
  scopes: readonly string[] | null;
}
