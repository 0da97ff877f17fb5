// The query of GET /ws: userId, sessionId and since, each at most once.
import { z } from "zod";
import { describeZodError } from "@harness/protocol";
import { IdSchema, repeatedParameter } from "./ids.ts";

const WsQuerySchema = z.object({
  userId: IdSchema,
  sessionId: IdSchema,
  since: z
    .string()
    .regex(/^\d+$/, { error: "must be a non-negative integer", abort: true })
    .regex(/^\d{1,15}$/, "is larger than any seq (at most 15 digits)")
    .transform(Number)
    .optional(),
});

export type WsQuery = z.infer<typeof WsQuerySchema>;

export function parseWsQuery(url: URL): { ok: true; value: WsQuery } | { ok: false; error: string } {
  const params = url.searchParams;
  for (const name of ["userId", "sessionId", "since"]) {
    const repeated = repeatedParameter(name, params.getAll(name));
    if (repeated) return { ok: false, error: repeated };
  }
  const parsed = WsQuerySchema.safeParse({
    userId: params.get("userId") ?? undefined,
    sessionId: params.get("sessionId") ?? undefined,
    since: params.get("since") ?? undefined,
  });
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: describeZodError(parsed.error) };
}
