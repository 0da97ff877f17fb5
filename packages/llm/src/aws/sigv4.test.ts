// The SigV4 signer against AWS's published examples (the Signature Version 4 test suite).
import assert from "node:assert/strict";
import { test } from "node:test";
import { authorization, sha256Hex, signatureHeaders } from "./sigv4.ts";

const EXAMPLE = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const SCOPE = { region: "us-east-1", service: "service", amzDate: "20150830T123600Z" };
const HEADERS = { Host: "example.amazonaws.com", "X-Amz-Date": "20150830T123600Z" };

test("get-vanilla: AWS's published signature", () => {
  const signed = authorization({ method: "GET", url: new URL("https://example.amazonaws.com/"), headers: HEADERS, payloadHash: sha256Hex("") }, EXAMPLE, SCOPE);
  assert.equal(signed, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
});

test("get-vanilla-query-order-key-case: the query is sorted before signing", () => {
  const signed = authorization({ method: "GET", url: new URL("https://example.amazonaws.com/?Param2=value2&Param1=value1"), headers: HEADERS, payloadHash: sha256Hex("") }, EXAMPLE, SCOPE);
  assert.match(signed, /Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500$/);
});

test("a request is signed over host and x-amz-date, and the session token when there is one", () => {
  const url = new URL("https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
  const now = new Date("2025-01-02T03:04:05.678Z");
  const plain = signatureHeaders("POST", url, "{}", EXAMPLE, { region: "us-east-1", service: "bedrock" }, now);
  assert.equal(plain["x-amz-date"], "20250102T030405Z");
  assert.match(plain.authorization, /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20250102\/us-east-1\/bedrock\/aws4_request, SignedHeaders=host;x-amz-date, Signature=[0-9a-f]{64}$/);
  const session = signatureHeaders("POST", url, "{}", { ...EXAMPLE, sessionToken: "tok" }, { region: "us-east-1", service: "bedrock" }, now);
  assert.equal(session["x-amz-security-token"], "tok");
  assert.match(session.authorization, /SignedHeaders=host;x-amz-date;x-amz-security-token,/);
  // The body is signed: another body, another signature.
  assert.notEqual(signatureHeaders("POST", url, "{ }", EXAMPLE, { region: "us-east-1", service: "bedrock" }, now).authorization, plain.authorization);
});
