// Node accepts ONE new connection per turn of the event loop (libuv 1.45 and later accepts once
// per poll and leaves the next to the next turn). A turn that also runs a PGlite statement or a
// large start's JSON work lasts tens of milliseconds, so a connection behind forty queued ones
// waited forty such turns: a /healthz probe took 0.9-1.4 s in a burst of forty 256 KiB starts
// on PGlite while the event loop never stalled more than 0.1 s (docs/limits.md "Requests",
// "New connections first"). Work that can wait a turn asks for `acceptFirst()`: it goes on only
// after a turn that accepted no connection, so queued connections drain in cheap turns first.

/** At most this many turns in a row are given to new connections, so a flood of them cannot hold the work back for long. */
export const ACCEPT_FIRST_MAX_TURNS = 64;

// Connections accepted so far by this process: each waiter compares it between two of its turns.
let accepted = 0;

/** Called on every connection a server of this process accepts (server.ts). */
export function connectionAccepted(): void {
  accepted++;
}

/**
 * Resolves in a later turn of the event loop, once a whole turn (its poll phase, where
 * connections are accepted) went by without accepting one, or after `maxTurns` turns that
 * each did. The checks run in the check phase (setImmediate), after the poll phase; the first
 * only marks where the waiting began, since the turn it runs in may have polled before the call.
 */
export function acceptFirst(maxTurns = ACCEPT_FIRST_MAX_TURNS): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    let turns = 0;
    const check = () => {
      if (accepted !== seen && ++turns < maxTurns) {
        seen = accepted;
        setImmediate(check);
      } else resolve();
    };
    setImmediate(() => {
      seen = accepted;
      setImmediate(check);
    });
  });
}
