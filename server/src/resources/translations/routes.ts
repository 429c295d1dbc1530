// /translations (bedita/docs endpoints/translations.rst) and what translations add to objects:
// `relationships.translations`, `GET /{type}/{id}/translations`, and with `lang=<tag>` on any
// object read or list the translation in that language in `included` and in
// `relationships.translations.data`. Every write is a kernel command updating the object.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import { expectedVersion } from '../../http/if-match.js';
import { isPlainObject, resourceInput, resourceUrl, sendList, sendNoContent, sendResource, type Resource } from '../../http/jsonapi.js';
import { pathId } from '../../http/params.js';
import { applyFilters, applySort, parseListQuery, type ListSpec } from '../../http/query.js';
import { readContext, type ReadContext } from '../../http/read-context.js';
import type { RouteDef } from '../../http/router.js';
import type { ObjectExtension, SerializedObject } from '../objects/extensions.js';
import type { Family } from '../family.js';
import { apply } from '../objects/kernel.js';
import { concreteTypeNames, isSubtypeOf, typeByName } from '../objects/model.js';
import { getObjectsByIds, requireObject, SYSTEM, visibleObjects } from '../objects/read.js';
import { serializeObject, serializeObjects } from '../objects/serialize.js';
import { ownerObjectRoutes } from '../objects/owner-routes.js';
import { typeRoute } from '../objects/type-routes.js';
import {
  checkFields,
  checkLang,
  checkStatus,
  readableTranslations,
  serializeTranslation,
  translationsIn,
  translationsPart,
  typeOfRow,
  type TranslationRow,
} from './service.js';

const LIST_SPEC: ListSpec = {
  fields: { id: 'integer', object_id: 'integer', lang: 'string', status: 'string', created: 'date', modified: 'date' },
  special: ['type', 'query'],
  sortable: ['id', 'object_id', 'lang', 'status', 'created', 'modified'],
  defaultSort: 'id',
};
const COLUMNS = {
  id: 'translations.id',
  object_id: 'translations.object_id',
  lang: 'translations.lang',
  status: 'translations.status',
  created: 'translations.created',
  modified: 'translations.modified',
};
const ATTRIBUTES = new Set(['object_id', 'lang', 'status', 'translated_fields']);

export const translationsFamily: Family = {
  name: 'translations',
  kernel: (ctx) => ({ extensions: [translationsExtension(ctx)] }),
  routes: translationsRoutes,
};

/** The translations part of object writes, and `relationships.translations` (with `lang`, the translation) of object reads. */
function translationsExtension(ctx: AppContext): ObjectExtension {
  /** `relationships.translations.data` and the translations in `included`, for `lang`. */
  async function addTranslations(rc: ReadContext, lang: string, items: SerializedObject[], included: Resource[]): Promise<void> {
    const found = await translationsIn(ctx, rc.viewer, items.map((i) => i.id), lang);
    const seen = new Set(included.filter((r) => r.type === 'translations').map((r) => r.id));
    for (const item of items) {
      const t = found.get(item.id);
      item.resource.relationships!.translations.data = t ? [{ type: 'translations', id: String(t.id) }] : [];
      if (t && !seen.has(String(t.id))) {
        seen.add(String(t.id));
        included.push(serializeTranslation(rc, ctx, t, typeByName(ctx, item.type)!.id));
      }
    }
  }
  return {
    name: 'translations',
    types: ['objects'],
    parts: { translations: translationsPart },
    decorate(rc, _ctx, items, included) {
      for (const item of items) {
        const rels = (item.resource.relationships ??= {});
        rels.translations = { links: { related: `${rc.base}/${item.type}/${item.id}/translations`, self: `${rc.base}/${item.type}/${item.id}/relationships/translations` } };
      }
      // Without `lang` nothing is read: no promise.
      if (!rc.lang) return;
      return addTranslations(rc, rc.lang, items, included);
    },
  };
}

