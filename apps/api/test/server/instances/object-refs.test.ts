// Object refs cannot be used to test for a value (docs/security.md "Object refs"): a ref is a
// keyed hash under the database's own key, so the bare sha256 of a guessed value finds nothing,
// while the listed ref answers the value, and stays the same for the same value across a
// restart (the key is the database's, not the process's).
import { createHash } from "node:crypto";
import { client, type SharedDatabase, sharedDatabase, startServer } from "@baton/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, start } from "../../support/instances-fixtures.js";

let database: SharedDatabase;

beforeAll(async () => {
  database = await sharedDatabase();
});
afterAll(async () => {
  await database?.dispose();
});

const guessed = { card: "4111-1111-1111-1111", padding: "p".repeat(300) };

/** Starts `big` with the guessed value as input and answers the ref its input was stored under. */
async function storedRef(api: ReturnType<typeof client>): Promise<string> {
  const { id } = await start(api, { process: "big", input: { value: guessed } });
  const detail = await api.get(`/api/instances/${id}/detail`);
  const object = detail.body.objects.find((o: { path: string[] }) => o.path.join(".") === "state.input");
  expect(object, detail.text).toBeDefined();
  return object.ref;
}

describe("GET /objects/{ref}", () => {
  it("answers the listed ref, finds nothing at the bare sha256 of the value, and keeps the ref across a restart", async () => {
    const args = ["--poll", "0", "--object-threshold", "64"];
    const first = await startServer({ args, database: database.location });
    let ref: string;
    try {
      const api = client(first.url);
      await deploy(api, {
        name: "big",
        input_schema: { type: "object", properties: { value: { type: "object" } } },
        tasks: [{ id: "only" }],
      });
      ref = await storedRef(api);
      expect(ref).toMatch(/^[0-9a-f]{64}$/);
      const hit = await api.get(`/api/objects/${ref}`);
      expect(hit.status, hit.text).toBe(200);
      expect(hit.body).toEqual({ value: guessed });
      const sha256 = createHash("sha256")
        .update(JSON.stringify({ value: guessed }))
        .digest("hex");
      expect(ref).not.toBe(sha256);
      const probe = await api.get(`/api/objects/${sha256}`);
      expect(probe.status, "a guessed value's plain hash finds nothing").toBe(404);
    } finally {
      await first.stop();
    }
    const second = await startServer({ args, database: database.location });
    try {
      expect(await storedRef(client(second.url)), "the key is the database's").toBe(ref);
    } finally {
      await second.stop();
    }
  });
});
