// Legacy type names: clients name types by their singular ('document'), legacy names ('section',
// 'area' for folders) or Folio's plural names; and which types the legacy layout may write.
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { FOLDER_TYPE } from './reader.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Folio type name for a legacy name; 400 for an unknown one. */
export async function resolveTypeName(db: Db, legacyName: string): Promise<string> {
  if (legacyName === 'section' || legacyName === 'area') return FOLDER_TYPE;
  const row = await db
    .selectFrom('object_types')
    .select(['name'])
    .where((eb) => eb.or([eb('name', '=', legacyName), eb('singular', '=', legacyName)]))
    .where('is_abstract', '=', false)
    .executeTakeFirst();
  if (!row) throw badRequest(`Unknown object type "${legacyName}"`, 'unknown_object_type');
  return row.name;
}

/** 403 unless FOLIO_LEGACY_WRITABLE_TYPES (default: every concrete type but users) allows `typeName`. */
export async function assertWritable(ctx: AppContext, typeName: string, db: Db = ctx.db): Promise<void> {
  const configured = ctx.config.legacyWritableTypes;
  let allowed: boolean;
  if (configured) {
    const resolved = await Promise.all(configured.map((n) => resolveTypeName(db, n).catch(() => n)));
    allowed = resolved.includes(typeName);
  } else {
    const type = await db.selectFrom('object_types').select(['enabled']).where('name', '=', typeName).executeTakeFirst();
    allowed = typeName !== 'users' && Boolean(type?.enabled);
  }
  if (!allowed) throw forbidden(`Objects of type "${typeName}" cannot be written through the legacy API`, 'type_not_writable');
}
