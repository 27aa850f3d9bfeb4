// @baton/client: the typed client of Baton's HTTP API, for programs that drive Baton (docs/client.md).
// It is the registry's own client (packages/actions), the one the CLI and the UI call the API
// through, so it names every action the server answers and types its request and response.
// Everything @baton/actions exports is exported, values and types alike: the bundled
// declarations cannot mark a value export type-only, so a value they declare must exist.
export * from "@baton/actions";
