import { execFile, execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { generateDtsBundle } from "dts-bundle-generator";
import { build } from "esbuild";

// How Baton ships a workspace package outside the workspace (docs/cli.md, docs/worker.md, docs/client.md): its
// built entry bundled with esbuild, so the @baton/* packages and libraries it uses are inside
// it, plus a package.json with no dependencies; `npm install <tarball>` then works anywhere,
// offline. The package's scripts/pack.mjs says what differs (entry, manifest fields, readme);
// its test/pack.test.ts installs the tarball with installPacked and checks what a user gets.

export interface PackOptions {
  /** The package folder (holds package.json and dist/). */
  packageDir: string;
  /** The built entry under dist/, bundled to the same path in the tarball, e.g. "main.js". */
  entry: string;
  /** Manifest fields beside name, version, description, type, files and engines (bin, main, exports…). */
  manifest: Record<string, unknown>;
  /** A doc of docs/ shipped as the tarball's README.md, e.g. "cli.md". */
  readme: string;
  /** Code put before the bundle (e.g. a `require` for CommonJS dependencies in ESM). */
  banner?: string;
  /**
   * `true`: ship dist/*.d.ts as tsc wrote them. They must not import a @baton/* workspace
   * package, which the installing project does not have: packing fails naming the file.
   * `"bundle"`: ship one dist/<entry>.d.ts with the types of the workspace packages (and of
   * `inlineLibraries`) it reaches written into it (dts-bundle-generator); packing fails naming
   * any import the bundle still has, since the installing project has nothing to import.
   */
  declarations?: boolean | "bundle";
  /** With `declarations: "bundle"`: libraries besides @baton/* whose types are inlined (e.g. "lossless-json"). */
  inlineLibraries?: string[];
}

/** Fields of the workspace package.json that describe the package to a registry, shipped as written. */
const PUBLISHED_FIELDS = ["keywords", "license", "author", "homepage", "repository", "bugs"];

/** Packs the package into `destination` (created if needed); returns the tarball's path. */
export async function packBundle(options: PackOptions, destination: string): Promise<string> {
  const { packageDir } = options;
  const dist = path.join(packageDir, "dist");
  const entry = path.join(dist, options.entry);
  const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
  if (!existsSync(entry))
    throw new PackError(`${entry} does not exist; run "pnpm --filter ${manifest.name} run build" first`);
  const stage = mkdtempSync(path.join(tmpdir(), "baton-pack-"));
  try {
    await build({
      entryPoints: [entry],
      outfile: path.join(stage, "dist", options.entry),
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
      ...(options.banner === undefined ? {} : { banner: { js: options.banner } }),
    });
    if (options.declarations === "bundle") bundleDeclarations(options, stage);
    else if (options.declarations) {
      for (const file of readdirSync(dist).filter((name) => name.endsWith(".d.ts"))) {
        const text = readFileSync(path.join(dist, file), "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
        if (/from ["']@baton\//.test(text))
          throw new PackError(`dist/${file} imports a @baton/* workspace package; keep public types in src/types.ts`);
        writeFileSync(path.join(stage, "dist", file), text);
      }
    }
    const shipped = {
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      ...Object.fromEntries(PUBLISHED_FIELDS.filter((field) => field in manifest).map((f) => [f, manifest[f]])),
      type: "module",
      ...options.manifest,
      files: ["dist"],
      engines: { node: ">=20.19" },
    };
    writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(shipped, null, 2)}\n`);
    const readme = path.join(packageDir, "..", "..", "docs", options.readme);
    if (existsSync(readme)) copyFileSync(readme, path.join(stage, "README.md"));
    mkdirSync(destination, { recursive: true });
    const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
      cwd: stage,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const [packed] = JSON.parse(output);
    return path.join(destination, packed.filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Writes dist/<entry>.d.ts into `stage`: the declarations of the entry with every @baton/*
 * package and `inlineLibraries` inlined. dts-bundle-generator runs on TypeScript 5 (its
 * compiler API; the workspace's TypeScript 7 has none) over what tsc 7 emitted.
 */
function bundleDeclarations(options: PackOptions, stage: string): void {
  const entry = path.join(options.packageDir, "dist", options.entry.replace(/\.js$/, ".d.ts"));
  if (!existsSync(entry)) throw new PackError(`${entry} does not exist; the package must emit declarations`);
  const workspace = readdirSync(path.join(options.packageDir, "..", "..", "packages")).map((name) => `@baton/${name}`);
  const [text] = generateDtsBundle(
    [
      {
        filePath: entry,
        libraries: { inlinedLibraries: [...workspace, ...(options.inlineLibraries ?? [])] },
        output: { noBanner: true, exportReferencedTypes: false },
      },
    ],
    { preferredConfigPath: path.join(import.meta.dirname, "..", "declarations.tsconfig.json") },
  );
  const imported = /^\s*import\s[^;]*?from\s+["']([^"']+)["']/m.exec(text ?? "");
  if (text === undefined || imported !== null)
    throw new PackError(
      `the bundled declarations still import "${imported?.[1]}"; add it to inlineLibraries so the installing project needs nothing`,
    );
  writeFileSync(path.join(stage, "dist", path.basename(entry)), text);
}

/** A packing refusal with its sentence; scripts/pack.mjs prints it and exits 1. */
export class PackError extends Error {}

/** The command-line of a package's scripts/pack.mjs: `node scripts/pack.mjs [destination]`. */
export async function packMain(options: PackOptions): Promise<void> {
  try {
    console.log(await packBundle(options, path.resolve(process.argv[2] ?? options.packageDir)));
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
}

const run = promisify(execFile);

export interface Installed {
  /** The tarball scripts/pack.mjs wrote. */
  tarball: string;
  /** The empty npm project it was installed into. */
  project: string;
  /** The installed package's package.json. */
  manifest: Record<string, unknown>;
  /** What node_modules of the project holds, dot folders aside. */
  modules: string[];
}

/**
 * Runs the package's own scripts/pack.mjs, then installs the tarball into a fresh empty npm
 * project with `npm install --offline` (a private npm cache: nothing may come from a registry).
 */
export async function installPacked(packageDir: string, packageName: string): Promise<Installed> {
  const work = mkdtempSync(path.join(tmpdir(), "baton-packed-"));
  const { stdout } = await run(process.execPath, [
    path.join(packageDir, "scripts", "pack.mjs"),
    path.join(work, "out"),
  ]);
  const tarball = stdout.trim().split("\n").pop()!;
  const project = path.join(work, "project");
  const npmEnv = {
    ...process.env,
    npm_config_cache: path.join(work, "npm-cache"),
    npm_config_update_notifier: "false",
  };
  mkdirSync(project);
  await run("npm", ["init", "-y"], { cwd: project, env: npmEnv });
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: project, env: npmEnv });
  const manifest = JSON.parse(readFileSync(path.join(project, "node_modules", packageName, "package.json"), "utf8"));
  const modules = readdirSync(path.join(project, "node_modules")).filter((name) => !name.startsWith("."));
  return { tarball, project, manifest, modules };
}

/**
 * Writes `source` as consumer.ts into `project` (an installPacked project, made an ES module)
 * and type-checks it with the workspace's tsc against the installed declarations, with the
 * workspace's @types/node standing in for the project's own. `emit` also writes consumer.js to
 * run. Answers tsc's output: empty when the consumer compiles.
 */
export async function compileConsumer(project: string, source: string, options: { emit: boolean }): Promise<string> {
  const workspace = path.join(import.meta.dirname, "..", "..", "..");
  writeFileSync(path.join(project, "consumer.ts"), source);
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        ...(options.emit ? {} : { noEmit: true }),
        typeRoots: [path.join(workspace, "node_modules", "@types")],
        types: ["node"],
      },
      files: ["consumer.ts"],
    }),
  );
  const manifest = path.join(project, "package.json");
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), type: "module" }));
  const tsc = path.join(workspace, "node_modules", ".bin", "tsc");
  const checked = await run(tsc, ["-p", "tsconfig.json"], { cwd: project }).catch((error) => error);
  return checked.stdout ?? "";
}
