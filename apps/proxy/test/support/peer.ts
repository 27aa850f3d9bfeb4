/**
 * The bindings @hono/node-server gives a request from the TCP peer `address`, for
 * `app.request(url, init, fromPeer(address))` in unit tests (client-address.ts reads them).
 */
export const fromPeer = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });
