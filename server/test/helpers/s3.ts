// An S3-compatible server on loopback for the storage tests: s3rver on 127.0.0.1, a free port and
// a temp folder, with one bucket made; plus an S3 client on it to look into the bucket.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** s3rver's fixed credentials. */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestBucket {
  endpoint: string;
  bucket: string;
  /** Environment of a Folio server storing in this bucket (below `prefix` when given). */
  env(prefix?: string): Record<string, string>;
  /** Every key in the bucket, sorted. */
  keys(prefix?: string): Promise<string[]>;
  client: S3Client;
  close(): Promise<void>;
}

export async function startS3(bucket = 'folio-test'): Promise<TestBucket> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    client,
    env: (prefix = '') => ({
      FOLIO_STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&path_style=1`,
      AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    }),
    async keys(prefix = '') {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) out.push(o.Key!);
        token = page.NextContinuationToken;
      } while (token);
      return out.sort();
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Put `body` at `key` (tests that plant or replace objects by hand). */
export async function putObject(b: TestBucket, key: string, body: Buffer): Promise<void> {
  await b.client.send(new PutObjectCommand({ Bucket: b.bucket, Key: key, Body: body }));
}

export async function deleteObject(b: TestBucket, key: string): Promise<void> {
  await b.client.send(new DeleteObjectCommand({ Bucket: b.bucket, Key: key }));
}
