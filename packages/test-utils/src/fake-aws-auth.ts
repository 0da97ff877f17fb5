// The AWS services that turn a sign-in into keys, on 127.0.0.1, for Bedrock through SSO profiles
// and assumed roles without AWS: the IAM Identity Center portal (GET /federation/credentials with
// the x-amz-sso_bearer_token header, answering JSON as the portal does) and STS's AssumeRole (a
// SigV4-signed form POST to /, answering XML), and STS's AssumeRoleWithWebIdentity (the same POST
// unsigned, carrying an OIDC token as EKS and GitHub Actions hand out). Point AWS_ENDPOINT_URL_SSO
// and AWS_ENDPOINT_URL_STS at `url`. The keys any hands out may sign the next AssumeRole, so roles
// can be chained.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { FAKE_AWS_KEYS, type FakeAwsKeys, signatureProblem } from "./fake-bedrock-wire.ts";

export type FakeAwsAuthOptions = {
  /** The access token of `aws sso login` that the portal accepts. */
  ssoAccessToken: string;
  /** The keys handed out: by "<account id>/<role name>" for the portal, by role ARN for STS. */
  roles: Record<string, FakeAwsKeys>;
  /** Keys that may call AssumeRole besides those handed out. Default [FAKE_AWS_KEYS]. */
  callers?: readonly FakeAwsKeys[];
  /** The web identity tokens AssumeRoleWithWebIdentity accepts. Default none. */
  webIdentityTokens?: readonly string[];
  /** How long the keys handed out last. Default an hour. */
  lifetimeMs?: number;
};

export type FakeAwsAuthRequest =
  | { service: "sso"; accountId: string; roleName: string; token: string }
  /** `signedBy` and `region` are "" for an unsigned request (AssumeRoleWithWebIdentity). */
  | { service: "sts"; form: Record<string, string>; signedBy: string; region: string };

export type FakeAwsAuth = {
  url: string;
  /** Every request answered with keys or refused, in arrival order. */
  requests: FakeAwsAuthRequest[];
  close(): Promise<void>;
};

export async function startFakeAwsAuth(options: FakeAwsAuthOptions): Promise<FakeAwsAuth> {
  const callers: FakeAwsKeys[] = [...(options.callers ?? [FAKE_AWS_KEYS])];
  const lifetimeMs = options.lifetimeMs ?? 3600_000;
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const fake: FakeAwsAuth = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", fake.url);
    if (req.method === "GET" && url.pathname === "/federation/credentials") return portal(req, url, res);
    if (req.method === "POST" && url.pathname === "/") return sts(req, body, res);
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: `no route for ${req.method} ${url.pathname}` }));
  }

  function portal(req: IncomingMessage, url: URL, res: ServerResponse): void {
    const accountId = url.searchParams.get("account_id") ?? "";
    const roleName = url.searchParams.get("role_name") ?? "";
    const token = String(req.headers["x-amz-sso_bearer_token"] ?? "");
    fake.requests.push({ service: "sso", accountId, roleName, token });
    const refuse = (status: number, type: string, message: string): void => {
      res.writeHead(status, { "content-type": "application/json", "x-amzn-errortype": type }).end(JSON.stringify({ message }));
    };
    if (token !== options.ssoAccessToken) return refuse(401, "UnauthorizedException", "Session token not found or invalid");
    const keys = options.roles[`${accountId}/${roleName}`];
    if (!keys) return refuse(403, "ForbiddenException", "No access");
    callers.push(keys);
    const roleCredentials = { ...keys, expiration: Date.now() + lifetimeMs };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ roleCredentials }));
  }

  function sts(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const form = Object.fromEntries(new URLSearchParams(body.toString("utf8")));
    const scope = /Credential=([^/]+)\/\d{8}\/([^/]+)\//.exec(String(req.headers.authorization ?? ""));
    fake.requests.push({ service: "sts", form, signedBy: scope?.[1] ?? "", region: scope?.[2] ?? "" });
    const refuse = (status: number, code: string, message: string): void => {
      res.writeHead(status, { "content-type": "text/xml" }).end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>fake</RequestId></ErrorResponse>`);
    };
    if (form.Action === "AssumeRoleWithWebIdentity" && form.Version === "2011-06-15") return webIdentity(form, refuse, res);
    const problem = signatureProblem("POST", req.url ?? "/", req.headers, body, callers, "sts");
    if (problem) return refuse(403, problem.startsWith("The security token") ? "InvalidClientTokenId" : "SignatureDoesNotMatch", problem);
    if (form.Action !== "AssumeRole" || form.Version !== "2011-06-15") return refuse(400, "InvalidAction", `Could not find operation ${form.Action} for version ${form.Version}`);
    const keys = options.roles[form.RoleArn ?? ""];
    if (!keys) return refuse(403, "AccessDenied", `User: ${scope?.[1]} is not authorized to perform: sts:AssumeRole on resource: ${form.RoleArn}`);
    handOut("AssumeRole", form, keys, res);
  }

  /** Unsigned: the token is the proof, and its role must trust it. */
  function webIdentity(form: Record<string, string>, refuse: (status: number, code: string, message: string) => void, res: ServerResponse): void {
    if (!form.RoleSessionName) return refuse(400, "ValidationError", "1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null");
    if (!(options.webIdentityTokens ?? []).includes(form.WebIdentityToken ?? "")) return refuse(400, "InvalidIdentityToken", "The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.");
    const keys = options.roles[form.RoleArn ?? ""];
    if (!keys) return refuse(403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity");
    handOut("AssumeRoleWithWebIdentity", form, keys, res);
  }

  function handOut(action: string, form: Record<string, string>, keys: FakeAwsKeys, res: ServerResponse): void {
    callers.push(keys);
    const expiration = new Date(Date.now() + lifetimeMs).toISOString();
    res.writeHead(200, { "content-type": "text/xml" }).end(
      `<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><${action}Result><AssumedRoleUser><Arn>${xml(form.RoleArn ?? "")}/${xml(form.RoleSessionName ?? "")}</Arn></AssumedRoleUser><Credentials><AccessKeyId>${xml(keys.accessKeyId)}</AccessKeyId><SecretAccessKey>${xml(keys.secretAccessKey)}</SecretAccessKey><SessionToken>${xml(keys.sessionToken ?? "")}</SessionToken><Expiration>${expiration}</Expiration></Credentials></${action}Result><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></${action}Response>`,
    );
  }
  return fake;
}

function xml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
