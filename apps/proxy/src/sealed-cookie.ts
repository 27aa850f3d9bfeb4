import { EncryptJWT, jwtDecrypt } from "jose";

/**
 * Cookie contents as a compact JWE (dir + A256GCM): confidential and tamper-evident, so the
 * proxy keeps no session state. `exp` is checked on open with no clock tolerance.
 */
export async function seal(
  payload: Record<string, unknown>,
  key: Uint8Array,
  expiresAtMs: number,
  purpose: string,
): Promise<string> {
  return new EncryptJWT({ ...payload, pur: purpose })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAtMs / 1000))
    .encrypt(key);
}

/** The payload, or null when the value is forged, tampered, expired or sealed for another purpose. */
export async function unseal(
  value: string,
  key: Uint8Array,
  nowMs: number,
  purpose: string,
): Promise<Record<string, unknown> | null> {
  try {
    const { payload } = await jwtDecrypt(value, key, {
      keyManagementAlgorithms: ["dir"],
      contentEncryptionAlgorithms: ["A256GCM"],
      requiredClaims: ["exp"],
      currentDate: new Date(nowMs),
    });
    return payload.pur === purpose ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
