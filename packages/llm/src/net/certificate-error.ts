// A server certificate this process refuses, or a client certificate a server asks for, said so that
// a user can act on it. Behind a corporate proxy that inspects TLS, or a gateway with a certificate
// of the company's own, the chain ends in a CA that Node does not know: Node's own words ("unable to
// verify the first certificate; … try running Node.js with --use-system-ca") name a flag a user of
// harness never passes. The variables named are those the run's requests honour (tls-env.ts).

/** The codes of a chain that ends in a CA this process does not trust. */
const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
]);

/** The codes of a certificate that is trusted but wrong: expired, for another name, revoked. */
const INVALID = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID", "ERR_TLS_CERT_ALTNAME_INVALID", "CERT_REVOKED", "CERT_SIGNATURE_FAILURE"]);

/** The code of a server that asked for a client certificate and was given none (TLS 1.3; with 1.2
 * a server that refuses the handshake says no more than a handshake failure). */
const CLIENT_CERT_REQUIRED = "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED";

/** A refused certificate: asking again gets the same certificate, so it is not worth a retry. */
export class CertificateError extends Error {
  readonly retryable = false;
}

/** The CertificateError `error` amounts to when it is a TLS certificate failure reaching `host`,
 * else undefined. `extraCaFile`: the NODE_EXTRA_CA_CERTS the request trusted; `proxy`: `host` is
 * the https:// proxy the request went through (its host and port), not the one it was for. */
export function certificateError(error: unknown, host: string, extraCaFile: string | undefined, proxy = false): CertificateError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  const what = proxy ? `the proxy ${host}` : host;
  if (code === CLIENT_CERT_REQUIRED) {
    if (proxy) return new CertificateError(`the proxy ${host} asks for a client certificate: the one of CLAUDE_CODE_CLIENT_CERT is presented to the servers requests are for, not to a proxy`, { cause: error });
    return new CertificateError(`the server ${host} asks for a client certificate and was given none: set CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY to the files (PEM) of yours and its key`, { cause: error });
  }
  if (typeof code !== "string" || !(UNTRUSTED.has(code) || INVALID.has(code))) return undefined;
  const reason = String((error as Error).message).replace(/;\s*if the root CA is installed locally.*$/s, "");
  if (INVALID.has(code)) return new CertificateError(`the TLS certificate of ${what} is not valid (${reason})`, { cause: error });
  const hint = proxy
    ? extraCaFile?.trim()
      ? `NODE_EXTRA_CA_CERTS (${extraCaFile}) does not hold the certificate authority that signed it: name the file (PEM) of the CA that signed the proxy's certificate in NODE_EXTRA_CA_CERTS`
      : "set NODE_EXTRA_CA_CERTS to the file (PEM) of the CA that signed the proxy's certificate"
    : extraCaFile?.trim()
      ? `NODE_EXTRA_CA_CERTS (${extraCaFile}) does not hold the certificate authority that signed it: if a proxy or gateway on your network uses its own, name the file (PEM) of that CA in NODE_EXTRA_CA_CERTS`
      : "if a proxy or gateway on your network uses its own certificate authority, set NODE_EXTRA_CA_CERTS to the file (PEM) of that CA's certificate";
  return new CertificateError(`the TLS certificate of ${what} is not trusted (${reason}): ${hint}`, { cause: error });
}

/** The CertificateError in `error`'s cause chain, if any. */
export function certificateErrorIn(error: unknown): CertificateError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current instanceof CertificateError) return current;
    current = current.cause;
  }
  return undefined;
}
