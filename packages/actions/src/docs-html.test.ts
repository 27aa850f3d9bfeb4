import { describe, expect, it } from "vitest";
import { DOCS_INIT_FILE, DOCS_INIT_SCRIPT, docsHtml } from "./docs-html.js";

describe("docsHtml", () => {
  const html = docsHtml({ specUrl: "/public/openapi.json", assetBase: "/public/docs/assets/", title: "Baton API" });

  it("loads swagger-ui from the asset base, not a CDN", () => {
    expect(html).toContain('<link rel="stylesheet" href="/public/docs/assets/swagger-ui.css">');
    expect(html).toContain('<script src="/public/docs/assets/swagger-ui-bundle.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("initialises the explorer from a served script, with the spec URL on the page: no inline script", () => {
    expect(html).toContain('<div id="swagger-ui" data-spec-url="/public/openapi.json"></div>');
    expect(html).toContain(`<script src="/public/docs/assets/${DOCS_INIT_FILE}"></script>`);
    expect(html).not.toMatch(/<script>/);
    expect(DOCS_INIT_SCRIPT).toContain("SwaggerUIBundle({ url: element.dataset.specUrl");
    expect(html).toContain("<title>Baton API</title>");
  });

  it("escapes a title and a spec URL that carry markup", () => {
    const hostile = docsHtml({
      specUrl: '/api/definitions/x"</script><script>alert(1)</script>/openapi.json',
      assetBase: "/a",
      title: "<b>&",
    });
    expect(hostile).toContain("<title>&lt;b&gt;&amp;</title>");
    expect(hostile).not.toContain("</script><script>alert(1)");
    expect(hostile).toContain(
      'data-spec-url="/api/definitions/x&quot;&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;/openapi.json"',
    );
    expect(hostile.match(/<\/script>/g)?.length, "only the two script elements close").toBe(2);
  });
});
