// Hooks over the Open Harness API, listed: those a session's runs would have, read from the
// settings files as a run in its workspace reads them (@harness/agent's loadRunSettings: the
// managed, user, project and local files; disableAllHooks and allowManagedHooksOnly as the run
// takes them). Registering, changing and removing them is routes-hooks-write.ts's. A hook's
// command, URL or prompt is shown through the logs' secret-hiding rule (the settings' env values and
// the server's secret-named variables by value, and secrets in a shape that says so): a hook's
// `curl -H "Authorization: Bearer …"` is the settings' author's, not every API user's, to read.
import type { Context } from "hono";
import type { HookMatcherGroup } from "@harness/agent";
import { z } from "zod";
import { parseHooksConfig } from "@harness/agent/hooks-config";
import { hooksRestriction } from "@harness/agent/settings-hooks";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { SessionQuery } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";

export const HookEvent = z.enum(["pre_tool", "post_tool", "stop", "error", "custom"]);
const ListQuery = SessionQuery.extend({ event: HookEvent.optional() });

/** Claude Code's events as the spec's five; every other is "custom" (harness_event names it). */
export const EVENTS: Record<string, z.infer<typeof HookEvent>> = {
  PreToolUse: "pre_tool",
  PostToolUse: "post_tool",
  Stop: "stop",
  PostToolUseFailure: "error",
  StopFailure: "error",
};

/** The spec's event of Claude Code's `name`: one of EVENTS' own keys (never what every object has,
 * such as constructor), else custom. */
export const eventOf = (name: string): z.infer<typeof HookEvent> => (Object.hasOwn(EVENTS, name) ? EVENTS[name]! : "custom");

export type HookShape = {
  id: string;
  event: z.infer<typeof HookEvent>;
  handler: { type: "command"; command: string } | { type: "webhook"; url: string } | { type: "prompt" | "agent"; prompt: string };
  enabled: boolean;
  harness_event: string;
  scope: string;
  matcher?: string;
};

/** A loaded hook's handler as the spec shows it, its secrets hidden by `hide`; none for a callback. */
export function handlerOf(hook: HookMatcherGroup["hooks"][number], hide: (text: string) => string): HookShape["handler"] | undefined {
  if (hook.type === "command") return { type: "command", command: hide(hook.command) };
  if (hook.type === "http") return { type: "webhook", url: hide(hook.url) };
  return hook.type === "callback" ? undefined : { type: hook.type, prompt: hide(hook.prompt) };
}

/** The hooks of the session the query names, in the order the runs merge them (the lowest
 * precedence first). An id is where the hook is: scope, event, group and place in it. */
export async function hooksOf(oh: OpenHarness, c: Context, settings?: SessionSettings): Promise<HookShape[]> {
  const { loaded, hide } = settings ?? (await sessionSettings(oh, c));
  const restricted = hooksRestriction(loaded);
  if (restricted === "all") return [];
  const sources = restricted === "managed" ? loaded.sources.filter((source) => source.scope === "managed") : loaded.sources;
  const hooks: HookShape[] = [];
  for (const source of sources) {
    const { config } = parseHooksConfig(source.settings.hooks, source.path);
    for (const [name, groups] of Object.entries(config)) {
      (groups ?? []).forEach((group, g) => {
        group.hooks.forEach((hook, i) => {
          const handler = handlerOf(hook, hide);
          if (!handler) return;
          hooks.push({
            id: `${source.scope}.${name}.${g}.${i}`,
            event: eventOf(name),
            handler,
            enabled: true,
            harness_event: name,
            scope: source.scope,
            ...(group.matcher !== undefined && group.matcher !== "" && { matcher: group.matcher }),
          });
        });
      });
    }
  }
  return hooks;
}

export function mountHookRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/hooks`,
    handle(async (c) => {
      const { event } = queryOf(c, ListQuery);
      return c.json({ hooks: (await hooksOf(oh, c)).filter((hook) => (event ?? hook.event) === hook.event) });
    }),
  );
  app.get(
    `${H}/hooks/:hookId`,
    handle(async (c) => {
      const id = c.req.param("hookId")!;
      const hook = (await hooksOf(oh, c)).find((h) => h.id === id);
      if (!hook) throw new ApiError(404, "hook_not_found", `no hook "${id}" in the settings the session's runs read`);
      return c.json({ hook });
    }),
  );
}
