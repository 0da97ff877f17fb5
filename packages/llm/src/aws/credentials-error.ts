// The failure of every way of finding credentials for Amazon Bedrock, in its own module so that the
// ways (the AWS files, credential commands) and their caller share it without importing each other.

/** No credentials for Bedrock could be found; it fails the same way again. */
export class AwsCredentialsError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = "AwsCredentialsError";
  }
}
