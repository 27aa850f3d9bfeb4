// The browsable explorer page. It loads swagger-ui-dist from `assetBase` (the api serves the
// package's files there): no CDN, so it works offline and under a strict network policy.

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

/** A JS string literal that cannot end the surrounding <script> element. */
function scriptString(text: string): string {
  return JSON.stringify(text)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
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
<div id="swagger-ui"></div>
<script src="${escapeHtml(`${base}/swagger-ui-bundle.js`)}"></script>
<script>
window.ui = SwaggerUIBundle({ url: ${scriptString(options.specUrl)}, dom_id: "#swagger-ui", deepLinking: true });
</script>
</body>
</html>
`;
}
