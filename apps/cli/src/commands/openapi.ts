import { parseJson } from "@baton/expr";
import type { Command } from "commander";
import { CliError } from "../cli-error.js";
import { act, type ContextFactory, examples } from "../command-kit.js";
import type { Context } from "../context.js";
import { exitCodeForStatus } from "../error-report.js";
import { ExitCode } from "../exit-code.js";

export function registerOpenApi(program: Command, makeContext: ContextFactory): void {
  const openapi = program
    .command("openapi")
    .summary("print the OpenAPI 3.1 document of the API, or of one process")
    .description(
      "Prints the server's OpenAPI 3.1 document (/public/openapi.json) as JSON; with PROCESS, the per-process document whose start-instance body carries that process's input schema.",
    )
    .argument("[process]", "print the per-process document of this process")
    .action(
      act(makeContext, async (ctx, [process]) => {
        const document = process
          ? await (await ctx.api()).call("getProcessOpenApi", { params: { name: process } })
          : await fetchPublicDocument(ctx);
        ctx.out.printJson(document);
      }),
    );
  examples(openapi, ["baton openapi > openapi.json", "baton openapi orders"]);
}

/** /public/openapi.json is served beside the API, not as an action, so it is fetched directly. */
async function fetchPublicDocument(ctx: Context): Promise<unknown> {
  const { server, token } = await ctx.connection();
  const doFetch = ctx.io.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(`${server}/public/openapi.json`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  } catch {
    throw new CliError(`cannot reach the Baton server at ${server}`, ExitCode.unreachable, [
      `error: cannot reach the Baton server at ${server} (is it running? set --server or BATON_SERVER)`,
    ]);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = parseJson(text);
  } catch {
    throw new CliError(
      `the server answered ${response.status} with a body that is not JSON at ${server}/public/openapi.json`,
    );
  }
  if (!response.ok) {
    const error = body as { code?: string; error?: string };
    const message = `${error?.code ?? `http ${response.status}`}: ${error?.error ?? "request failed"}`;
    throw new CliError(message, exitCodeForStatus(response.status));
  }
  return body;
}
