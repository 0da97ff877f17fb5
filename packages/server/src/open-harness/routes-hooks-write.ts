// Hooks registered, changed and removed over the Open Harness API, in the settings files of the
// session's project as Claude Code's /hooks edits them: .claude/settings.json (scope "project", the
// default) or .claude/settings.local.json ("local"), in the session's workspace (session_id in the
// query). The next run of the session has the change. A hook's id is the read routes' own
// (`<scope>.<event>.<group>.<hook>`), so a listed hook is changed and removed by it; the user's and
// the managed settings are not written (403). What a run would not load is not written (400).
import path from "node:path";
import type { Context } from "hono";
import type { HookMatcherGroup } from "@harness/agent";
import { z } from "zod";
import { parseHooksConfig } from "@harness/agent/hooks-config";
import { isJsonObject } from "@harness/agent/json-text";
import { hooksRestriction } from "@harness/agent/settings-hooks";
import { bodyOf, check } from "../sessions/api.ts";
import { refuseEchoedSecrets } from "./echoed-secrets.ts";
import { ApiError } from "./errors.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import { groupProblems, loadedPlaces, placeOf, type HookPlace } from "./hook-places.ts";
import { eventOf, handlerOf, HookEvent, hooksOf, type HookShape } from "./routes-hooks.ts";
import { SessionQuery, stillOwned } from "./session-of.ts";
import { sessionSettings, type SessionSettings } from "./session-settings.ts";
import { editJsonFile, inWorkspace } from "./settings-edit.ts";

const text = (what: string) => z.string({ error: `must be a string: ${what}` });
const Handler = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("command"), command: text("the shell command to run") }),
    z.strictObject({ type: z.literal("webhook"), url: text("the http or https URL to POST the event to") }),
    z.strictObject({ type: z.literal("prompt"), prompt: text("what the model is asked") }),
    z.strictObject({ type: z.literal("agent"), prompt: text("what the agent is asked") }),
  ],
  { error: 'must be { "type": "command", "command" }, { "type": "webhook", "url" }, or { "type": "prompt" | "agent", "prompt" }' },
);
const RegisterBody = z.strictObject({
  event: HookEvent,
  handler: Handler,
  enabled: z.boolean().optional(),
  /** Claude Code's event (PreToolUse, SessionStart…): needed for "custom", else taken from `event`. */
  harness_event: z.string().optional(),
  matcher: z.string().optional(),
  scope: z.enum(["project", "local", "user", "managed"]).optional(),
});
const UpdateBody = z.strictObject({ handler: Handler.optional(), enabled: z.boolean().optional() });

/** Claude Code's event for each of the spec's but custom, which names its own. */
const DEFAULT_EVENT: Record<string, string> = { pre_tool: "PreToolUse", post_tool: "PostToolUse", stop: "Stop", error: "PostToolUseFailure" };

type Handler = z.infer<typeof Handler>;

/** A hook of the settings files with `handler`, keeping of `before` (the hook it replaces) what
 * still applies: every key but the handler's when the type stays, else `if`, `timeout` and `once`. */
function hookEntry(handler: Handler, before: Record<string, unknown> = {}): Record<string, unknown> {
  const entry = handler.type === "command" ? { type: "command", command: handler.command } : handler.type === "webhook" ? { type: "http", url: handler.url } : { type: handler.type, prompt: handler.prompt };
  if (before.type === entry.type) return { ...before, ...entry };
  const kept = Object.fromEntries(Object.entries(before).filter(([key]) => key === "if" || key === "timeout" || key === "once"));
  return { ...entry, ...kept };
}

/** What a hook or a handler runs or asks: its command, URL or prompt (which the read routes show
 * with their secrets hidden). */
const handlerText = (hook: Record<string, unknown>) => [hook.command, hook.url, hook.prompt].filter((text) => typeof text === "string").join("\n");

/** 403 for a scope this API does not write, naming its file: where a hook is, or (`registering`)
 * where one was to go. */
function writable(scope: string, operation: string, registering = false): "project" | "local" {
  if (scope === "project" || scope === "local") return scope;
  const whose = scope === "user" ? "the user's settings (~/.claude/settings.json), which are read only over this API: edit them on the server" : scope === "managed" ? "the machine's managed settings, which only their administrator changes" : `the ${scope} settings, which this API does not write`;
  throw new ApiError(403, "forbidden", `${registering ? "hooks are not registered in" : "the hook is in"} ${whose}`, operation);
}

