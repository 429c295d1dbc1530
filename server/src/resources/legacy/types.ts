// Legacy type names: clients name types by their singular ('document'), legacy names ('section',
// 'area' for folders) or Folio's plural names; and which types the legacy layout may write.
// Read from the in-memory model.
import type { AppContext } from '../../context.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { model, typeByName } from '../objects/model.js';
import { FOLDER_TYPE } from './reader.js';

/** Folio type name for a legacy name; 400 for an unknown one. */
export function resolveTypeName(ctx: AppContext, legacyName: string): string {
  if (legacyName === 'section' || legacyName === 'area') return FOLDER_TYPE;
  for (const t of model(ctx).types.values()) {
    if (!t.isAbstract && (t.name === legacyName || t.singular === legacyName)) return t.name;
  }
  throw badRequest(`Unknown object type "${legacyName}"`, 'unknown_object_type');
}

/** 403 unless FOLIO_LEGACY_WRITABLE_TYPES (default: every enabled concrete type but users) allows `typeName`. */
export function assertWritable(ctx: AppContext, typeName: string): void {
  const configured = ctx.config.legacyWritableTypes;
  const allowed = configured
    ? configured.some((n) => {
        try {
          return resolveTypeName(ctx, n) === typeName;
        } catch {
          return n === typeName;
        }
      })
    : typeName !== 'users' && Boolean(typeByName(ctx, typeName)?.enabled);
  if (!allowed) throw forbidden(`Objects of type "${typeName}" cannot be written through the legacy API`, 'type_not_writable');
}
