import { docsHtml, type JsonValue } from "@baton/actions";
import type { ActionHandlers } from "../http/action-handler.js";
import { requireDefinitionRow } from "../definitions/store.js";

export const processDocsHandlers = {
  getProcessOpenApi: async ({ params }, { db, checker }) => {
    const row = await requireDefinitionRow(db, params.name!);
    // Built on the checker thread from the stored text: the event loop never parses the
    // definition, which may be as large as 4 MiB (docs/limits.md#the-checker-thread).
    const { text } = await checker.run({ kind: "openapi", definition: row.definition });
    return { contentType: "application/json", body: text as unknown as { [key: string]: JsonValue } };
  },

  getProcessDocs: async ({ params }, { db }) => {
    const row = await requireDefinitionRow(db, params.name!);
    const html = docsHtml({
      specUrl: `/api/definitions/${encodeURIComponent(row.name)}/openapi.json`,
      assetBase: "/public/docs/assets/",
      title: `Baton: ${row.name}`,
    });
    return { contentType: "text/html; charset=utf-8", body: html };
  },
} satisfies ActionHandlers;
