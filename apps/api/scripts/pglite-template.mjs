#!/usr/bin/env node
// The last step of `pnpm build` in @baton/api: dist/pglite-template.tar.gz, a PGlite data
// directory with every migration of drizzle/ applied (PGlite's own dumpDataDir, gzipped). A
// server on an empty --data-dir is seeded from it (src/storage/pglite-seed.ts) instead of
// running initdb and every migration in WASM (docs/performance.md "Start-up"). It is made again
// only when what it depends on changes: the migrations and the versions of PGlite (its on-disk
// format) and drizzle-orm (its migrations table), hashed into dist/pglite-template.key.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";

const root = fileURLToPath(new URL("..", import.meta.url));
const migrations = join(root, "drizzle");
const out = join(root, "dist/pglite-template.tar.gz");
const keyFile = join(root, "dist/pglite-template.key");

const hash = createHash("sha256");
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else hash.update(path.slice(migrations.length)).update(readFileSync(path));
  }
};
walk(migrations);
const require = createRequire(join(root, "package.json"));
for (const dep of ["@electric-sql/pglite", "drizzle-orm"]) {
  const main = require.resolve(dep);
  const pkg = join(main.slice(0, main.lastIndexOf(`node_modules/${dep}/`)), `node_modules/${dep}/package.json`);
  hash.update(JSON.parse(readFileSync(pkg, "utf8")).version);
}
const key = hash.digest("hex");

if (existsSync(out) && existsSync(keyFile) && readFileSync(keyFile, "utf8") === key) process.exit(0);
const pg = new PGlite();
try {
  await migrate(drizzle(pg), { migrationsFolder: migrations });
  const tarball = Buffer.from(await (await pg.dumpDataDir("gzip")).arrayBuffer());
  writeFileSync(`${out}.tmp`, tarball);
  renameSync(`${out}.tmp`, out);
  writeFileSync(keyFile, key);
} finally {
  await pg.close();
}
