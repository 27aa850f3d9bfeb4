/**
 * Database work in flight through a postgres-js client, for the pool metrics (docs/metrics.md):
 * the driver keeps its pool private, so the client handed to drizzle is wrapped to count
 * statements (`unsafe`, what drizzle and executePrepared call) and transactions (`begin`) from
 * start to settlement (PGlite, one connection: `query` and `transaction`). A statement inside a transaction runs on that transaction's own client
 * and is not counted again. In flight beyond the pool size means waiting for a connection.
 */
export interface PoolGauge {
  /** Connections the pool may open. */
  size: number;
  /** Statements and transactions started and not yet settled. */
  inFlight(): number;
}

/** Methods returning an ordinary promise that holds a connection until it settles: postgres-js `begin`, PGlite `query` and `transaction`. */
const EAGER = new Set<string | symbol>(["begin", "query", "transaction"]);

type Client = ((...args: unknown[]) => unknown) & Record<string | symbol, unknown>;

export function countInFlight<T extends object>(client: T, size: number): { client: T; gauge: PoolGauge } {
  let inFlight = 0;
  const done = () => {
    inFlight--;
  };
  // postgres-js queries are lazy thenables: they run when first awaited, and `.values()` &c.
  // must reach the query before that. So the count starts in `then`, not in `unsafe`.
  const countedQuery = (query: object): object => {
    const proxy: object = new Proxy(query, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop === "then") {
          return (onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) => {
            inFlight++;
            const settled = (target as Promise<unknown>).then(
              (v) => {
                done();
                return v;
              },
              (e) => {
                done();
                throw e;
              },
            );
            return settled.then(onFulfilled, onRejected);
          };
        }
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };
  const wrapped = new Proxy(client as unknown as Client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "unsafe" && typeof value === "function")
        return (...args: unknown[]) => countedQuery((value as (...a: unknown[]) => object).apply(target, args));
      if (EAGER.has(prop) && typeof value === "function") {
        return (...args: unknown[]) => {
          inFlight++;
          return ((value as (...a: unknown[]) => Promise<unknown>).apply(target, args) as Promise<unknown>).finally(
            done,
          );
        };
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { client: wrapped as unknown as T, gauge: { size, inFlight: () => inFlight } };
}
