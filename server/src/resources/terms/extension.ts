// Terms of objects (categories, tags, geo tags, date items) in the JSON API. One store, two layouts:
//  - BEdita's: `attributes.categories`, `attributes.tags` ([{name, label}]) and
//    `attributes.date_ranges` ([{start_date, end_date, params}]) on types associated with them
//    (associations.ts), written by POST/PATCH and /operations (attributes.ts → the `terms` part);
//  - Folio's older one: `meta.categories`, `meta.tags`, `meta.geo_tags`, `meta.date_items`
//    (read-only there; the legacy layout writes them).
// List filters: `filter[categories]`, `filter[tags]` (BEdita's names; `filter[category]`,
// `filter[tag]` as before), `filter[date_ranges][…]`, `filter[geo][center|radius]`, and the sorts
// `date_ranges_{min,max}_{start,end}_date` (list-filters.ts).
import type { AppContext } from '../../context.js';
import type { ObjectExtension, SerializedObject } from '../objects/extensions.js';
import { typeByName } from '../objects/model.js';
import { typeHasAssociation } from './associations.js';
import { claimTermAttributes } from './attributes.js';
import { dateRangeFilter, dateRangeSorts, geoFilter, termFilter } from './list-filters.js';
import { knownTermsInUse, loadTerms, termsInUse, termsPart, type ObjectTerms } from './service.js';

/** Nothing of any kind: shared by every item without terms (serialised, never changed). */
const NO_TERMS: ObjectTerms = Object.freeze({
  categories: Object.freeze([]),
  tags: Object.freeze([]),
  geo_tags: Object.freeze([]),
  date_items: Object.freeze([]),
  date_ranges: Object.freeze([]),
  labelled: Object.freeze({ categories: Object.freeze([]), tags: Object.freeze([]) }),
}) as unknown as ObjectTerms;

/** Each item's terms in BEdita's attributes (where its type has them) and Folio's meta. */
function addTerms(ctx: AppContext, items: SerializedObject[], terms: Map<number, ObjectTerms> | null): void {
  for (const item of items) {
    const t = terms?.get(item.id) ?? NO_TERMS;
    const type = typeByName(ctx, item.type);
    const attributes = item.resource.attributes ?? (item.resource.attributes = {});
    if (type && typeHasAssociation(ctx, type, 'Categories')) attributes.categories = t.labelled.categories;
    if (type && typeHasAssociation(ctx, type, 'Tags')) attributes.tags = t.labelled.tags;
    if (type && typeHasAssociation(ctx, type, 'DateRanges')) attributes.date_ranges = t.date_ranges;
    const meta = item.resource.meta ?? (item.resource.meta = {});
    meta.categories = t.categories.length ? t.categories.map(({ name, label }) => ({ name, label })) : t.categories;
    meta.tags = t.tags;
    meta.geo_tags = t.geo_tags;
    meta.date_items = t.date_items;
  }
}

export function termsExtension(_ctx: AppContext): ObjectExtension {
  return {
    name: 'terms',
    types: ['objects'],
    parts: { terms: termsPart },
    attributeParts: (type, attributes, ctx) => claimTermAttributes(ctx, type, attributes),
    decorate(_rc, ctx, items) {
      // A site without terms (most) reads none: answered at once, no promise.
      if (knownTermsInUse(ctx) === false) return addTerms(ctx, items, null);
      return (async () => addTerms(ctx, items, (await termsInUse(ctx)) ? await loadTerms(ctx.db, items.map((i) => i.id)) : null))();
    },
    filters: {
      /** Objects with any of the tags named (by name, the slug of the label). */
      tag: (values, eb) => termFilter('tags', values, eb),
      /** Objects in any of the categories named. */
      category: (values, eb) => termFilter('categories', values, eb),
      /** BEdita's names for the same filters. */
      tags: (values, eb) => termFilter('tags', values, eb),
      categories: (values, eb) => termFilter('categories', values, eb),
    },
    structuredFilters: { date_ranges: dateRangeFilter, geo: geoFilter },
    sorts: dateRangeSorts,
  };
}
