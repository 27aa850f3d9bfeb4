import type { client } from "@baton/testkit";
import { expect } from "vitest";

export type Api = ReturnType<typeof client>;

/** A routing-only process with an input schema (defaults, a required field, an exact number). */
export const shop = (name = "shop") => ({
  name,
  input_schema: {
    type: "object",
    properties: {
      order: { type: "string" },
      qty: { type: "integer", default: 1 },
      amount: { type: "number" },
      note: { type: "string" },
      lines: { type: "array", items: { type: "number" } },
      meta: { type: "object" },
      customer: { type: "object", properties: { email: { type: "string", minLength: 3 } }, required: ["email"] },
    },
    required: ["order"],
  },
  tasks: [{ id: "check" }, { id: "ship", output: { order: "$: input.order" } }],
  output: { shipped: "$: outputs.ship.order" },
});

/** No input_schema: takes no input. */
export const bare = (name = "bare") => ({ name, tasks: [{ id: "only" }] });

export async function deploy(api: Api, definition: object): Promise<number> {
  const res = await api.put("/api/definitions", definition);
  expect(res.status, res.text).toBe(200);
  return res.body.version as number;
}

export async function start(
  api: Api,
  body: object,
): Promise<{ id: string; process: string; version: number; status: string }> {
  const res = await api.post("/api/instances", body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Deploys `definition` and starts one instance of the version it got: the usual set-up of a test. */
export async function deployAndStart(
  api: Api,
  definition: { name: string; [key: string]: unknown },
  input?: unknown,
): Promise<string> {
  const version = await deploy(api, definition);
  const body =
    input === undefined ? { process: definition.name, version } : { process: definition.name, version, input };
  return (await start(api, body)).id;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every item id of a list, following next_cursor from the first page to the last. */
export async function collectAll(api: Api, path: string): Promise<string[]> {
  const ids: string[] = [];
  let url = path;
  for (let guard = 0; guard < 1000; guard++) {
    const res = await api.get(url);
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.items.map((i: { id: string }) => i.id));
    const next = res.body.page.next_cursor as string | null;
    if (!next) return ids;
    url = `${path}${path.includes("?") ? "&" : "?"}after=${encodeURIComponent(next)}`;
  }
  throw new Error("pagination did not end");
}
