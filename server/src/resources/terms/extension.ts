// Terms of objects (categories, tags, geo tags, date items; written through the legacy layout).
// Shows them in the JSON API: `meta.categories`, `meta.tags`,
// `meta.geo_tags` and `meta.date_items` (read-only there; written through the legacy layout),
// and lets object lists filter by them: `filter[tag]=<names>`, `filter[category]=<names>`.
import type { AppContext } from '../../context.js';
import type { ObjectExtension } from '../objects/extensions.js';
import { loadTerms, termsPart } from './service.js';

export function termsExtension(_ctx: AppContext): ObjectExtension {
  return {
    name: 'legacy-terms',
    types: ['objects'],
    parts: { terms: termsPart },
    async decorate(_req, ctx, items) {
      const terms = await loadTerms(ctx.db, items.map((i) => i.id));
      for (const item of items) {
        const t = terms.get(item.id)!;
        item.resource.meta = {
          ...(item.resource.meta ?? {}),
          categories: t.categories.map(({ name, label }) => ({ name, label })),
          tags: t.tags,
          geo_tags: t.geo_tags,
          date_items: t.date_items,
        };
      }
    },
    filters: {
      /** Objects with any of the tags named (by name, the slug of the label). */
      tag: (values, eb) =>
        eb('objects.id', 'in', eb.selectFrom('object_tags').innerJoin('tags', 'tags.id', 'object_tags.tag_id').select('object_tags.object_id').where('tags.name', 'in', values.length ? values : [''])),
      /** Objects in any of the categories named. */
      category: (values, eb) =>
        eb(
          'objects.id',
          'in',
          eb.selectFrom('object_categories').innerJoin('categories', 'categories.id', 'object_categories.category_id').select('object_categories.object_id').where('categories.name', 'in', values.length ? values : ['']),
        ),
    },
  };
}
