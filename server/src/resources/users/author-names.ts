// `author_names=1` on any read of objects: each object's `meta.created_by_name` and
// `meta.modified_by_name` (usernames), so a list can answer "whose?" in the same response. Only
// for signed-in users (as an object's history names its writers to whoever may read it); the ids
// are already in `meta.created_by` / `meta.modified_by`. One query per response.
import type { AppContext } from '../../context.js';
import type { Resource } from '../../http/jsonapi.js';
import type { ObjectExtension, SerializedObject } from '../objects/extensions.js';
import { writerNames } from '../history/service.js';

export const authorNamesExtension: ObjectExtension = {
  name: 'author-names',
  types: ['objects'],
  decorate(rc, ctx, items, included) {
    const asked = rc.query.author_names;
    if (rc.viewer.userId === null || !(asked === '1' || asked === 'true')) return;
    return addNames(ctx, items, included);
  },
};

/** Each answered object's writers by name: one query for the whole response. */
async function addNames(ctx: AppContext, items: SerializedObject[], included: Resource[]): Promise<void> {
  const metas = [...items.map((i) => i.resource), ...included].map((r) => (r.meta ??= {}));
  const ids = metas.flatMap((m) => [m.created_by, m.modified_by]).filter((id): id is number => typeof id === 'number');
  const names = await writerNames(ctx.db, ids.map((user_id) => ({ user_id })));
  for (const meta of metas) {
    if ('created_by' in meta) meta.created_by_name = typeof meta.created_by === 'number' ? (names.get(meta.created_by) ?? null) : null;
    if ('modified_by' in meta) meta.modified_by_name = typeof meta.modified_by === 'number' ? (names.get(meta.modified_by) ?? null) : null;
  }
}
