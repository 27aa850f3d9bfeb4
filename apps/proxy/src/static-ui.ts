import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

/** Vite's content-hashed output: a changed file gets a new name, so it may be cached forever. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** `BATON_PROXY_UI_DIR`, else `apps/proxy/web/dist` found from this module (dist/ or src/ alike). */
export function defaultUiDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.BATON_PROXY_UI_DIR || fileURLToPath(new URL("../web/dist", import.meta.url));
}

export const UI_NOT_BUILT_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Baton</title></head>
<body><h1>Baton</h1><p>The web UI is not built. Run <code>pnpm exec turbo run build --filter=@baton/web</code>
(or set BATON_PROXY_UI_DIR to a built UI folder) and reload. The API is proxied under <code>/api</code>.</p></body></html>
`;

/**
 * Answers a GET/HEAD for the UI: the file under `dir` when one exists (hashed `assets/*` with
 * a long cache), else `index.html` for client-side routes (SPA fallback, never cached), a 404
 * for a missing asset, and a short page saying so when the UI is not built. The folder is
 * looked at on every request, so building the UI needs no proxy restart.
 */
export async function serveUi(dir: string, pathname: string, method: string): Promise<Response> {
  const root = resolve(dir);
  const rootIsDir = await stat(root).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const indexPath = join(root, "index.html");
  if (!rootIsDir || !(await isFile(indexPath))) {
    return new Response(method === "HEAD" ? null : UI_NOT_BUILT_HTML, {
      status: pathname === "/" ? 200 : 404,
      headers: { "content-type": TYPES[".html"]!, "cache-control": "no-store" },
    });
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return notFound();
  }
  const file = resolve(root, `.${decoded}`);
  // resolve() has normalised any "..": a path outside the root is never served.
  const inside = file === root || file.startsWith(root + sep);
  if (inside && file !== root && !decoded.includes("\0") && (await isFile(file))) {
    return fileResponse(file, method, decoded.startsWith("/assets/") ? IMMUTABLE : "no-cache");
  }
  if (decoded.startsWith("/assets/") || extname(decoded) !== "") return notFound();
  return fileResponse(indexPath, method, "no-cache");
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function fileResponse(path: string, method: string, cacheControl: string): Promise<Response> {
  const size = (await stat(path)).size;
  const headers = {
    "content-type": TYPES[extname(path).toLowerCase()] ?? "application/octet-stream",
    "content-length": String(size),
    "cache-control": cacheControl,
  };
  const body =
    method === "HEAD" ? null : (Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>);
  return new Response(body, { status: 200, headers });
}

function notFound(): Response {
  return new Response("not found\n", {
    status: 404,
    headers: { "content-type": TYPES[".txt"]!, "cache-control": "no-store" },
  });
}
