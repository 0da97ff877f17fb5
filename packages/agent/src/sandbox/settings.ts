// The `sandbox` key of the settings files, in Claude Code's shape. Bash commands run inside an OS
// sandbox (bubblewrap on Linux) that lets them write only the working directories and read what a
// deny list does not hide, and reach only the network domains allowed.
import { z } from "zod";

/** A host name, or `*.` and a host name (every subdomain of it). */
const DOMAIN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

const domainList = z.array(z.string().regex(DOMAIN, "must be a host name such as example.com or *.example.com, without a scheme, port or path"));
const pathList = z.array(z.string().min(1, "must not be empty").refine((p) => !p.includes("\0"), "must not hold a NUL character"));

export const sandboxSettingsSchema = z.looseObject({
  enabled: z.boolean().optional(),
  /** When the sandbox cannot start here: true refuses to run commands, false (default) runs them
   * outside it, through the usual permission checks. */
  failIfUnavailable: z.boolean().optional(),
  /** Default true: a command that runs in the sandbox needs no approval (deny and ask rules still apply). */
  autoAllowBashIfSandboxed: z.boolean().optional(),
  /** Default true: a Bash call may ask to run outside the sandbox (dangerouslyDisableSandbox),
   * which then needs approval like any command. */
  allowUnsandboxedCommands: z.boolean().optional(),
  /** Commands that always run outside the sandbox: a command name (`docker`) or a prefix (`docker compose`). */
  excludedCommands: z.array(z.string().min(1, "must not be empty")).optional(),
  network: z
    .looseObject({
      allowedDomains: domainList.optional(),
      deniedDomains: domainList.optional(),
      allowUnixSockets: pathList.optional(),
      allowAllUnixSockets: z.boolean().optional(),
      allowLocalBinding: z.boolean().optional(),
    })
    .optional(),
  filesystem: z
    .looseObject({
      allowWrite: pathList.optional(),
      denyWrite: pathList.optional(),
      denyRead: pathList.optional(),
    })
    .optional(),
});

export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;
