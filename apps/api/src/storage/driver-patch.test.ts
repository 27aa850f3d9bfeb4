// The patched postgres driver (patches/postgres@3.4.9.patch, docs/engine.md "When the database
// goes away"): a connection that dies while it fetches the array types — the first statement
// on every new connection — then fails to reconnect must reject the waiting query, not leave
// an unhandled rejection behind (which exits the process). A TCP proxy in front of PostgreSQL
// cuts the connection at that statement and refuses the reconnect. PostgreSQL only.
import { createServer, Socket as NetSocket, type Server, type Socket } from "node:net";
import { onPostgres } from "@baton/testkit";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";

/** Forwards to PostgreSQL until the client's first message after ReadyForQuery; then cuts and stops listening. */
async function cuttingProxy(target: URL): Promise<{ url: string; server: Server }> {
  const server = createServer((client: Socket) => {
    const upstream = new NetSocket();
    let ready = false;
    upstream.connect(Number(target.port || 5432), target.hostname);
    upstream.on("data", (chunk: Buffer) => {
      // ReadyForQuery: 'Z', length 5, status byte.
      for (let i = 0; i + 4 < chunk.length; i++) if (chunk[i] === 0x5a && chunk.readUInt32BE(i + 1) === 5) ready = true;
      client.write(chunk);
    });
    client.on("data", (chunk: Buffer) => {
      if (ready) {
        server.close();
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url: url.toString(), server };
}

describe.skipIf(!onPostgres)("the patched postgres driver", () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  afterEach(() => {
    process.off("unhandledRejection", record);
  });

  it("rejects the waiting query when the connection dies while fetching types and cannot reconnect", async () => {
    process.on("unhandledRejection", record);
    const { url, server } = await cuttingProxy(new URL(process.env.DATABASE_URL!));
    const sql = postgres(url, { max: 1, onnotice: () => {}, backoff: () => 0.05, connect_timeout: 2 });
    try {
      const error = await sql`select 1`.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, "the query is rejected").toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 300));
      expect(unhandled, "no rejection was left unhandled").toEqual([]);
    } finally {
      server.close();
      await sql.end({ timeout: 0 });
    }
  }, 30_000);

  // porsager/postgres#1189: a BEGIN whose write filled the connection's pipeline skipped the
  // hook that reserves the connection for its transaction, so sql.begin failed with
  // UNSAFE_TRANSACTION and left the transaction open on a pooled connection (seen once under
  // load on the engine's batched writes, docs/engine.md "The driver"). A pipeline of 0
  // makes every BEGIN the one that fills it.
  it("reserves the connection of a transaction whose BEGIN filled the pipeline", async () => {
    // max_pipeline is read by the driver but missing from its types: passed as a variable, not a literal.
    const options = { max: 2, max_pipeline: 0, onnotice: () => {} };
    const sql = postgres(process.env.DATABASE_URL!, options);
    try {
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          sql.begin(async (tx) => {
            const [row] = await tx`select ${i}::int as n`;
            return row;
          }),
        ),
      );
      expect(results.map((r) => Number(r.n))).toEqual([0, 1, 2, 3]);
      const [open] = await sql`select count(*)::int as n from pg_stat_activity
        where state like 'idle in transaction%' and application_name = current_setting('application_name')`;
      expect(Number(open.n), "no transaction left open on a pooled connection").toBe(0);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
