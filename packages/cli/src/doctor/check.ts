// One line of `harness doctor`'s report, and the report as text or JSON.

/** "ok" ✓: fine; "warn" !: worth a look, a run still works; "fail" ✗: a run or the server would fail. */
export type CheckStatus = "ok" | "warn" | "fail";

/** `remedy`: what to do, given whenever the status is not "ok". */
export type Check = { check: string; status: CheckStatus; detail: string; remedy?: string };

const MARKS: Record<CheckStatus, string> = { ok: "✓", warn: "!", fail: "✗" };

export const ok = (check: string, detail: string): Check => ({ check, status: "ok", detail });
export const warn = (check: string, detail: string, remedy: string): Check => ({ check, status: "warn", detail, remedy });
export const fail = (check: string, detail: string, remedy: string): Check => ({ check, status: "fail", detail, remedy });

/** The checks as the terminal shows them: a mark, the check's name and its detail, the remedy under it. */
export function reportText(checks: readonly Check[]): string {
  return checks.map((c) => `${MARKS[c.status]} ${c.check}: ${c.detail}${c.remedy ? `\n    → ${c.remedy}` : ""}\n`).join("");
}

/** The JSON of --json: the checks in order, each with every field (remedy null when "ok"). */
export function reportJson(checks: readonly Check[]): string {
  return `${JSON.stringify(checks.map((c) => ({ check: c.check, status: c.status, detail: c.detail, remedy: c.remedy ?? null })), null, 2)}\n`;
}
