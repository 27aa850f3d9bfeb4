import { randomFillSync } from "node:crypto";

let lastMs = 0;
let sequence = 0;

// One CSPRNG call per 256 ids: a call per id (a batch commit writes hundreds of log rows) cost
// more than the rest of the id together.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** 16 fresh random bytes; the returned buffer is the caller's to overwrite. */
function random16(): Buffer {
  if (poolOffset + 16 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

/**
 * A UUIDv7: time-ordered, so the default sort of every list (newest first) is the id.
 * Within one millisecond a 12-bit counter keeps ids from one process strictly increasing.
 */
export function newId(nowMs: number = Date.now()): string {
  const bytes = random16();
  if (nowMs <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1;
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    // A random start below half the counter's range leaves room for 2,048+ ids in this millisecond.
    sequence = bytes.readUInt16BE(6) & 0x7ff;
  }
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Any UUID in its canonical text form, either case (ids of other versions are accepted as input). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