/** The settings file of `scope` as the runs read it, and where it is in the workspace. */
function fileOf(settings: SessionSettings, scope: "project" | "local"): string {
  const file = settings.loaded.sources.find((source) => source.scope === scope)?.path ?? path.join(settings.place.projectRoot, ".claude", scope === "project" ? "settings.json" : "settings.local.json");
  return inWorkspace(settings.place.cwd, file, `the project's settings file ${file}`, settings.place.home);
}

/** The `hooks[event]` list of a settings file's object, refused (409) when the file has something
 * else there: it is left as it is. */
function eventGroups(value: Record<string, unknown>, event: string, file: string): { hooks: Record<string, unknown>; groups: unknown[] } {
  const hooks = value.hooks ?? {};
  if (!isJsonObject(hooks)) throw new ApiError(409, "invalid_settings_file", `${file}: "hooks" is not an object; it was left as it is: mend it first`);
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups)) throw new ApiError(409, "invalid_settings_file", `${file}: "hooks.${event}" is not a list; it was left as it is: mend it first`);
  return { hooks, groups };
}

/** `value` with `groups` as its hooks of `event` (the event's key gone with its last group). */
function withGroups(value: Record<string, unknown>, hooks: Record<string, unknown>, event: string, groups: unknown[]): Record<string, unknown> {
  const { [event]: _old, ...others } = hooks;
  return { ...value, hooks: groups.length > 0 ? { ...hooks, [event]: groups } : others };
}

/** Refused (409) where the project's hooks would not run: nothing is written that runs leave out. */
function refuseRestricted(settings: SessionSettings, operation: string): void {
  const restricted = hooksRestriction(settings.loaded);
  if (restricted === undefined) return;
  const why = restricted === "all" ? "the managed settings say disableAllHooks" : settings.loaded.locks.managedHooksOnly ? "the managed settings say allowManagedHooksOnly" : "the settings say disableAllHooks";
  throw new ApiError(409, "conflict", `the project's hooks do not run: ${why}`, operation);
}

/** The listed hook `id` of the session, with its file's scope, event and numbers (404 when none). */
async function listedHook(oh: OpenHarness, c: Context, settings: SessionSettings, operation: string) {
  const id = c.req.param("hookId")!;
  const hook = (await hooksOf(oh, c, settings)).find((h) => h.id === id);
  if (!hook) throw new ApiError(404, "hook_not_found", `no hook "${id}" in the settings the session's runs read`, operation);
  const [, , group, at] = id.split(".").slice(-4);
  return { hook, scope: writable(hook.scope, operation), event: hook.harness_event, group: Number(group), at: Number(at) };
}

/** Whether the hook at `place` of the file's `groups` of `event` is still `listed`: the same handler
 * and matcher as the read routes show them. Ids are places, and the file may have changed since it
 * was listed (another request's change, an edit by hand): a hook found in the listed one's place is
 * not changed or removed in its stead. */
function stillListed(listed: HookShape, event: string, groups: unknown[], place: HookPlace, hide: (text: string) => string): boolean {
  const group = groups[place.group] as Record<string, unknown>;
  const { config } = parseHooksConfig({ [event]: [{ ...group, hooks: [(group.hooks as unknown[])[place.hook]] }] }, "settings");
  const loaded = (config as Record<string, HookMatcherGroup[] | undefined>)[event]?.[0];
  const hook = loaded?.hooks[0];
  const matcher = loaded?.matcher === "" ? undefined : loaded?.matcher;
  return hook !== undefined && JSON.stringify(handlerOf(hook, hide)) === JSON.stringify(listed.handler) && matcher === listed.matcher;
}

/** The place of the listed hook in the file's `groups` now: 409 when it is not there any more. */
function placeNow(listed: HookShape, event: string, groups: unknown[], group: number, at: number, settings: SessionSettings, file: string, operation: string): HookPlace {
  const place = placeOf(event, groups, group, at);
  if (!place || !stillListed(listed, event, groups, place, settings.hide)) throw new ApiError(409, "conflict", `${file} changed meanwhile: the hook "${listed.id}" is no longer there: list the hooks again`, operation);
  return place;
}

/** The hook of `id` as the read routes show it now. */
async function shown(oh: OpenHarness, c: Context, id: string): Promise<HookShape> {
  const hook = (await hooksOf(oh, c)).find((h) => h.id === id);
  if (!hook) throw new ApiError(409, "conflict", `the hook "${id}" was written, but its settings file changed meanwhile: list the hooks again`);
  return hook;
}

function refuseDisabled(enabled: boolean | undefined, operation: string): void {
  if (enabled === false) throw new ApiError(501, "not_implemented", "enabled: false is not supported: a hook of a settings file has no switch of its own; unregister it, or set disableAllHooks in the settings", operation);
}

