import { buildOpenApi, buildProcessOpenApi, docsHtml, type JsonValue, registry } from "@baton/actions";
import type { ActionHandlers } from "../http/action-handler.js";
import { requireDefinition } from "../definitions/store.js";

let base: ReturnType<typeof buildOpenApi> | undefined;

export const processDocsHandlers = {
  getProcessOpenApi: async ({ params }, { db }) => {
    const def = await requireDefinition(db, params.name!);
    base ??= buildOpenApi(registry);
    // An OpenAPI document is JSON data; the registry types the response as such.
    return { body: buildProcessOpenApi(base, def.definition) as unknown as { [key: string]: JsonValue } };
  },

  getProcessDocs: async ({ params }, { db }) => {
    const def = await requireDefinition(db, params.name!);
    const html = docsHtml({
      specUrl: `/api/definitions/${encodeURIComponent(def.name)}/openapi.json`,
      assetBase: "/public/docs/assets/",
      title: `Baton: ${def.name}`,
    });
    return { contentType: "text/html; charset=utf-8", body: html };
  },
} satisfies ActionHandlers;
