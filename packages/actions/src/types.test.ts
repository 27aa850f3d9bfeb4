import { describe, expectTypeOf, it } from "vitest";
import type { BatonClient } from "./client.js";
import type {
  ActionRequest,
  ActionResponse,
  InstanceStatusView,
  LifecycleResponse,
  ListActionName,
  ListItem,
  RequestArgs,
} from "./types.js";

// These checks run in the lint task (tsc over the tests): a wrong mapping fails to compile.
describe("action types", () => {
  it("types the response of each action", () => {
    expectTypeOf<ActionResponse<"getInstance">>().toEqualTypeOf<InstanceStatusView>();
    expectTypeOf<ActionResponse<"pauseInstance">>().toEqualTypeOf<LifecycleResponse | undefined>();
    expectTypeOf<ListItem<"listDefinitions">["version"]>().toEqualTypeOf<number>();
  });

  it("requires path parameters and required bodies, and makes the rest optional", () => {
    expectTypeOf<ActionRequest<"getInstance">>().toHaveProperty("params");
    expectTypeOf<RequestArgs<"getInstance">>().toEqualTypeOf<[req: ActionRequest<"getInstance">]>();
    expectTypeOf<RequestArgs<"listTokens">>().toEqualTypeOf<[req?: ActionRequest<"listTokens">]>();
    expectTypeOf<RequestArgs<"tick">>().toEqualTypeOf<[req?: ActionRequest<"tick">]>();
    expectTypeOf<RequestArgs<"putDefinition">>().toEqualTypeOf<[req: ActionRequest<"putDefinition">]>();
  });

  it("lists exactly the paginated actions as list actions", () => {
    expectTypeOf<ListActionName>().toEqualTypeOf<
      | "listDefinitions"
      | "listChannels"
      | "listInstances"
      | "listInstanceLogs"
      | "listExternalTasks"
      | "listSchedules"
      | "listSubscriptions"
      | "listDeliveries"
      | "listHooks"
    >();
  });

  it("rejects a call with a missing or mistyped request", () => {
    const typecheckOnly = (client: BatonClient) => {
      // @ts-expect-error params are required
      void client.call("getInstance");
      // @ts-expect-error version is a number
      void client.call("setChannel", { body: { name: "p", channel: "c", version: "3" } });
      // @ts-expect-error not an action
      void client.call("getInstanse", {});
      void client.call("listInstances", { query: { status: ["failed", "raised"], children: true } });
    };
    expectTypeOf(typecheckOnly).toBeFunction();
  });
});
