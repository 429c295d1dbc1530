// Opens the configured storage. The S3 client (and the AWS SDK behind it) is imported only here and
// only for an s3:// storage, so the desktop default neither loads nor pays for it.
import type { StorageConfig } from '../config.js';
import { LocalStorage } from './local-storage.js';
import type { Storage, StorageOptions } from './storage.js';

export async function openStorage(config: StorageConfig, options: StorageOptions): Promise<Storage> {
  if (config.kind === 'local') return new LocalStorage(options);
  const { S3Storage } = await import('./s3-storage.js');
  return new S3Storage(config, options);
}
