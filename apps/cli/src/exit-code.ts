/** The documented exit codes (docs/cli.md); CI scripts branch on them, so they never change meaning. */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  unreachable: 5,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
