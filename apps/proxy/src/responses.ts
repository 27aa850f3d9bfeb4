/** The API's error body shape, so the UI handles the proxy's refusals like the API's. */
export function apiError(code: string, error: string): { code: string; error: string } {
  return { code, error };
}

/** A minimal HTML page for browser-facing outcomes of the OIDC redirects. */
export function htmlPage(title: string, message: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Baton</title></head>
<body><h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/">Back to Baton</a></p></body></html>
`;
}
