/** What the CLI reads from its process: injected so tests can run it in-process. */
export interface Environment {
  env: Record<string, string | undefined>;
  cwd: string;
  homedir: string;
}
