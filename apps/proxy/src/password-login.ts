import { randomBytes } from "node:crypto";
import { type BcryptWorker, createBcryptWorker } from "./bcrypt-worker.js";
import type { PasswordEntry } from "./config.js";

export type PasswordCheck = (email: string, password: string) => Promise<PasswordEntry | null>;

/**
 * Checks an email and password against `login.passwords`, bcrypt running on a worker thread
 * (bcrypt-worker.ts). Emails match case-insensitively. An unknown email still runs one bcrypt
 * comparison (against a throwaway hash of the highest configured cost), so the answer time
 * does not tell which emails exist. Rejects with BcryptBusy when too many checks wait.
 */
export function createPasswordCheck(
  entries: readonly PasswordEntry[],
  bcrypt: BcryptWorker = createBcryptWorker(),
): PasswordCheck {
  const byEmail = new Map(entries.map((e) => [e.email.toLowerCase(), e]));
  const cost = Math.max(4, ...entries.map((e) => Number(e.hash.slice(4, 6))));
  let decoy: Promise<string> | undefined;
  return async (email, password) => {
    const entry = byEmail.get(email.trim().toLowerCase());
    if (!entry) {
      if (!decoy) {
        const made = bcrypt.hash(randomBytes(18).toString("base64"), cost);
        decoy = made;
        made.catch(() => {
          if (decoy === made) decoy = undefined; // a refused (busy) hash is made again next time
        });
      }
      await bcrypt.compare(password, await decoy);
      return null;
    }
    return (await bcrypt.compare(password, entry.hash)) ? entry : null;
  };
}
