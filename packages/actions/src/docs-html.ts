// The browsable explorer page. It loads swagger-ui-dist from `assetBase` (the api serves the
// package's files there): no CDN, so it works offline and under a strict network policy. It has
// no inline script either, so it runs under the sign-in proxy's Content-Security-Policy
// (docs/proxy.md "Browser hardening"): DOCS_INIT_SCRIPT, served beside swagger-ui's files,
// reads the spec URL from the page.

/** The name under `assetBase` that DOCS_INIT_SCRIPT is served at. */
export const DOCS_INIT_FILE = "baton-docs.js";

/** Starts the explorer on the page's `#swagger-ui` element, with the spec URL it names. */
export const DOCS_INIT_SCRIPT = `"use strict";
var element = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({ url: element.dataset.specUrl, dom_id: "#swagger-ui", deepLinking: true });
`;

export interface DocsHtmlOptions {
  /** URL of the OpenAPI document the page shows. */
  specUrl: string;
  /** URL prefix under which swagger-ui.css and swagger-ui-bundle.js are served. */
  assetBase: string;
  title: string;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export function docsHtml(options: DocsHtmlOptions): string {
  const base = options.assetBase.replace(/\/+$/, "");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="${escapeHtml(`${base}/swagger-ui.css`)}">
</head>
<body>
<div id="swagger-ui" data-spec-url="${escapeHtml(options.specUrl)}"></div>
<script src="${escapeHtml(`${base}/swagger-ui-bundle.js`)}"></script>
<script src="${escapeHtml(`${base}/${DOCS_INIT_FILE}`)}"></script>
</body>
</html>
`;
}
