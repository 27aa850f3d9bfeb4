import type { ActionHandlers } from "../http/action-handler.js";
import { bulkHandlers } from "./bulk.js";
import { channelHandlers } from "./channels.js";
import { compatHandlers } from "./compat.js";
import { debugHandlers } from "./debug.js";
import { definitionHandlers } from "./definitions.js";
import { externalTaskHandlers } from "./external-tasks.js";
import { instanceHandlers } from "./instances.js";
import { lifecycleHandlers } from "./lifecycle.js";
import { processDocsHandlers } from "./process-docs.js";
import { scheduleHandlers } from "./schedules.js";
import { subscriptionHandlers } from "./subscriptions.js";
import { hookHandlers } from "./hooks.js";
import { tokenHandlers } from "./tokens.js";
import { upgradeHandlers } from "./upgrade.js";
import { resetHandlers } from "./reset.js";

/** Every implemented action; the registry entries missing here answer 501. */
export const handlers = {
  ...definitionHandlers,
  ...compatHandlers,
  ...channelHandlers,
  ...processDocsHandlers,
  ...instanceHandlers,
  ...lifecycleHandlers,
  ...bulkHandlers,
  ...upgradeHandlers,
  ...resetHandlers,
  ...tokenHandlers,
  ...externalTaskHandlers,
  ...scheduleHandlers,
  ...subscriptionHandlers,
  ...hookHandlers,
  ...debugHandlers,
} satisfies ActionHandlers;
