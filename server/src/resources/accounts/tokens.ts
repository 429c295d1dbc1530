// Single-use account tokens: the uuid of a signup activation or a credential-change mail. Only its
// SHA-256 is stored; it expires after 24 hours; using it marks it used in the same statement, so
// two concurrent uses cannot both succeed.
import crypto from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { sha256 } from '../auth/tokens.js';

export const ACCOUNT_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

export type TokenPurpose = 'activation' | 'change';

/** A new uuid for `userId`; earlier unused ones of the same purpose stop working. */
export async function issueAccountToken(trx: Transaction<Database>, userId: number, purpose: TokenPurpose): Promise<string> {
  const uuid = crypto.randomUUID();
  const now = new Date();
  await trx.deleteFrom('account_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).where('used', 'is', null).execute();
  await trx
    .insertInto('account_tokens')
    .values({
      user_id: userId,
      purpose,
      token_hash: sha256(uuid),
      expires: nowIso(new Date(now.getTime() + ACCOUNT_TOKEN_TTL_MS)),
      used: null,
      created: nowIso(now),
    })
    .execute();
  return uuid;
}

export const invalidUuid = () => badRequest('The uuid is unknown, expired or already used', 'invalid_uuid');

/** Mark the uuid used and return its user; 400 invalid_uuid when unknown, expired or used. */
export async function consumeAccountToken(trx: Transaction<Database>, uuid: unknown, purpose: TokenPurpose): Promise<number> {
  if (typeof uuid !== 'string' || !uuid || uuid.length > 100) throw invalidUuid();
  const row = await trx
    .updateTable('account_tokens')
    .set({ used: nowIso() })
    .where('token_hash', '=', sha256(uuid))
    .where('purpose', '=', purpose)
    .where('used', 'is', null)
    .where('expires', '>', nowIso())
    .returning('user_id')
    .executeTakeFirst();
  if (!row) throw invalidUuid();
  return row.user_id;
}
