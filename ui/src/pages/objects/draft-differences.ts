// What a draft changes, one row a field for the publisher's table, the published value beside the
// draft's: the form's fields (from the draft as read), and what the form does not show (each
// relation's list and the folders, by title; each translation's status and fields, by language),
// read from the live object's lists.
import { useEffect, useState } from 'react';
import { api, translations, type Resource, type TranslationAttributes } from '../../api/client';
import { STATUS_OPTIONS } from '../../components/fields';
import { titleOf } from '../../components/format';
import { fieldLabel, formFromAttributes, type FormProperty } from '../../components/schema-form';
import { readable } from './edit-conflict';
import { draftMeta, draftRelation, objectsByIds } from './into-draft';
import { languageName } from './languages';
import { humanize, useRelationLabels } from './RelationsPanel';

export interface DraftDifference {
  name: string;
  label: string;
  live: string;
  draft: string;
}

const STATUS: FormProperty = { name: 'status', kind: 'enum', required: false, options: [], advanced: false } as FormProperty;

/** The fields of the form that the draft changes; `others`: the changed names that are no field of it. */
export function draftDifferences(properties: FormProperty[], live: Resource, draft: Resource): { fields: DraftDifference[]; others: string[] } {
  const changed = draftMeta(draft).changed ?? [];
  const shown = [STATUS, ...properties];
  const before = formFromAttributes(properties, live.attributes);
  const after = formFromAttributes(properties, draft.attributes);
  const fields = shown
    .filter((p) => changed.includes(p.name))
    .map((p) => ({
      name: p.name,
      label: fieldLabel(p.name),
      live: readable(p, p.name === 'status' ? live.attributes.status : before[p.name]),
      draft: readable(p, p.name === 'status' ? draft.attributes.status : after[p.name]),
    }));
  return { fields, others: changed.filter((n) => !shown.some((p) => p.name === n)) };
}

/** The rows of `names` (relations, `parents`, `translations`: what the form does not show); null while they load. */
export function usePartDifferences(live: Resource, draft: Resource, properties: FormProperty[], names: string[]): DraftDifference[] | null {
  const labels = useRelationLabels();
  const [rows, setRows] = useState<DraftDifference[] | null>(null);
  const meta = draftMeta(draft);
  const key = JSON.stringify([names, meta.modified, meta.translations, names.map((n) => draftRelation(draft, n))]);
  useEffect(() => {
    if (!labels) return;
    let on = true;
    const label = (name: string) => (name === 'parents' ? 'Folders' : (labels.get(name)?.label ?? humanize(name)));
    partDifferences(live, draft, properties, names, label).then(
      (r) => on && setRows(r),
      () => on && setRows(names.map((n) => ({ name: n, label: label(n), live: '…', draft: 'changed' }))),
    );
    return () => {
      on = false;
    };
  }, [key, labels]); // eslint-disable-line react-hooks/exhaustive-deps
  return rows;
}

const titles = (list: Resource[]) => list.map(titleOf).join(', ') || 'none';
const statusWord = (status: string) => STATUS_OPTIONS.find(([v]) => v === status)?.[1] ?? status;

async function partDifferences(live: Resource, draft: Resource, properties: FormProperty[], names: string[], label: (name: string) => string): Promise<DraftDifference[]> {
  const rows: DraftDifference[][] = await Promise.all(
    names.map(async (name) => {
      if (name === 'translations') return translationDifferences(live, draft, properties);
      const [before, after] = await Promise.all([api.listAll(`/${live.type}/${live.id}/${name}`, {}, 10), objectsByIds((draftRelation(draft, name) ?? []).map((i) => i.id))]);
      return [{ name, label: label(name), live: titles(before), draft: titles(after) }];
    }),
  );
  return rows.flat();
}

/** Each translation the draft changes: its status and each field it sets, per language; a removed one whole. */
async function translationDifferences(live: Resource, draft: Resource, properties: FormProperty[]): Promise<DraftDifference[]> {
  const now = (await api.listAll(translations.ofObjectPath(live.type, live.id), {}, 10)) as Resource<TranslationAttributes>[];
  const rows: DraftDifference[] = [];
  for (const [lang, t] of Object.entries(draftMeta(draft).translations ?? {})) {
    const was = now.find((x) => x.attributes.lang === lang)?.attributes;
    const language = languageName(lang);
    if (t === null) {
      if (was) rows.push({ name: `translations.${lang}`, label: `${language} translation`, live: statusWord(was.status), draft: 'removed' });
      continue;
    }
    const status = t.status ?? was?.status ?? 'draft';
    if (status !== was?.status) rows.push({ name: `translations.${lang}.status`, label: `${language} translation`, live: was ? statusWord(was.status) : 'none', draft: was ? statusWord(status) : `${statusWord(status)} (new)` });
    for (const [field, value] of Object.entries(t.translated_fields ?? {})) {
      const before = was?.translated_fields[field] ?? null;
      if ((before ?? '') === (value ?? '')) continue;
      const p = properties.find((x) => x.name === field) ?? ({ name: field, kind: 'string', required: false, options: [], advanced: false } as unknown as FormProperty);
      rows.push({ name: `translations.${lang}.${field}`, label: `${fieldLabel(field)} (${language})`, live: readable(p, before), draft: readable(p, value) });
    }
  }
  return rows;
}
