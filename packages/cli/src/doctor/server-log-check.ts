// `harness serve`'s log settings (HARNESS_LOG_FORMAT, _LEVEL, _TIMESTAMPS), each checked alone by
// the server's own reading of them, so that every bad one is named, not only the first.
import { logSettings } from "@harness/server/log";
import { type Check, fail, ok } from "./check.ts";
import type { DoctorContext } from "./context.ts";

const NAMES = ["HARNESS_LOG_FORMAT", "HARNESS_LOG_LEVEL", "HARNESS_LOG_TIMESTAMPS"] as const;

/** ✗ for each bad value; the good ones on one ✓ line, when any is set; nothing when none is. */
export function serverLogChecks(ctx: DoctorContext): Check[] {
  const checks: Check[] = [];
  const good: string[] = [];
  for (const name of NAMES) {
    const given = ctx.io.env[name];
    if (given === undefined || given.trim() === "") continue;
    try {
      logSettings({ [name]: given }, () => false);
      good.push(`${name}=${given.trim().toLowerCase()}`);
    } catch (error) {
      checks.push(fail("server log", (error as Error).message, `mend ${name}, or unset it: harness serve refuses to start with it`));
    }
  }
  if (good.length) checks.push(ok("server log", good.join(", ")));
  return checks;
}
