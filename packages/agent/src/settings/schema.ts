import { z } from "zod";
import { ENV_NAME_RULE, isEnvName } from "../env/names.ts";
import { describeValue } from "./describe-value.ts";
import { parseRule } from "../permissions/parse-rule.ts";
import { PERMISSION_MODES } from "../permissions/types.ts";
import { sandboxSettingsSchema } from "../sandbox/settings.ts";
import { autoMemoryDirectoryProblem } from "../context/auto-memory.ts";
import { declaredSource } from "../plugins/declared-marketplaces.ts";

const ruleString = z.string().superRefine((text, ctx) => {
  const parsed = parseRule(text);
  if ("error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
});

const stringList = z.array(z.string());
const ruleList = z.array(ruleString);

const permissionsSchema = z.looseObject({
  allow: ruleList.optional(),
  ask: ruleList.optional(),
  deny: ruleList.optional(),
  defaultMode: z.enum(PERMISSION_MODES).optional(),
  additionalDirectories: stringList.optional(),
});

/** Loose on purpose: the hooks module checks commands, timeouts and event names. A group whose
 * matcher or hook list is wrong is dropped whole, with one message: without its matcher it would
 * run for every tool. */
const hookGroupSchema = z.looseObject({ matcher: z.unknown().optional(), hooks: z.unknown().optional() }).superRefine((group, ctx) => {
  if (group.matcher !== undefined && typeof group.matcher !== "string") {
    ctx.addIssue({ code: "custom", message: `"matcher" must be a string, got ${describeValue(group.matcher)}; the group is left out` });
  } else if (!Array.isArray(group.hooks)) {
    ctx.addIssue({ code: "custom", message: `"hooks" must be a list of hooks, got ${describeValue(group.hooks)}; the group is left out` });
  }
});

/** No program can be given a variable whose name holds "=" or a NUL, or whose value holds a NUL. */
const envSchema = z
  .record(z.string(), z.string().refine((value) => !value.includes("\0"), "an environment variable's value must not hold a NUL character"))
  .superRefine((env, ctx) => {
    for (const name of Object.keys(env)) {
      if (!isEnvName(name)) ctx.addIssue({ code: "custom", path: [name], message: `an environment variable's name ${ENV_NAME_RULE}` });
    }
  });

/** A command run through the shell (/bin/sh -c). */
const shellCommand = z.string().refine((command) => command.trim() !== "", "the command must not be empty");

/** A line at the bottom of a chat at a terminal, printed by `command` (run through the shell). */
const statusLineSchema = z.looseObject({
  type: z.literal("command"),
  command: z.string().refine((command) => command.trim() !== "", "the command must not be empty"),
  padding: z.number().int().nonnegative().max(80).optional(),
  /** Seconds between runs besides those a change brings (a clock, a branch that changes outside). */
  refreshInterval: z.number().int().min(1).optional(),
});

/** Marketplaces a repository declares (see declared-marketplaces.ts): one that cannot be added is
 * left out, named with what is wrong. */
const extraKnownMarketplacesSchema = z.record(z.string(), z.unknown()).superRefine((entries, ctx) => {
  for (const [name, entry] of Object.entries(entries)) {
    const read = declaredSource(name, entry);
    if ("problem" in read) ctx.addIssue({ code: "custom", path: [name], message: `${read.problem}; the marketplace is left out` });
  }
});

/** Claude Code's settings keys this harness uses; other keys pass through untouched. */
export const settingsSchema = z.looseObject({
  permissions: permissionsSchema.optional(),
  hooks: z.record(z.string(), z.array(hookGroupSchema)).optional(),
  env: envSchema.optional(),
  model: z.string().optional(),
  outputStyle: z.string().optional(),
  agent: z.string().optional(),
  alwaysThinkingEnabled: z.boolean().optional(),
  apiKeyHelper: z.string().optional(),
  awsCredentialExport: shellCommand.optional(),
  awsAuthRefresh: shellCommand.optional(),
  mcpServers: z.record(z.string(), z.looseObject({})).optional(),
  enabledMcpjsonServers: stringList.optional(),
  disabledMcpjsonServers: stringList.optional(),
  enableAllProjectMcpServers: z.boolean().optional(),
  sandbox: sandboxSettingsSchema.optional(),
  autoCompactEnabled: z.boolean().optional(),
  claudeMdExcludes: stringList.optional(),
  autoMemoryEnabled: z.boolean().optional(),
  autoMemoryDirectory: z
    .string()
    .superRefine((dir, ctx) => {
      const problem = autoMemoryDirectoryProblem(dir);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  disableSkillShellExecution: z.boolean().optional(),
  statusLine: statusLineSchema.optional(),
  extraKnownMarketplaces: extraKnownMarketplacesSchema.optional(),
  availableModels: z.array(z.string().refine((name) => name.trim() !== "", "a model name must not be empty")).optional(),
});
