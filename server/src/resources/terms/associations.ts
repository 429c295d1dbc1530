// Which extra data an object type's objects carry in the BEdita layout (BEdita 5's object type
// `associations`: `Categories`, `Tags`, `DateRanges`). A type that declares `associations` says
// it; otherwise the defaults below apply (docs/decisions.md, "Terms").
import type { AppContext } from '../../context.js';
import type { ObjectType } from '../objects/model.js';

export type TermsAssociation = 'Categories' | 'Tags' | 'DateRanges';

/**
 * Defaults for types that declare none: BEdita 5 gives `events` its `DateRanges` (migration
 * 20170309100413_AddAssociations); Folio's legacy layout has always let every built-in type but
 * users carry categories and tags, so those built-in types keep them in the JSON API too.
 */
function defaultAssociations(type: ObjectType): TermsAssociation[] {
  const out: TermsAssociation[] = [];
  if (type.coreType && !type.lineage.includes('users')) out.push('Categories', 'Tags');
  if (type.lineage.includes('events')) out.push('DateRanges');
  return out;
}

export function typeHasAssociation(_ctx: AppContext, type: ObjectType, association: TermsAssociation): boolean {
  const declared = (type as ObjectType & { associations?: string[] | null }).associations;
  return (declared ?? defaultAssociations(type)).includes(association);
}
