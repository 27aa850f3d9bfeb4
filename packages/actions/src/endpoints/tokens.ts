import { PERMISSIONS } from "../action-spec.js";
import {
  arrayOf,
  bool,
  dateTime,
  int,
  nullable,
  responseObject,
  scopePatterns,
  str,
  strictObject,
  MAX_SPAN_MS,
} from "../schema.js";
import { action } from "./define.js";

const TAG = "tokens";

const PERMS_REQUEST = {
  type: ["array", "null"],
  description: `Permission names (${PERMISSIONS.join(", ")}); null or empty grants none.`,
  items: { type: "string", enum: [...PERMISSIONS] },
  uniqueItems: true,
};
const PERMS_RESPONSE = {
  type: ["array", "null"],
  description: "Permission names; null or empty grants none.",
  items: { type: "string" },
};

const TOKEN_ID = str("Token id.");

const SCOPES_RESPONSE = scopePatterns(
  'Extension: the process-name patterns the token reaches (docs/auth.md "Scopes"); null reaches every process.',
);

export const TOKEN_ITEM_SCHEMA = responseObject(
  {
    id: TOKEN_ID,
    label: str("What the token is for."),
    perms: PERMS_RESPONSE,
    scopes: SCOPES_RESPONSE,
    created_at: dateTime("When it was created (ISO 8601 UTC)."),
    last_used_at: nullable(dateTime("When it last authenticated a request; null if never.")),
    expires_at: nullable(dateTime("When it stops working; null if never.")),
    revoked_at: nullable(dateTime("When it was revoked; null if live.")),
  },
  ["id", "label", "perms", "scopes", "created_at", "last_used_at", "expires_at", "revoked_at"],
  {
    title: "Token",
    not: { description: "Never carries the secret.", properties: { token: {} }, required: ["token"] },
  },
);

export const tokenActions = [
  action({
    name: "createToken",
    method: "post",
    path: "/tokens",
    tag: TAG,
    summary: "Create an API token",
    description:
      "Creates a `svc_sk_` token with `perms` for a machine (CI, worker, app, CLI). The secret `token` is in this response only: store it now, it cannot be shown again (only its hash is kept). " +
      "Give at most one of `expires_in` (ms from now) and `expires_at` (ISO 8601); with neither it never expires.",
    permissions: ["admin"],
    scope: { by: "tokens" },
    body: strictObject(
      {
        label: str("What the token is for, 1 to 200 characters.", { minLength: 1, maxLength: 200 }),
        perms: PERMS_REQUEST,
        scopes: scopePatterns(
          'Extension: process-name patterns (`billing`, `orders-*`) the token reaches (docs/auth.md "Scopes"). Omitted: the creator\'s own scopes; null: every process (only a creator without scopes may give it).',
        ),
        expires_in: int("Lifetime in ms from now.", { minimum: 1, maximum: MAX_SPAN_MS }),
        expires_at: dateTime("Expiry instant (ISO 8601); must be in the future."),
      },
      ["label", "perms"],
    ),
    responses: {
      200: {
        description: "Created; the secret is shown this once.",
        schema: responseObject(
          {
            id: TOKEN_ID,
            token: str("The secret, prefix `svc_sk_`. Shown once; send it as `Authorization: Bearer <token>`.", {
              pattern: "^svc_sk_",
            }),
            label: str("What the token is for."),
            perms: PERMS_RESPONSE,
            scopes: SCOPES_RESPONSE,
            created_at: dateTime("When it was created (ISO 8601 UTC)."),
            expires_at: nullable(dateTime("When it stops working; null if never.")),
          },
          ["id", "token", "label", "perms", "scopes", "created_at", "expires_at"],
          { title: "CreatedToken" },
        ),
      },
    },
    errors: [400, 500],
    errorDescriptions: { 400: "Bad label or permission name, both expiry fields given, or an expiry in the past." },
    example: {
      request: { body: { label: "ci deploy", perms: ["deploy", "read"], expires_in: 2592000000 } },
      response: {
        id: "tok_01J9Z5",
        token: "svc_sk_pG9v3Q0nT4yXr8LwK2mB7cJ5hF1sD6aZ0eU3iO9qR2w",
        label: "ci deploy",
        perms: ["deploy", "read"],
        scopes: null,
        created_at: "2026-01-02T10:00:00.000Z",
        expires_at: "2026-02-01T10:00:00.000Z",
      },
    },
  }),
  action({
    name: "listTokens",
    method: "get",
    path: "/tokens",
    tag: TAG,
    summary: "List API tokens",
    description: "Every token, revoked and expired ones included, without secrets.",
    permissions: ["admin"],
    scope: { by: "tokens" },
    responses: {
      200: {
        description: "All tokens.",
        schema: responseObject({ items: arrayOf(TOKEN_ITEM_SCHEMA, "The tokens, newest first.") }, ["items"]),
      },
    },
    errors: [400, 500],
    example: {
      response: {
        items: [
          {
            id: "tok_01J9Z5",
            label: "ci deploy",
            perms: ["deploy", "read"],
            scopes: ["orders-*"],
            created_at: "2026-01-02T10:00:00.000Z",
            last_used_at: "2026-01-05T08:30:00.000Z",
            expires_at: "2026-02-01T10:00:00.000Z",
            revoked_at: null,
          },
        ],
      },
    },
  }),
  action({
    name: "revokeToken",
    method: "delete",
    path: "/tokens/{id}",
    tag: TAG,
    summary: "Revoke an API token",
    description:
      "The token stops working from the next request that presents it. `revoked` is false when it was already revoked.",
    permissions: ["admin"],
    scope: { by: "tokens" },
    params: strictObject({ id: str("Token id.", { minLength: 1 }) }, ["id"]),
    responses: {
      200: {
        description: "Revoked.",
        schema: responseObject({ revoked: bool("False when it was already revoked.") }, ["revoked"]),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No token with that id." },
    example: { request: { params: { id: "tok_01J9Z5" } }, response: { revoked: true } },
  }),
  action({
    name: "whoami",
    method: "get",
    path: "/whoami",
    tag: TAG,
    extension: true,
    summary: "The caller's identity, permissions and scopes",
    description:
      'Who the credential of this request is (`actor`, with the label people know it by), the permissions it holds and the process-name patterns it reaches (`scopes`, null for every process; docs/auth.md "Scopes"). ' +
      "Any permission admits it: a credential holding none gets 403.",
    permissions: ["worker", "read", "operate", "deploy"],
    scope: { by: "none" },
    responses: {
      200: {
        description: "The caller.",
        schema: responseObject(
          {
            actor: nullable(str("`token:<id>`, a JWT `sub`, or null under `--auth none`.")),
            actor_label: nullable(str("The token's label or the JWT `sub`; null with a null actor.")),
            perms: arrayOf(str("A permission name."), "The permissions the credential holds."),
            scopes: scopePatterns("The process-name patterns the credential reaches; null: every process."),
            auth: str("The server's auth mode: `none` (no credential is read) or `token`.", {
              enum: ["none", "token"],
            }),
          },
          ["actor", "actor_label", "perms", "scopes", "auth"],
          { title: "Whoami" },
        ),
      },
    },
    errors: [400, 500],
    example: {
      response: {
        actor: "token:0193e4a2-7c2b-7d10-8f00-4b6e2a9d1c55",
        actor_label: "orders team admin",
        perms: ["admin"],
        scopes: ["orders-*"],
        auth: "token",
      },
    },
  }),
];
