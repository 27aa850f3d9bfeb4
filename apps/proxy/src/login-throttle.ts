/**
 * Slows password guessing (docs/proxy.md "Failed sign-ins"). Failures are counted per account
 * (the email as typed, lowercased, known or not, so the answer does not tell which exist) and
 * per client address. Past `free` failures, each further failure closes that key for a delay
 * that doubles from 1 s up to `maxDelayMs`; while closed, attempts are refused before any
 * bcrypt work and do not count (so a flood cannot stretch the window). A success clears its
 * account, not its address (one valid account must not reset an address's guesses). A key
 * untouched for `forgetMs` is forgotten, and at most `maxKeys` of each kind are kept (the
 * oldest dropped), so memory stays bounded under a flood of made-up emails.
 */
export interface ThrottleLimits {
  free: number;
  maxDelayMs: number;
}

export interface LoginThrottleSettings {
  account: ThrottleLimits;
  address: ThrottleLimits;
  forgetMs: number;
  maxKeys: number;
  /** Password checks one client address may have running at once. */
  concurrentPerAddress: number;
}

export const DEFAULT_THROTTLE: LoginThrottleSettings = {
  account: { free: 5, maxDelayMs: 15 * 60_000 },
  address: { free: 20, maxDelayMs: 15 * 60_000 },
  forgetMs: 24 * 60 * 60_000,
  maxKeys: 100_000,
  concurrentPerAddress: 2,
};

export type ThrottleVerdict =
  | { ok: true; release: () => void }
  | { ok: false; reason: "account" | "address" | "concurrent"; retryAfterMs: number };

interface Failures {
  count: number;
  closedUntil: number;
  lastAt: number;
}

export interface LoginThrottle {
  /** Whether an attempt may run now; when ok, call `release` once it is decided (and `failed`/`succeeded`). */
  admit(account: string, address: string): ThrottleVerdict;
  failed(account: string, address: string): void;
  succeeded(account: string): void;
}

export function createLoginThrottle(settings: LoginThrottleSettings, now: () => number): LoginThrottle {
  const accounts = new Map<string, Failures>();
  const addresses = new Map<string, Failures>();
  const running = new Map<string, number>();

  const current = (map: Map<string, Failures>, key: string): Failures | undefined => {
    const f = map.get(key);
    if (f && now() - f.lastAt > settings.forgetMs) {
      map.delete(key);
      return undefined;
    }
    return f;
  };
  const fail = (map: Map<string, Failures>, key: string, limits: ThrottleLimits) => {
    const f = current(map, key) ?? { count: 0, closedUntil: 0, lastAt: 0 };
    f.count += 1;
    f.lastAt = now();
    const over = f.count - limits.free;
    if (over > 0) f.closedUntil = f.lastAt + Math.min(limits.maxDelayMs, 1000 * 2 ** Math.min(over - 1, 30));
    map.delete(key); // re-insert: Map order is then least recently failed first
    map.set(key, f);
    if (map.size > settings.maxKeys) map.delete(map.keys().next().value!);
  };

  return {
    admit(account, address) {
      const t = now();
      const byAccount = current(accounts, account.trim().toLowerCase());
      if (byAccount && byAccount.closedUntil > t)
        return { ok: false, reason: "account", retryAfterMs: byAccount.closedUntil - t };
      const byAddress = current(addresses, address);
      if (byAddress && byAddress.closedUntil > t)
        return { ok: false, reason: "address", retryAfterMs: byAddress.closedUntil - t };
      const inFlight = running.get(address) ?? 0;
      if (inFlight >= settings.concurrentPerAddress) return { ok: false, reason: "concurrent", retryAfterMs: 1000 };
      running.set(address, inFlight + 1);
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          const n = (running.get(address) ?? 1) - 1;
          if (n <= 0) running.delete(address);
          else running.set(address, n);
        },
      };
    },
    failed(account, address) {
      fail(accounts, account.trim().toLowerCase(), settings.account);
      fail(addresses, address, settings.address);
    },
    succeeded(account) {
      accounts.delete(account.trim().toLowerCase());
    },
  };
}
