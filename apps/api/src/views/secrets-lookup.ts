import { count } from "drizzle-orm";
import type { Db } from "../storage/db.js";
import { definitions } from "../storage/schema/index.js";
import { definitionsDeclaringSecrets } from "../definitions/store.js";
import { secretValues, withDeclaredSecrets } from "../engine/secrets.js";

// Secrets for the API views (docs/security.md "The secret model"): a secret is a property of
// the value, so every view, log and error is redacted with every secret value this server
// holds — of every registered definition, every version — whichever process reads it. A
// process that reads another's secret under a name of its own (a colliding variable, a shared
// global) therefore still shows `***`.

interface Held {
  /** The definition count these values were computed at; any other count reads them again. */
  seen: number;
  env: NodeJS.ProcessEnv;
  values: Promise<string[]>;
}

const heldOf = new WeakMap<Db, Held>();

/**
 * Every secret value of every stored definition as read from `env`, and every value the
 * operator declared secret (declareSecretValues), longest first. Cached per
 * database until a definition is registered: definitions are never deleted, so an unchanged
 * count means no definition is missing. `definitionsSeen`, when the caller read it in the same
 * snapshot as its rows (instance-read.ts), saves the count query. A failed lookup is not kept.
 */
export async function serverSecrets(db: Db, env: NodeJS.ProcessEnv, definitionsSeen?: number): Promise<string[]> {
  const seen = definitionsSeen ?? (await definitionCount(db));
  const held = heldOf.get(db);
  if (held !== undefined && held.seen === seen && held.env === env) return held.values;
  const values = readSecrets(db, env);
  heldOf.set(db, { seen, env, values });
  values.catch(() => {
    if (heldOf.get(db)?.values === values) heldOf.delete(db);
  });
  return values;
}

async function definitionCount(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(definitions);
  return Number(row?.n ?? 0);
}

async function readSecrets(db: Db, env: NodeJS.ProcessEnv): Promise<string[]> {
  const values = (await definitionsDeclaringSecrets(db)).flatMap((definition) => secretValues(definition, env));
  return withDeclaredSecrets(
    [...new Set(values)].sort((a, b) => b.length - a.length),
    env,
  );
}
