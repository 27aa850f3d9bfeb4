// Schedules in the definition files (docs/cli.md "Schedules"): a document with `kind: schedule`
// is a schedule (its `name` and the body of PUT /schedules/{name}); every other one a definition.
import type { ScheduleBody } from "@baton/actions";
import type { LoadedDefinition } from "./definition-files.js";

export interface LoadedSchedule {
  source: string;
  name: string;
  body: ScheduleBody;
}

export function splitSchedules(loaded: LoadedDefinition[]): {
  definitions: LoadedDefinition[];
  schedules: LoadedSchedule[];
} {
  const definitions: LoadedDefinition[] = [];
  const schedules: LoadedSchedule[] = [];
  for (const item of loaded) {
    const { kind, name, ...body } = item.definition;
    if (kind === "schedule")
      schedules.push({ source: item.source, name: String(name), body: body as unknown as ScheduleBody });
    else definitions.push(item);
  }
  return { definitions, schedules };
}