export function mountHookWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    `${H}/hooks`,
    handle(async (c) => {
      const operation = "hooks.register";
      const settings = await sessionSettings(oh, c);
      const body = check(RegisterBody, await bodyOf(c));
      refuseDisabled(body.enabled, operation);
      const scope = writable(body.scope ?? "project", operation, true);
      const event = body.harness_event ?? DEFAULT_EVENT[body.event];
      if (event === undefined) throw new ApiError(400, "invalid_request", 'harness_event: name the Claude Code event of a custom hook (SessionStart, UserPromptSubmit, Notification, …)', operation);
      // Named first: an event such as __proto__ is lost on the way through the settings' checks.
      const unknown = parseHooksConfig({ [event]: [] }, "settings").diagnostics[0];
      if (unknown) throw new ApiError(400, "invalid_request", `harness_event: ${unknown.message}`, operation);
      if (eventOf(event) !== body.event) throw new ApiError(400, "invalid_request", `harness_event: ${event} is the event ${eventOf(event)}, not ${body.event}`, operation);
      refuseRestricted(settings, operation);
      const file = fileOf(settings, scope);
      const group = { ...(body.matcher !== undefined && { matcher: body.matcher }), hooks: [hookEntry(body.handler)] };
      const problems = groupProblems(event, group, "hook");
      if (problems) throw new ApiError(400, "invalid_request", `the runs would not load this hook: ${problems}`, operation);
      const { session_id } = queryOf(c, SessionQuery);
      const id = await editJsonFile(settings.place.cwd, file, stillOwned(oh, c, session_id), (value) => {
        const { hooks, groups } = eventGroups(value, event, file);
        return { value: withGroups(value, hooks, event, [...groups, group]), result: `${scope}.${event}.${loadedPlaces(event, groups).length}.0` };
      });
      return c.json({ hook: await shown(oh, c, id) }, 201);
    }),
  );
  app.patch(
    `${H}/hooks/:hookId`,
    handle(async (c) => {
      const operation = "hooks.update";
      const settings = await sessionSettings(oh, c);
      const body = check(UpdateBody, await bodyOf(c));
      refuseDisabled(body.enabled, operation);
      const { hook, scope, event, group, at } = await listedHook(oh, c, settings, operation);
      const handler = body.handler;
      if (!handler) return c.json({ hook });
      const file = fileOf(settings, scope);
      const { session_id } = queryOf(c, SessionQuery);
      await editJsonFile(settings.place.cwd, file, stillOwned(oh, c, session_id), (value) => {
        const { hooks, groups } = eventGroups(value, event, file);
        const place = placeNow(hook, event, groups, group, at, settings, file, operation);
        const old = groups[place.group] as Record<string, unknown>;
        const list = old.hooks as unknown[];
        const before = isJsonObject(list[place.hook]) ? (list[place.hook] as Record<string, unknown>) : {};
        refuseEchoedSecrets(handlerText(before), [handlerText(handler)], settings.hide, `hook ${hook.id}`, operation);
        const entry = hookEntry(handler, before);
        const problems = groupProblems(event, { ...old, hooks: [entry] }, `${file}: hooks.${event}[${place.group}].hooks[${place.hook}]`);
        if (problems) throw new ApiError(400, "invalid_request", `the runs would not load the hook so changed: ${problems}`, operation);
        const changed = { ...old, hooks: list.map((h, i) => (i === place.hook ? entry : h)) };
        return { value: withGroups(value, hooks, event, groups.map((g, i) => (i === place.group ? changed : g))), result: undefined };
      });
      return c.json({ hook: await shown(oh, c, hook.id) });
    }),
  );
  app.delete(
    `${H}/hooks/:hookId`,
    handle(async (c) => {
      const operation = "hooks.unregister";
      const settings = await sessionSettings(oh, c);
      const { hook, scope, event, group, at } = await listedHook(oh, c, settings, operation);
      const file = fileOf(settings, scope);
      const { session_id } = queryOf(c, SessionQuery);
      await editJsonFile(settings.place.cwd, file, stillOwned(oh, c, session_id), (value) => {
        const { hooks, groups } = eventGroups(value, event, file);
        const place = placeNow(hook, event, groups, group, at, settings, file, operation);
        const old = groups[place.group] as Record<string, unknown>;
        const list = (old.hooks as unknown[]).filter((_, i) => i !== place.hook);
        const kept = list.length > 0 ? groups.map((g, i) => (i === place.group ? { ...old, hooks: list } : g)) : groups.filter((_, i) => i !== place.group);
        return { value: withGroups(value, hooks, event, kept), result: undefined };
      });
      return c.body(null, 204);
    }),
  );
}
