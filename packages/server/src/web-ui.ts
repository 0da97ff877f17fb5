// The web UI (packages/web): the page at GET /, its script and style under /ui/, and what the page
// asks first (GET /ui/config.json: whether the server needs a token, and the user id to offer).
// They hold no secret and are served without a token: the page asks for it. Every answer forbids
// what the page never does (inline scripts, other sites, being framed), and the page's files are
// named by their contents' hash, so browsers keep them for good while the page itself is asked
// again each time.
import type { Context, Hono } from "hono";

/** A file of the UI under /ui/, and the page. */
export type WebUiFile = { contentType: string; body: string };
export type WebUiBundle = { html: string; files: Record<string, WebUiFile> };

export type WebUiOptions = {
  /** The page and its files, built at the first request (and again after a failed build). */
  load(): Promise<WebUiBundle>;
  /** The user id the page offers on a server without a token. */
  defaultUser?: string;
};

/** Paths of the UI: answered without a token. */
export function isWebUiRequest(method: string, path: string): boolean {
  return (method === "GET" || method === "HEAD") && (path === "/" || /^\/ui\/[^/]+$/.test(path));
}

/** A Host header fit to be named in the policy (a name or address and a port, nothing else). */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function securityHeaders(c: Context): void {
  const host = c.req.header("host");
  // 'self' covers ws: and wss: to the same host in current browsers; older ones need them named.
  const sockets = host && HOST.test(host) ? ` ws://${host} wss://${host}` : "";
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'${sockets}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  );
  c.header("X-Content-Type-Options", "nosniff");
  // The page's address may carry ?token= until the page removes it.
  c.header("Referrer-Policy", "no-referrer");
}

export function mountWebUi(app: Hono, options: WebUiOptions & { tokenRequired: boolean }): void {
  let loading: Promise<WebUiBundle> | undefined;
  const bundle = () => {
    loading ??= options.load().catch((error: Error) => {
      loading = undefined;
      throw new Error(`the web UI could not be built: ${error.message}`);
    });
    return loading;
  };
  app.get("/", async (c) => {
    const { html } = await bundle();
    securityHeaders(c);
    c.header("Cache-Control", "no-cache");
    return c.html(html);
  });
  app.get("/ui/config.json", (c) => {
    securityHeaders(c);
    c.header("Cache-Control", "no-store");
    const defaultUser = options.tokenRequired ? undefined : options.defaultUser;
    return c.json({ tokenRequired: options.tokenRequired, ...(defaultUser !== undefined && { defaultUser }) });
  });
  app.get("/ui/:name", async (c) => {
    const { files } = await bundle();
    const name = c.req.param("name");
    // Its own files only: not "constructor" and the like, which every object has.
    const file = Object.hasOwn(files, name) ? files[name] : undefined;
    securityHeaders(c);
    if (!file) return c.json({ error: `not found: ${c.req.method} ${new URL(c.req.url).pathname} (the page names its files; reload it)` }, 404);
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    return c.body(file.body, 200, { "content-type": file.contentType });
  });
}
