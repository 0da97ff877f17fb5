// Webhooks over the Open Harness API: register, list and delete (the spec's), and get and update
// (this server's own). A user's webhooks are theirs alone: another's are not found, as ones that
// never were. The secret is shown in the answer to the register only.
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { MAX_WEBHOOKS_PER_USER } from "../sqlite/webhooks.ts";
import type { WebhookRow, WebhookStore } from "../sqlite/webhooks.ts";
import { H, handle, harnessOf, userOfRequest, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { webhookUrlProblem } from "./webhook-url.ts";
import { newSecret, WEBHOOK_EVENTS, webhookShape } from "./webhooks.ts";

export type WebhookOptions = { store: WebhookStore; allowPrivate: boolean };

function schemas(allowPrivate: boolean) {
  const Url = z
    .string()
    .max(2048, "must be at most 2048 characters")
    .superRefine((url, ctx) => {
      const problem = webhookUrlProblem(url, allowPrivate);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
  const Events = z
    .array(z.enum(WEBHOOK_EVENTS, { error: (issue) => `${JSON.stringify(issue.input)} is no event a webhook takes: must be one of ${WEBHOOK_EVENTS.join(", ")}` }))
    .min(1, `must name at least one event (${WEBHOOK_EVENTS.join(", ")})`)
    .transform((events) => [...new Set(events)]);
  const Secret = z.string().regex(/^[\x21-\x7e]{16,256}$/, "must be 16 to 256 printable ASCII characters without spaces");
  return {
    Register: z.strictObject({ url: Url, events: Events, secret: Secret.optional(), enabled: z.boolean().optional() }),
    Update: z.strictObject({ url: Url.optional(), events: Events.optional(), secret: Secret.optional(), enabled: z.boolean().optional() }),
  };
}

export function mountWebhookRoutes(oh: OpenHarness, options: WebhookOptions): void {
  const { app } = oh;
  const { store } = options;
  const { Register, Update } = schemas(options.allowPrivate);

  function own(userId: string, id: string): WebhookRow {
    const row = store.get(userId, id);
    if (!row) throw new ApiError(404, "webhook_not_found", `no webhook "${id}"`);
    return row;
  }

  app.post(
    `${H}/webhooks`,
    handle(async (c) => {
      harnessOf(c);
      const userId = userOfRequest(c);
      const body = check(Register, await bodyOf(c));
      if (store.list(userId).length >= MAX_WEBHOOKS_PER_USER) throw new ApiError(409, "too_many_webhooks", `a user has at most ${MAX_WEBHOOKS_PER_USER} webhooks: delete one first`);
      const row: WebhookRow = { id: crypto.randomUUID(), userId, url: body.url, events: body.events, secret: body.secret ?? newSecret(), enabled: body.enabled ?? true, createdAt: Date.now() };
      store.put(row);
      return c.json({ webhook: { ...webhookShape(row), secret: row.secret } }, 201);
    }),
  );
  app.get(
    `${H}/webhooks`,
    handle((c) => {
      harnessOf(c);
      return c.json({ webhooks: store.list(userOfRequest(c)).map(webhookShape) });
    }),
  );
  app.get(
    `${H}/webhooks/:webhookId`,
    handle((c) => {
      harnessOf(c);
      return c.json({ webhook: webhookShape(own(userOfRequest(c), c.req.param("webhookId")!)) });
    }),
  );
  app.patch(
    `${H}/webhooks/:webhookId`,
    handle(async (c) => {
      harnessOf(c);
      const row = own(userOfRequest(c), c.req.param("webhookId")!);
      const body = check(Update, await bodyOf(c));
      const updated: WebhookRow = { ...row, ...(body.url !== undefined && { url: body.url }), ...(body.events && { events: body.events }), ...(body.secret !== undefined && { secret: body.secret }), ...(body.enabled !== undefined && { enabled: body.enabled }) };
      store.put(updated);
      return c.json({ webhook: webhookShape(updated) });
    }),
  );
  app.delete(
    `${H}/webhooks/:webhookId`,
    handle((c) => {
      harnessOf(c);
      const id = c.req.param("webhookId")!;
      if (!store.delete(userOfRequest(c), id)) throw new ApiError(404, "webhook_not_found", `no webhook "${id}"`);
      return c.body(null, 204);
    }),
  );
}
