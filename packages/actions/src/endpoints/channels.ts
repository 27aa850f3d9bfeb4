import type { JsonSchema } from "../action-spec.js";
import { LIST_SORTS, listQuerySchema, pageEnvelopeSchema } from "../pagination.js";
import {
  ACTOR_LABEL,
  arrayOf,
  bool,
  dateTime,
  int,
  nullable,
  processName,
  responseObject,
  str,
  strictObject,
  MAX_VERSION,
} from "../schema.js";
import { action } from "./define.js";

const TAG = "channels";

function channelName(description: string): JsonSchema {
  return str(description, { minLength: 1, maxLength: 128 });
}

export const CHANNEL_ENTRY_SCHEMA: JsonSchema = responseObject(
  {
    channel: str("Channel name."),
    name: str("Process name."),
    version: int("The version the channel points at for this process.", { minimum: 1, maximum: MAX_VERSION }),
    actor: str("Who last moved the pointer."),
    actor_label: ACTOR_LABEL,
    updated_at: dateTime("When the pointer last moved (ISO 8601 UTC)."),
  },
  ["channel", "name", "version"],
  { title: "ChannelEntry" },
);

const POINTER = responseObject(
  {
    channel: str("Channel name."),
    name: str("Process name."),
    version: int("The version it now points at.", { minimum: 1, maximum: MAX_VERSION }),
  },
  ["channel", "name", "version"],
);

const PROMOTED = responseObject(
  {
    name: str("Process name."),
    version: int("The version `to` now points at.", { minimum: 1, maximum: MAX_VERSION }),
    previous: int(
      "The version `to` pointed at before; 0 when the process was not on `to` (as `PUT /definitions/batch` reports it).",
      { minimum: 0 },
    ),
  },
  ["name", "version", "previous"],
);

const STALE_REFERENCE = responseObject(
  {
    name: str("The parent process on the channel."),
    version: int("The parent's version on the channel.", { minimum: 1, maximum: MAX_VERSION }),
    task: str("The parent task that spawns the child."),
    child: str("The child process."),
    pinned_version: int("The child version the parent was registered against.", { minimum: 1, maximum: MAX_VERSION }),
    channel_version: nullable(int("The child's version on the channel; null when the child is not on the channel.")),
  },
  ["name", "version", "task", "child", "pinned_version", "channel_version"],
);

