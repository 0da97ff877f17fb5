// The HTTP side: health, metrics, sessions, and the token check that guards every route but /healthz
// (and the Open Harness API's health check when it comes without a token).
import { Hono } from "hono";
import { cors } from "hono/cors";
import { crossSiteRefusal, notTheirs, requestToken, tokenMatches, tokenUsers } from "./auth/auth.ts";
import { tokenHolder, type UserTokens } from "./auth/user-tokens.ts";
import { DatabaseLockedError } from "./sqlite/locked.ts";
import { mountSessionsApi, sessionExists, USER_HEADER, type SessionsApiOptions } from "./sessions/api.ts";
import { EXPOSITION_CONTENT_TYPE } from "./metrics/exposition.ts";
import { errorBody, isOpenHarnessPath } from "./open-harness/errors.ts";
import { mountOpenHarness, type OpenHarnessOptions } from "./open-harness/mount.ts";
import { isOpenHealthCheck } from "./open-harness/routes-harnesses.ts";
import type { ServerLog } from "./log/writer.ts";
import type { LogLevel } from "./log/settings.ts";
import { accessLog } from "./access-log.ts";
import { isWebUiRequest, mountWebUi, type WebUiOptions } from "./web-ui.ts";

/** A refusal's body: the Open Harness API's ErrorResponse under /v1, else the Harness `{ error }`. */
function refusal(path: string, code: string, message: string): Record<string, unknown> {
  return isOpenHarnessPath(path) ? errorBody(code, message) : { error: message };
}

