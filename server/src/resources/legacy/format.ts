// The legacy object: Folio's object row mapped to the legacy field set, with categories, tags,
// geo tags, date items, relation counts, children counts (sections and the publication) and the
// file fields of media. Every field is present; what Folio has no source for is null or empty.
import type { Request } from 'express';
import { toIso } from '../../db/time.js';
import { baseUrl } from '../../http/links.js';
import { childrenCounts, FOLDER_TYPE, relationCounts, type ObjectRow, type Reader } from './reader.js';
import { model, typeById, visibleProperties } from '../objects/model.js';
import { mediaRootOf } from '../streams/media-types.js';
import { loadTerms } from '../terms/service.js';
import { shownFields, translationsOf } from '../translations/service.js';

/** Legacy text fields Folio has no core column for: filled from a custom property of the same name. */
const LEGACY_TEXT = ['subject', 'abstract', 'rights', 'license', 'creator', 'publisher', 'note', 'comments'] as const;
const LEGACY_DATES = ['start_date', 'end_date'] as const;

const parseObject = (text: string | null): Record<string, unknown> => {
  if (!text) return {};
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

/** The legacy `object_type`: the type's singular; folders are sections, the publication an area. */
export function legacyTypeName(row: ObjectRow, publicationId: number): string {
  if (row.type_name === FOLDER_TYPE) return row.id === publicationId ? 'area' : 'section';
  return row.singular;
}

/** Custom property names per object type id, own and inherited, by name, those the type hides left out (from the model). */
function propertyNames(r: Reader, typeIds: number[]): Map<number, string[]> {
  return new Map(typeIds.map((id) => {
    const type = typeById(r.ctx, id);
    return [id, type ? visibleProperties(type).map((p) => p.name).sort() : []];
  }));
}

/** The first stream of each media object (the streams service). */
async function streamsOf(r: Reader, ids: number[]) {
  const out = new Map<number, { uuid: string; file_name: string; mime_type: string; file_size: number; width: number | null; height: number | null }>();
  for (const [id, list] of await r.ctx.streams.streamsOfObjects(ids, r.viewer)) if (list[0]) out.set(id, { ...list[0], file_size: Number(list[0].file_size) });
  return out;
}

/** Type ids of media types (every type under a media root). */
function mediaTypeIds(r: Reader): Set<number> {
  return new Set([...model(r.ctx).types.values()].filter((t) => !t.isAbstract && mediaRootOf(r.ctx, t.name)).map((t) => t.id));
}

export type LegacyObject = Record<string, unknown>;

export async function formatObjects(r: Reader, req: Request, rows: ObjectRow[]): Promise<LegacyObject[]> {
  const ids = rows.map((row) => row.id);
  const base = baseUrl(req);
  const mediaTypes = mediaTypeIds(r);
  const [terms, relations, children, props, streams, translations] = await Promise.all([
    loadTerms(r.db, ids, r.publication.id),
    relationCounts(r, ids),
    childrenCounts(r, rows.filter((row) => row.type_name === FOLDER_TYPE).map((row) => row.id)),
    propertyNames(r, [...new Set(rows.map((row) => row.object_type_id))]),
    streamsOf(r, rows.filter((row) => mediaTypes.has(row.object_type_id)).map((row) => row.id)),
    translationsOf(r.ctx, r.viewer, ids),
  ]);
  return rows.map((row) => {
    const values = parseObject(row.properties);
    const custom: Record<string, unknown> = {};
    for (const name of props.get(row.object_type_id) ?? []) custom[name] = values[name] ?? null;
    const text = (name: string) => (typeof values[name] === 'string' && values[name] !== '' ? (values[name] as string) : null);
    const t = terms.get(row.id)!;
    const url = `${base}/objects/${row.id}`;
    const obj: LegacyObject = {
      id: row.id,
      object_type_id: row.object_type_id,
      object_type: legacyTypeName(row, r.publication.id),
      status: row.status,
      title: row.title,
      nickname: row.uname,
      description: row.description,
      body: row.body,
      lang: row.lang,
      ...Object.fromEntries(LEGACY_TEXT.map((f) => [f, text(f)])),
      ...Object.fromEntries(LEGACY_DATES.map((f) => [f, text(f) === null ? null : toIso(text(f)!)])),
      publication_date: row.published,
      created: row.created,
      modified: row.modified,
      valid: true,
      authorized: true,
      free_access: true,
      // {<tag>: {field: value}}: the translations the reader may read.
      languages: Object.fromEntries((translations.get(row.id) ?? []).map((tr) => [tr.lang, shownFields(r.ctx, tr, row.object_type_id)])),
      relations: Object.fromEntries(Object.entries(relations.get(row.id) ?? {}).map(([name, count]) => [name, { count, url: `${url}/relations/${name}` }])),
      custom_properties: custom,
      geo_tags: t.geo_tags,
      tags: t.tags,
      categories: t.categories,
      date_items: t.date_items,
    };
    const counts = children.get(row.id);
    if (counts) {
      obj.children = {
        count: counts.sections + counts.contents,
        url: `${url}/children`,
        contents: { count: counts.contents, url: `${url}/contents` },
        sections: { count: counts.sections, url: `${url}/sections` },
      };
    }
    if (mediaTypes.has(row.object_type_id)) {
      const s = streams.get(row.id);
      Object.assign(obj, {
        name: s?.file_name ?? null,
        original_name: s?.file_name ?? null,
        mime_type: s?.mime_type ?? null,
        uri: s ? `${base}/streams/download/${s.uuid}` : null,
        file_size: s?.file_size ?? null,
        width: s?.width ?? null,
        height: s?.height ?? null,
      });
    }
    // Core fields the type hides are gone from its objects here too.
    for (const name of typeById(r.ctx, row.object_type_id)?.hidden ?? []) delete obj[name];
    return obj;
  });
}