export const channelActions = [
  action({
    name: "listChannels",
    method: "get",
    path: "/channels",
    tag: TAG,
    summary: "List channel pointers",
    description:
      "One row per (channel, process) pointer. Filter to one process with `name`. Sort keys: `name` (channel name, then process name; default, asc), `updated_at`.",
    permissions: ["read"],
    scope: { by: "list" },
    query: listQuerySchema(LIST_SORTS.channels, { name: processName("Only pointers of this process.") }),
    responses: {
      200: {
        description: "A page of channel entries.",
        schema: pageEnvelopeSchema(CHANNEL_ENTRY_SCHEMA, "ChannelPage"),
      },
    },
    errors: [400, 500],
    example: {
      request: { query: { name: "order-fulfilment" } },
      response: {
        items: [
          {
            channel: "production",
            name: "order-fulfilment",
            version: 3,
            actor: "token:01J9Z3",
            actor_label: "ci deploys",
            updated_at: "2026-01-02T10:00:00.000Z",
          },
          {
            channel: "staging",
            name: "order-fulfilment",
            version: 4,
            actor: "token:01J9Z3",
            actor_label: "ci deploys",
            updated_at: "2026-01-03T10:00:00.000Z",
          },
        ],
        page: {
          size: 20,
          items_before: 0,
          items_after: 0,
          sort: "name",
          order: "asc",
          next_cursor: null,
          previous_cursor: null,
        },
      },
    },
  }),
  action({
    name: "setChannel",
    method: "put",
    path: "/channels",
    tag: TAG,
    summary: "Point a channel at a version",
    description:
      "Creates or moves the pointer of `channel` for process `name` to `version`. The version must be registered.",
    permissions: ["deploy"],
    scope: { by: "body-process", field: "name" },
    body: strictObject(
      {
        name: processName("Process name."),
        channel: channelName("Channel name."),
        version: int("A registered version of the process.", { minimum: 1, maximum: MAX_VERSION }),
      },
      ["name", "channel", "version"],
    ),
    responses: { 200: { description: "The pointer as it now is.", schema: POINTER } },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "The process or that version of it is not registered." },
    example: {
      request: { body: { name: "order-fulfilment", channel: "production", version: 3 } },
      response: { channel: "production", name: "order-fulfilment", version: 3 },
    },
  }),
  action({
    name: "deleteChannel",
    method: "delete",
    path: "/channels",
    tag: TAG,
    summary: "Remove a process from a channel",
    description:
      "Deletes the pointer of `channel` for process `name`. `deleted` is false when there was no such pointer.",
    permissions: ["deploy"],
    scope: { by: "body-process", field: "name" },
    body: strictObject({ name: processName("Process name."), channel: channelName("Channel name.") }, [
      "name",
      "channel",
    ]),
    responses: {
      200: {
        description: "Whether a pointer was removed.",
        schema: responseObject({ deleted: bool("False when there was nothing to delete.") }, ["deleted"]),
      },
    },
    errors: [400, 500],
    example: { request: { body: { name: "order-fulfilment", channel: "staging" } }, response: { deleted: true } },
  }),
  action({
    name: "promoteChannel",
    method: "post",
    path: "/channels/promote",
    tag: TAG,
    summary: "Copy pointers from one channel to another",
    description:
      "Points `to` at the versions `from` points at, atomically. With `process`, only that process and every process it references as a child (transitively) are promoted; otherwise every process on `from`. " +
      "Run `POST /definitions/compat` with `{from: {channel: to}, to: {channel: from}}` first to see what running instances would meet.",
    permissions: ["deploy"],
    scope: { by: "body-processes" },
    body: strictObject(
      {
        from: channelName("The source channel."),
        to: channelName("The target channel."),
        process: processName(
          "Scope: promote only this process and the processes it references as children, transitively.",
        ),
      },
      ["from", "to"],
    ),
    responses: {
      200: {
        description: "What moved.",
        schema: responseObject(
          {
            from: str("The source channel."),
            to: str("The target channel."),
            promoted: arrayOf(PROMOTED, "One entry per process copied."),
          },
          ["from", "to", "promoted"],
        ),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "The `from` channel, or `process` on it, does not exist." },
    example: {
      request: { body: { from: "staging", to: "production", process: "order-fulfilment" } },
      response: {
        from: "staging",
        to: "production",
        promoted: [{ name: "order-fulfilment", version: 4, previous: 3 }],
      },
    },
  }),
  action({
    name: "channelStatus",
    method: "post",
    path: "/channels/status",
    tag: TAG,
    summary: "Find stale child references in a channel",
    description:
      "Lists every parent on `channel` whose pinned child version (the child version it was registered against in a batch) differs from the child's version on that channel. " +
      "An empty `items` means the channel is consistent. Fix a stale reference by redeploying the parent through `PUT /definitions/batch` on that channel.",
    permissions: ["read"],
    scope: { by: "list" },
    body: strictObject({ channel: channelName("The channel to inspect.") }, ["channel"]),
    responses: {
      200: {
        description: "The stale references.",
        schema: responseObject({ items: arrayOf(STALE_REFERENCE, "Stale child references; empty when consistent.") }, [
          "items",
        ]),
      },
    },
    errors: [400, 404, 500],
    errorDescriptions: { 404: "No such channel." },
    example: {
      request: { body: { channel: "production" } },
      response: {
        items: [
          {
            name: "order-fulfilment",
            version: 3,
            task: "pack",
            child: "packing",
            pinned_version: 2,
            channel_version: 5,
          },
        ],
      },
    },
  }),
];