/** The methods the app's routes answer at `path` (HEAD with GET), for a 405's Allow header. */
function methodsAt(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const pattern = route.path
      .split("/")
      .map((part) => (part.startsWith(":") ? "[^/]+" : part === "*" ? ".*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    if (new RegExp(`^${pattern}$`).test(path)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods];
}

/** Probes of load balancers, orchestrators and scrapers, which come often and say nothing new. */
const PROBES: ReadonlySet<string> = new Set(["/healthz", "/health", "/metrics"]);

/** An access line's level: debug for the probes and CORS preflights (a browser's, before its
 * request), info for the rest. */
function accessLevel(request: Request, pathname: string): LogLevel {
  const preflight = request.method === "OPTIONS" && request.headers.has("access-control-request-method");
  return PROBES.has(pathname) || isOpenHealthCheck(request.method, pathname) || preflight ? "debug" : "info";
}

/** What GET /health adds to `ok`: counts an operator reads before a restart. */
export type HealthCounts = { sessions: number; clients: number; runs: number };

export function createHttpApp(options: {
  token: string | undefined;
  allowedOrigins?: ReadonlySet<string>;
  sessions?: SessionsApiOptions;
  /** The Open Harness API under /v1 (it needs `sessions` too: it acts through them). */
  openHarness?: Omit<OpenHarnessOptions, "stopping" | "sessionExists">;
  health?: () => HealthCounts;
  /** A token that lets its holder read GET /metrics and nothing else (a guarded server's). */
  metricsToken?: string;
  /** GET /metrics's body, in the Prometheus text format, computed at each scrape. */
  metrics?: () => string;
  /** Tokens bound to one user each (HARNESS_TOKENS_FILE): those in force (token → user), asked at
   * each request. Given, every request needs a token, even while there are none. */
  userTokens?: () => UserTokens;
  /** Receives a line for each request answered (its access line), and one more for each request
   * refused for its token. */
  log?: ServerLog;
  /** Why the server is going away (it is stopping), or undefined while it serves. */
  stopping?: () => string | undefined;
  /** The web UI at GET / and under /ui/ (web-ui.ts), served without a token. */
  webUi?: WebUiOptions;
}): Hono {
  const app = new Hono();
  if (options.log) app.use("*", accessLog(options.log, { userOf: (request) => tokenUsers.get(request), levelOf: accessLevel }));
  const allowed = options.allowedOrigins ?? new Set<string>();
  const userTokens = options.userTokens ?? (() => new Map<string, string>());
  const guarded = options.token !== undefined || options.userTokens !== undefined;
  // A web page the server lets in may read its answers: with a token, any page that holds it (the
  // token travels in a header, never as a cookie); without, the pages the check below lets in.
  // Preflights carry no credentials, so they are answered before the token is asked for.
  const crossOrigin = cors({
    origin: (origin, c) => (guarded || !crossSiteRefusal(c.req.header("host"), origin, allowed) ? origin : null),
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: ["authorization", "content-type", "last-event-id", USER_HEADER],
    exposeHeaders: ["x-execution-id", "content-disposition"],
    maxAge: 600,
  });
  // An OPTIONS that is not a preflight is an ordinary request (answered 405 with Allow below).
  app.use("*", (c, next) => (c.req.method === "OPTIONS" && !c.req.header("access-control-request-method") ? next() : crossOrigin(c, next)));
  // A liveness check for load balancers and orchestrators, which hold no token: it says only that
  // the server answers. /health stays behind the checks below, so that a client can learn from it
  // whether its token is taken. A stopping server answers both 503, as health checks (Kubernetes'
  // readiness probe, nginx's and HAProxy's checks) take a server to stop sending people to.
  const stopping = () => {
    const why = options.stopping?.();
    return why === undefined ? undefined : { ok: false, stopping: true, error: why };
  };
  app.get("/healthz", (c) => {
    const going = stopping();
    return going ? c.json(going, 503) : c.json({ ok: true });
  });
  if (!guarded) {
    app.use("*", async (c, next) => {
      const refused = crossSiteRefusal(c.req.header("host"), c.req.header("origin"), allowed);
      if (refused) return c.json(refusal(new URL(c.req.url).pathname, "forbidden", refused), 403);
      await next();
    });
  } else {
    app.use("*", async (c, next) => {
      const url = new URL(c.req.url);
      // The page and its files hold no secret: the page asks for the token.
      if (options.webUi && isWebUiRequest(c.req.method, url.pathname)) return next();
      const provided = requestToken(c.req.header("authorization"), url);
      const holder = tokenHolder(provided, options.token, userTokens());
      // Compared whatever the route, as every token is: the time taken says nothing of which it is.
      const scraper = options.metricsToken !== undefined && tokenMatches(options.metricsToken, provided);
      if (scraper && !holder && url.pathname === "/metrics" && (c.req.method === "GET" || c.req.method === "HEAD")) return next();
      if (provided === undefined && isOpenHealthCheck(c.req.method, url.pathname)) return next();
      if (!holder) {
        // As a refused WebSocket is: whose client holds a stale token. The path only (a ?token= in
        // the query is the wrong token, but a token still).
        const address = remoteAddress(c.env);
        options.log?.(`refused ${c.req.method} ${url.pathname} from ${address ?? "an unknown address"}: missing or wrong token`, {
          level: "warn",
          msg: "refused a request: missing or wrong token",
          method: c.req.method,
          path: url.pathname,
          address,
          httpStatus: 401,
        });
        c.header("WWW-Authenticate", "Bearer");
        return c.json(refusal(url.pathname, "unauthorized", "missing or wrong token: send Authorization: Bearer <token> or ?token=<token>"), 401);
      }
      if (holder.user !== undefined) tokenUsers.set(c.req.raw, holder.user);
      await next();
    });
  }
  // A client whose WebSocket handshake failed asks here, naming its user, whether the server
  // refuses its token: its WebSocket cannot read the refusal (see the client's handshake-refusal.ts).
  app.get("/health", (c) => {
    const user = c.req.header(USER_HEADER);
    const refused = user === undefined ? undefined : notTheirs(tokenUsers.get(c.req.raw), user);
    if (refused) return c.json({ error: refused }, 403);
    const going = stopping();
    return going ? c.json({ ...going, ...options.health?.() }, 503) : c.json({ ok: true, ...options.health?.() });
  });
  const metrics = options.metrics;
  if (metrics) {
    // The whole server's figures: for whoever holds the shared token, not a person's own.
    app.get("/metrics", (c) => {
      if (tokenUsers.get(c.req.raw) !== undefined) {
        return c.json({ error: "GET /metrics is the whole server's: send the shared token (HARNESS_TOKEN) or the metrics token (HARNESS_METRICS_TOKEN), not a person's own" }, 403);
      }
      return c.body(metrics(), 200, { "content-type": EXPOSITION_CONTENT_TYPE });
    });
  }
  app.get("/ws", (c) => c.json({ error: "GET /ws needs a WebSocket upgrade" }, 426));
  if (options.webUi) mountWebUi(app, { ...options.webUi, tokenRequired: guarded });
  if (options.sessions) mountSessionsApi(app, options.sessions);
  if (options.sessions && options.openHarness) {
    mountOpenHarness(app, { ...options.openHarness, sessionExists: sessionExists(options.sessions), stopping: () => options.stopping?.() });
  }
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allowed = methodsAt(app, path);
    if (allowed.length === 0) return c.json({ error: `not found: ${c.req.method} ${path}` }, 404);
    c.header("Allow", allowed.join(", "));
    return c.json({ error: `${c.req.method} is not allowed on ${path}: use ${allowed.join(", ")}` }, 405);
  });
  app.onError((err, c) => {
    const path = new URL(c.req.url).pathname;
    if (!(err instanceof DatabaseLockedError)) return c.json(refusal(path, "internal_error", err.message), 500);
    // Sent again once the lock is gone, the request goes through.
    c.header("Retry-After", "1");
    return c.json(isOpenHarnessPath(path) ? errorBody("database_locked", err.message) : { error: err.message, code: "database_locked" }, 503);
  });
  return app;
}

/** The client's address, from the Node request @hono/node-server hands the app as its env. */
function remoteAddress(env: unknown): string | undefined {
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
}