function translationsRoutes(ctx: AppContext): RouteDef[] {
  /** A translation the request's reader may read (404 otherwise, as a missing one). */
  async function readable(req: Request): Promise<TranslationRow> {
    const row = await readableTranslations(ctx, req.auth).selectAll('translations').where('translations.id', '=', pathId(req)).executeTakeFirst();
    if (!row) throw notFound(`No translation ${req.params.id}`);
    return row;
  }

  const sendOne = async (req: Request, res: Response, row: TranslationRow, status = 200) => {
    const rc = readContext(req);
    const include = typeof req.query.include === 'string' ? req.query.include.split(',').filter(Boolean) : [];
    if (include.some((i) => i !== 'object')) throw badRequest('"include" takes only "object" here', 'invalid_include');
    const included = include.length ? [(await serializeObject(rc, ctx, await requireObject(ctx, Number(row.object_id), { viewer: req.auth }))).data] : undefined;
    const headers = status === 201 ? { Location: resourceUrl(req, `/translations/${row.id}`) } : undefined;
    // The ETag carries the version of the translation's object: every translation write is an
    // update of it, so If-Match on PATCH or DELETE refuses a save over another writer's (412).
    const owner = await visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).select(['version', 'object_type_id']).where('id', '=', Number(row.object_id)).executeTakeFirstOrThrow();
    sendResource(req, res, serializeTranslation(rc, ctx, row, Number(owner.object_type_id)), { status, headers, included, version: Number(owner.version) });
  };

  const list = async (req: Request, res: Response, objectId?: number) => {
    const q = parseListQuery(req, { ...LIST_SPEC, includes: ['object'] });
    let base = readableTranslations(ctx, req.auth);
    if (objectId !== undefined) base = base.where('translations.object_id', '=', objectId);
    if (q.special.type) {
      const ids: number[] = [];
      for (const name of q.special.type) {
        const t = typeByName(ctx, name);
        if (!t) throw badRequest(`filter[type]: unknown object type "${name}"`, 'invalid_filter');
        for (const c of concreteTypeNames(ctx)) if (isSubtypeOf(ctx, c, t.name)) ids.push(typeByName(ctx, c)!.id);
      }
      base = base.where('objects.object_type_id', 'in', ids.length ? ids : [-1]);
    }
    const words = q.special.query?.[0]?.trim();
    if (words) {
      // BEdita's simple search over translated_fields: every word, anywhere in the fields' text.
      for (const word of words.split(/\s+/).slice(0, 16)) base = base.where('translations.translated_fields', 'like', `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    const filtered = applyFilters(base, q.filters, COLUMNS);
    const count = await filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await applySort(filtered.selectAll('translations').select('objects.object_type_id as object_type_id'), q.sort, COLUMNS, 'translations.id').limit(q.pageSize).offset(q.offset).execute();
    const rc = readContext(req);
    const data = rows.map((r) => serializeTranslation(rc, ctx, r, Number(r.object_type_id)));
    let included: Resource[] | undefined;
    if (q.include.includes('object')) {
      // include=object (BEdita's Manager asks it): the translated objects, as the reader sees them.
      const objects = await getObjectsByIds(ctx, rows.map((r) => Number(r.object_id)), { viewer: req.auth });
      included = (await serializeObjects(rc, ctx, objects)).data;
      const shown = new Map(included.map((o) => [o.id, o]));
      data.forEach((d, i) => {
        const o = shown.get(String(rows[i].object_id));
        d.relationships!.object = { ...d.relationships!.object, data: o ? { id: o.id, type: o.type } : null };
      });
    }
    sendList(req, res, data, { count: Number(count.n), page: q.page, pageSize: q.pageSize }, { included });
  };

  /** The checked attributes of a POST or PATCH. */
  function attributesOf(req: Request, expectId?: number) {
    const { attributes } = resourceInput(req, 'translations', expectId);
    const unknown = Object.keys(attributes).find((k) => !ATTRIBUTES.has(k));
    if (unknown) throw badRequest(`Unknown attribute "${unknown}"`, 'invalid_data');
    return attributes;
  }

  return [
    { method: 'get', path: '/translations', guard: 'anonymous', cache: true, handler: (req, res) => list(req, res) },
    {
      method: 'post',
      path: '/translations',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const a = attributesOf(req);
        const objectKey = a.object_id;
        if ((typeof objectKey !== 'number' && typeof objectKey !== 'string') || !/^\d{1,15}$/.test(String(objectKey))) throw badRequest('"object_id" must be an object id', 'invalid_data');
        const lang = checkLang(a.lang);
        const status = a.status === undefined ? 'draft' : checkStatus(a.status);
        // The object as the writer reads it: 404 as a missing one when hidden.
        const object = await requireObject(ctx, Number(objectKey), { viewer: req.auth });
        const fields = checkFields(typeOfRow(ctx, object.object_type_id), a.translated_fields ?? {});
        const { results } = await apply(ctx, { action: 'update', target: { key: object.id }, actor: req.auth, changes: { parts: { translations: { create: { lang, status, fields } } } } });
        const row = await ctx.db.selectFrom('translations').selectAll().where('id', '=', results.translations as number).executeTakeFirstOrThrow();
        await sendOne(req, res, row, 201);
      },
    },
    { method: 'get', path: '/translations/:id', guard: 'anonymous', cache: true, handler: async (req, res) => sendOne(req, res, await readable(req)) },
    ...ownerObjectRoutes(ctx, 'translations', 'anonymous', readable, true),
    {
      method: 'patch',
      path: '/translations/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const t = await readable(req);
        const a = attributesOf(req, t.id);
        if (a.object_id !== undefined && String(a.object_id) !== String(t.object_id)) throw new ApiError(400, 'invalid_data', 'A translation cannot move to another object');
        if (a.lang !== undefined && a.lang !== t.lang) throw new ApiError(400, 'invalid_data', 'A translation cannot change its language: add one in the other language');
        if (a.translated_fields !== undefined && !isPlainObject(a.translated_fields)) throw badRequest('"translated_fields" must be an object of field → text', 'invalid_data');
        const object = await requireObject(ctx, Number(t.object_id), { viewer: req.auth });
        const fields = a.translated_fields === undefined ? undefined : checkFields(typeOfRow(ctx, object.object_type_id), a.translated_fields);
        const status = a.status === undefined ? undefined : checkStatus(a.status);
        await apply(ctx, { action: 'update', target: { key: object.id }, actor: req.auth, expectedVersion: expectedVersion(req), changes: { parts: { translations: { update: { id: t.id, status, fields } } } } });
        await sendOne(req, res, await ctx.db.selectFrom('translations').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow());
      },
    },
    {
      method: 'delete',
      path: '/translations/:id',
      writes: ['objects'],
      guard: 'user',
      handler: async (req, res) => {
        const t = await readable(req);
        await apply(ctx, { action: 'update', target: { key: Number(t.object_id) }, actor: req.auth, expectedVersion: expectedVersion(req), changes: { parts: { translations: { remove: { id: t.id } } } } });
        sendNoContent(res);
      },
    },
    typeRoute(ctx, {
      method: 'get',
      path: '/:type/:id/translations',
      guard: 'anonymous',
      cache: true,
      handler: async (req, res) => {
        const object = await requireObject(ctx, String(req.params.id), { viewer: req.auth, typeName: String(req.params.type) });
        await list(req, res, object.id);
      },
    }),
  ];
}


