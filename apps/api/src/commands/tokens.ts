import { type Command, InvalidArgumentError } from "commander";
import type { TokenView } from "../auth/token-store.js";
import { createClock } from "../clock.js";
import type { Database } from "../storage/db.js";
import { addDatabaseOptions, databaseOptionsOf } from "./database-options.js";

// What a subcommand runs is imported when it runs: `baton-api --help` registers these commands
// and must not load the database drivers (test/server/process/lean-start.test.ts).
const tokenStore = () => import("../auth/token-store.js");

// A fresh process has no /tick offset, so this is the wall clock the server also starts from.
const clock = createClock();

/** The actor recorded on tokens created or revoked from the command line, straight in the database. */
export const BOOTSTRAP_ACTOR = "bootstrap";

const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function duration(value: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(value.trim());
  const ms = m ? Number(m[1]) * DURATION_MS[m[2]!]! : 0;
  if (!m || !Number.isSafeInteger(ms) || ms <= 0)
    throw new InvalidArgumentError("expected a positive duration such as 90d, 12h, 30m or 45s");
  return ms;
}

// `none` is an empty list, not null: commander keeps no option value that a parser returns as null.
function permsList(value: string): string[] {
  if (value.trim() === "none") return [];
  const names = value.split(",").map((p) => p.trim());
  if (names.some((p) => p === ""))
    throw new InvalidArgumentError("expected comma-separated permission names such as admin or deploy,read (or none)");
  return names;
}

/**
 * `tokens create|list|revoke`: works on the database directly (no server, no credential), so
 * a fresh deployment can mint its first admin token. `create` prints the secret and nothing
 * else on stdout; diagnostics go to stderr; failures exit 1.
 */
export function registerTokensCommand(program: Command): Command {
  const tokens = program
    .command("tokens")
    .description(
      "manage API tokens directly in the database (mint the first admin token of a fresh deployment); with PGlite (--data-dir) stop the server first: a data dir takes one process at a time",
    );

  addDatabaseOptions(
    tokens
      .command("create")
      .description("create a token and print its secret (only the secret) on stdout")
      .requiredOption("--label <label>", "what the token is for")
      .requiredOption(
        "--perms <names>",
        "comma-separated permissions: worker, read, operate, deploy, admin (or none)",
        permsList,
      )
      .option(
        "--scopes <patterns>",
        "comma-separated process-name patterns the token reaches, e.g. orders-*,billing (default: every process)",
        (value: string) =>
          value
            .split(",")
            .map((p) => p.trim())
            .filter(Boolean),
      )
      .option("--expires-in <duration>", "lifetime such as 90d, 12h or 30m (default: never expires)", duration)
      .option("--expires-at <time>", "expiry instant, ISO 8601 (e.g. 2030-01-31T00:00:00Z)"),
  ).action(
    (
      opts: { label: string; perms: string[]; scopes?: string[]; expiresIn?: number; expiresAt?: string },
      command: Command,
    ) =>
      withDatabase(command, async (database) => {
        const [{ checkTokenRequest }, { issueToken }] = await Promise.all([
          import("../auth/token-request.js"),
          tokenStore(),
        ]);
        const now = clock.now();
        const body: Record<string, unknown> = { label: opts.label, perms: opts.perms };
        if (opts.scopes !== undefined) body.scopes = opts.scopes;
        if (opts.expiresIn !== undefined) body.expires_in = opts.expiresIn;
        if (opts.expiresAt !== undefined) body.expires_at = opts.expiresAt;
        const check = checkTokenRequest(body, now);
        if (!check.ok) {
          const flag = (path: string) => `--${path.replace(/\[\d+\]$/, "").replace(/_/g, "-")}`;
          throw new Error(check.problems.map((p) => `${flag(p.path)}: ${p.message}`).join("; "));
        }
        const issued = await issueToken(database.db, check.value, { now, actor: BOOTSTRAP_ACTOR });
        process.stderr.write(`created token ${issued.id} (${issued.label}); the secret below is shown only once\n`);
        process.stdout.write(`${issued.token}\n`);
      }),
  );

  addDatabaseOptions(
    tokens
      .command("list")
      .description("list tokens (never their secrets)")
      .option("--json", "print {items: [...]} as GET /tokens does"),
  ).action((opts: { json?: boolean }, command: Command) =>
    withDatabase(command, async (database) => {
      const { listTokenRows, tokenView } = await tokenStore();
      const items = (await listTokenRows(database.db)).map(tokenView);
      process.stdout.write(opts.json ? `${JSON.stringify({ items }, null, 2)}\n` : tokenTable(items, clock.now()));
    }),
  );

  addDatabaseOptions(
    tokens
      .command("revoke")
      .description("revoke a token: it is refused from the next request that presents it")
      .argument("<id>", "token id (see tokens list)"),
  ).action((id: string, _opts: unknown, command: Command) =>
    withDatabase(command, async (database) => {
      const { revokeToken } = await tokenStore();
      const outcome = await revokeToken(database.db, id, { now: clock.now(), actor: BOOTSTRAP_ACTOR });
      if (outcome === "unknown") throw new Error(`no token with id "${id}"; tokens list shows the ids`);
      process.stdout.write(outcome === "revoked" ? `revoked ${id}\n` : `${id} was already revoked\n`);
    }),
  );

  return tokens;
}

async function withDatabase(command: Command, run: (database: Database) => Promise<void>): Promise<void> {
  const name = `baton-api tokens ${command.name()}`;
  let database: Database | undefined;
  try {
    const { openDatabase } = await import("../storage/db.js");
    database = await openDatabase(databaseOptionsOf(command));
    await run(database);
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await database?.close().catch(() => {});
  }
}

function tokenTable(items: TokenView[], now: number): string {
  if (items.length === 0) return "no tokens\n";
  const status = (t: TokenView) =>
    t.revoked_at
      ? `revoked ${t.revoked_at}`
      : t.expires_at && Date.parse(t.expires_at) <= now
        ? `expired ${t.expires_at}`
        : "active";
  const rows = [
    ["ID", "LABEL", "PERMS", "SCOPES", "CREATED", "LAST USED", "EXPIRES", "STATUS"],
    ...items.map((t) => [
      t.id,
      t.label,
      t.perms === null ? "none" : t.perms.join(",") || "none",
      t.scopes === null ? "*" : t.scopes.join(",") || "none",
      t.created_at,
      t.last_used_at ?? "never",
      t.expires_at ?? "never",
      status(t),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n") +
    "\n"
  );
}
