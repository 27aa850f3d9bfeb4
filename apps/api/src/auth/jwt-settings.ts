import type { ServerConfig } from "../config.js";
import { readJwtSecretFile } from "./jwt-secret-file.js";
import type { JwtSettings } from "./jwt-verifier.js";

/**
 * The JWT verifier's settings from `--jwt-secret-file`, `--jwt-issuer` and `--jwt-audience`:
 * null when none is given, an Error (one line) when only some are or the secret file is bad.
 */
export function loadJwtSettings(
  config: Pick<ServerConfig, "jwtSecretFile" | "jwtIssuer" | "jwtAudience"> & {
    jwtScopesClaim?: string;
    limits: Pick<ServerConfig["limits"], "jwtLifetime">;
  },
): JwtSettings | null {
  const flags = {
    "--jwt-secret-file": config.jwtSecretFile,
    "--jwt-issuer": config.jwtIssuer,
    "--jwt-audience": config.jwtAudience,
  };
  const given = Object.entries(flags).filter(([, value]) => value !== undefined && value !== "");
  if (given.length === 0) return null;
  if (given.length < 3) {
    const missing = Object.keys(flags).filter((flag) => !given.some(([name]) => name === flag));
    throw new Error(
      `JWT sign-in needs --jwt-secret-file, --jwt-issuer and --jwt-audience together; missing ${missing.join(" and ")}`,
    );
  }
  return {
    key: readJwtSecretFile(config.jwtSecretFile!),
    issuer: config.jwtIssuer!,
    audience: config.jwtAudience!,
    maxLifetimeSeconds: config.limits.jwtLifetime,
    scopesClaim: config.jwtScopesClaim ?? "scopes",
  };
}
