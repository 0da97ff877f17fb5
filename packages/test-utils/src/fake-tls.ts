// The fakes behind TLS, as a model endpoint or a corporate gateway serves them: a TLS listener on
// 127.0.0.1 whose certificate (for localhost, model.test and 127.0.0.1) is signed by a test CA the
// client does not trust unless told to (NODE_EXTRA_CA_CERTS=TEST_CA_FILE). Each connection is
// decrypted and piped to the plain fake, so only the listener differs: requests, replies and
// recording are the fake's own. Asked to, the listener also demands a client certificate signed by
// the test client CA (mutual TLS, as some corporate gateways do): TEST_CLIENT_CERT_FILE is one.
import { readFileSync } from "node:fs";
import { connect, type AddressInfo, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { createServer } from "node:tls";
import { startFakeAnthropic } from "./fake-anthropic.ts";
import type { FakeAnthropic, FakeAnthropicOptions } from "./fake-anthropic-types.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));

/** The test CA's certificate (PEM): the file to name in NODE_EXTRA_CA_CERTS. */
export const TEST_CA_FILE = fixture("ca.pem");

/** A client certificate (PEM) the listeners asked for one accept, and its key, plain and encrypted
 * with TEST_CLIENT_KEY_PASSPHRASE. */
export const TEST_CLIENT_CERT_FILE = fixture("client.pem");
export const TEST_CLIENT_KEY_FILE = fixture("client-key.pem");
export const TEST_CLIENT_KEY_ENCRYPTED_FILE = fixture("client-key-encrypted.pem");
export const TEST_CLIENT_KEY_PASSPHRASE = "test-passphrase";

export type TlsFrontOptions = {
  /** Refuse, at the handshake, a client without a certificate signed by the test client CA. */
  requireClientCert?: boolean;
};

export type TlsFront = {
  /** The TLS port on 127.0.0.1. */
  port: number;
  close(): Promise<void>;
};

/** A TLS listener that serves the plain HTTP server at `origin` (http://127.0.0.1:PORT). */
export async function startTlsFront(origin: string, options: TlsFrontOptions = {}): Promise<TlsFront> {
  const target = new URL(origin);
  const sockets = new Set<Socket>();
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  const clientCert = options.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: readFileSync(fixture("client-ca.pem")) } : {};
  const server = createServer({ key: readFileSync(fixture("localhost-key.pem")), cert: readFileSync(fixture("localhost.pem")), ...clientCert }, (secure) => {
    keep(secure);
    const plain = connect(Number(target.port), target.hostname);
    keep(plain);
    secure.pipe(plain).pipe(secure);
    plain.on("error", () => secure.destroy());
    secure.on("error", () => plain.destroy());
  });
  // A client that refuses the certificate ends the handshake: nothing to do but forget the socket.
  server.on("tlsClientError", () => {});
  server.on("connection", keep);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** startFakeAnthropic behind TLS: `url` is https://localhost:PORT. */
export async function startFakeAnthropicTls(options: FakeAnthropicOptions = {}, tls: TlsFrontOptions = {}): Promise<FakeAnthropic> {
  const fake = await startFakeAnthropic(options);
  const front = await startTlsFront(fake.url, tls);
  return {
    ...fake,
    url: `https://localhost:${front.port}`,
    close: async () => {
      await front.close();
      await fake.close();
    },
  };
}
