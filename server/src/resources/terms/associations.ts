// Which extra data an object type's objects carry in the BEdita layout: the type's BEdita 5
// `associations` (`Categories`, `Tags`, `DateRanges`), as the model stores them (objects/model.ts;
// events have DateRanges by default, see docs/decisions.md "BEdita 5 compatibility").
import type { AppContext } from '../../context.js';
import { hasAssociation, type ObjectType } from '../objects/model.js';

export type TermsAssociation = 'Categories' | 'Tags' | 'DateRanges';

export function typeHasAssociation(_ctx: AppContext, type: ObjectType, association: TermsAssociation): boolean {
  return hasAssociation(type, association);
}
