// Media objects (images, files, audio, videos and their sub-types) as the objects family serves
// them, extended here: their streams in relationships.streams.data and `included`, the main
// file's url in meta.media_url; trash keeps the files, permanent delete removes them.
import type { AppContext } from '../../context.js';
import { relationshipLinks } from '../../http/jsonapi.js';
import { registerObjectExtension } from '../objects/extensions.js';
import { downloadPath, serializeStream } from './serialize.js';
import type { StreamService } from './service.js';
import { baseUrl } from '../../http/links.js';

export function registerMediaObjects(ctx: AppContext, streams: StreamService): void {
  registerObjectExtension(ctx, {
    name: 'media-streams',
    types: ['media'],
    async decorate(req, _ctx, items, included) {
      const byObject = await streams.streamsOfObjects(items.map((i) => i.id));
      const seen = new Set(included.filter((r) => r.type === 'streams').map((r) => r.id));
      for (const item of items) {
        const list = byObject.get(item.id) ?? [];
        const r = item.resource;
        const rel = r.relationships?.streams ?? relationshipLinks(req, `/${item.type}/${item.id}`, 'streams');
        rel.data = list.map((s) => ({ id: s.uuid, type: 'streams' }));
        r.relationships = { ...(r.relationships ?? {}), streams: rel };
        r.meta = { ...(r.meta ?? {}), media_url: list.length ? baseUrl(req) + downloadPath(list[0].uuid) : null };
        for (const s of list) {
          if (seen.has(s.uuid)) continue;
          seen.add(s.uuid);
          included.push(serializeStream(req, s));
        }
      }
    },
    onPurge: (trx, ids) => streams.onPurge(trx, ids),
    afterPurge: (ids) => streams.afterPurge(ids),
  });
}
