import { z } from "zod";
import { parseRule } from "../permissions/parse-rule.ts";
import { PERMISSION_MODES } from "../permissions/types.ts";

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

/** Loose on purpose: the hooks module checks commands, timeouts and event names. */
const hookGroupSchema = z.looseObject({
  matcher: z.string().optional(),
  hooks: z.array(z.unknown()),
});

/** Claude Code's settings keys this harness uses; other keys pass through untouched. */
export const settingsSchema = z.looseObject({
  permissions: permissionsSchema.optional(),
  hooks: z.record(z.string(), z.array(hookGroupSchema)).optional(),
  env: z.record(z.string(), z.string()).optional(),
  model: z.string().optional(),
  mcpServers: z.record(z.string(), z.looseObject({})).optional(),
  enabledMcpjsonServers: stringList.optional(),
  disabledMcpjsonServers: stringList.optional(),
  enableAllProjectMcpServers: z.boolean().optional(),
});
