// A published object changed by a user without `publish`: its relations, folders and translations
// change in its draft (PATCH /drafts/{id}), as its form's fields do. The panels of the object's
// page take an IntoDraft to read the draft's values and save there instead of on the live object.
import { useEffect, useState } from 'react';
import { api, type DraftMeta, type DraftParts, type Identifier, type Resource, type TranslationAttributes } from '../../api/client';

export interface IntoDraft {
  /** The draft as last read, null while the object has none. */
  draft: Resource | null;
  /** Saves `parts` into the draft (made when there is none); resolves with the draft after it. */
  save: (parts: DraftParts) => Promise<Resource>;
}

/** What the toasts of a change saved into the draft add. */
export const SAVED_TO_DRAFT = 'saved to the draft';

/** The lists' "Draft" filter: its choices, as values of `filter[has_draft]`. */
export const DRAFT_FILTER_OPTIONS: Array<[string, string]> = [
  ['', 'Any'],
  ['1', 'Has a draft'],
  ['0', 'No draft'],
];

export const draftMeta = (draft: Resource | null | undefined): DraftMeta => (draft?.meta.draft ?? {}) as DraftMeta;

/** The list the draft holds for relation `name` (`parents`: its folders), undefined when it has none. */
export function draftRelation(draft: Resource | null | undefined, name: string): Identifier[] | undefined {
  const data = draft?.relationships?.[name]?.data as Identifier[] | null | undefined;
  return data === undefined ? undefined : (data ?? []).map(({ id, type, meta }) => ({ id: String(id), type, ...(meta ? { meta } : {}) }));
}

/** A related object as an item of a relation's list in a draft, keeping the link's params. */
export function linkOf(r: Resource): Identifier {
  const params = (r.meta.relation as { params?: unknown } | undefined)?.params;
  return { type: r.type, id: r.id, ...(params ? { meta: { relation: { params } } } : {}) };
}

/** Whether the draft changes `name` (a field, a relation, `parents` or `translations`). */
export const changedInDraft = (draft: Resource | null | undefined, name: string) => (draftMeta(draft).changed ?? []).includes(name);

/** The objects named by `ids` that the user may read, in that order (null while loading). */
export function useObjectsByIds(ids: Identifier[] | undefined): Resource[] | null {
  const [found, setFound] = useState<Resource[] | null>(null);
  const key = (ids ?? []).map((i) => i.id).join(',');
  useEffect(() => {
    let live = true;
    objectsByIds(key ? key.split(',') : []).then(
      (all) => live && setFound(all),
      () => live && setFound([]),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return ids === undefined ? null : found;
}

/** The objects of `ids` the user may read, in that order (one request a hundred). */
export async function objectsByIds(ids: string[]): Promise<Resource[]> {
  if (!ids.length) return [];
  const found = new Map<string, Resource>();
  for (let i = 0; i < ids.length; i += 100) {
    const page = await api.list('/objects', { 'filter[id]': ids.slice(i, i + 100).join(','), page_size: 100 });
    for (const r of page.data) found.set(r.id, r);
  }
  return ids.flatMap((id) => found.get(id) ?? []);
}

type Translation = Resource<TranslationAttributes>;

/**
 * The translations of `objectId` as its draft will make them: `live` with the draft's changes
 * over them (`meta.draft: true`), new ones (id `draft-<lang>`) added, removed ones left out.
 */
export function withDraftTranslations(live: Translation[], draft: Resource | null | undefined, objectId: string): Translation[] {
  const changes = draftMeta(draft).translations ?? {};
  const out = live.filter((t) => changes[t.attributes.lang] !== null);
  for (const [lang, t] of Object.entries(changes)) {
    if (!t) continue;
    const at = out.findIndex((x) => x.attributes.lang === lang);
    const was = at >= 0 ? out[at] : undefined;
    const base = was?.attributes ?? { object_id: objectId, lang, status: 'draft' as const, translated_fields: {} };
    const next: Translation = {
      id: was?.id ?? `draft-${lang}`,
      type: 'translations',
      attributes: { ...base, status: t.status ?? base.status, translated_fields: { ...base.translated_fields, ...t.translated_fields } },
      meta: { ...(was?.meta ?? {}), draft: true },
    };
    if (at >= 0) out[at] = next;
    else out.push(next);
  }
  return out.sort((a, b) => a.attributes.lang.localeCompare(b.attributes.lang));
}
