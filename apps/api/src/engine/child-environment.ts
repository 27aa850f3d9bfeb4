import { type Json, parseJson } from "@baton/expr";
import { sql } from "drizzle-orm";
import type { Clock } from "../storage/clock.js";
import { type Db, rowsOf } from "../storage/db.js";
import { newId } from "../storage/ids.js";
import type { ChildEnvironment, ChildOutcome } from "./child-task.js";
import { sqlTextArray } from "./claim.js";
import type { DefinitionCache } from "./compiled-definition.js";
import { resolveRefs } from "./objects.js";
import { TaskFailure } from "./task-failure.js";

/** The database side of child tasks for one parent advance (child-task.ts stays free of I/O). */
export function childEnvironment(db: Db, clock: Clock, definitions: DefinitionCache, parent: { process: string; version: number }): ChildEnvironment {
  return {
    async resolveChild(name, version, task) {
      const chosen = version ?? (await pinnedVersion(db, parent, task, name)) ?? (await latestVersion(db, name));
      if (chosen === undefined) throw new TaskFailure("engine.definition", `task "${task}": child process "${name}" is not registered`);
      const compiled = await definitions.get(name, chosen);
      return { version: chosen, definition: compiled.definition };
    },
    async loadChildren(ids) {
      if (ids.length === 0) return [];
      const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`SELECT id, status, output, error_code, error_message FROM instances WHERE id = ANY(${sqlTextArray(ids)})`),
      );
      return Promise.all(
        rows.map(
          async (r): Promise<ChildOutcome> => ({
            id: String(r.id),
            status: String(r.status),
            output: r.output === null || r.output === undefined ? null : await resolveRefs(db, parseJson(String(r.output)) as Json),
            errorCode: r.error_code === null || r.error_code === undefined ? null : String(r.error_code),
            errorMessage: r.error_message === null || r.error_message === undefined ? null : String(r.error_message),
          }),
        ),
      );
    },
    newId: () => newId(clock.now()),
  };
}

async function pinnedVersion(db: Db, parent: { process: string; version: number }, task: string, child: string): Promise<number | undefined> {
  const rows = rowsOf<{ child_version: number }>(
    await db.execute(sql`
      SELECT child_version FROM definition_pins
      WHERE name = ${parent.process} AND version = ${parent.version} AND task = ${task} AND child = ${child}`),
  );
  return rows.length === 0 ? undefined : Number(rows[0].child_version);
}

async function latestVersion(db: Db, name: string): Promise<number | undefined> {
  const rows = rowsOf<{ latest: number | null }>(await db.execute(sql`SELECT max(version) AS latest FROM definitions WHERE name = ${name}`));
  return rows[0]?.latest === null || rows[0]?.latest === undefined ? undefined : Number(rows[0].latest);
}
