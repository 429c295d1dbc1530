// The object types of the model, read once through the query cache and again after model edits.
import { useMemo } from 'react';
import type { Resource } from '../api/client';
import { apiKey, queryClient, useApiAll } from '../api/queries';

export interface ObjectType {
  id: string;
  name: string;
  singular: string;
  /** Human words for menus and lists: the type's `label` or its name without underscores ("News items"). */
  label: string;
  /** The same for one object ("News item"). */
  singularLabel: string;
  parent: string | null;
  abstract: boolean;
  enabled: boolean;
  description: string | null;
}

/** Types the admin edits elsewhere (their own pages) or that have no objects of their own. */
export const MEDIA_TYPES_PARENT = 'media';

/** A machine name in words: `news_items` → "News items". */
export function humanName(name: string): string {
  const words = name.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function toType(r: Resource): ObjectType {
  const a = r.attributes;
  return {
    id: r.id,
    name: String(a.name),
    singular: String(a.singular ?? a.name),
    label: typeof a.label === 'string' && a.label ? a.label : humanName(String(a.name)),
    singularLabel: humanName(String(a.singular ?? a.name)),
    parent: (a.parent_name as string | null) ?? null,
    abstract: Boolean(a.is_abstract),
    enabled: a.enabled === undefined ? true : Boolean(a.enabled),
    description: (a.description as string | null) ?? null,
  };
}

const TYPES_PATH = '/model/object_types';

/** Load the types again (writes through the API client do this by themselves). */
export function invalidateObjectTypes(): void {
  void queryClient.invalidateQueries({ queryKey: apiKey(TYPES_PATH, {}, 'all') });
}

export function useObjectTypes(): { types: ObjectType[] | null; error: unknown } {
  const q = useApiAll(TYPES_PATH);
  const types = useMemo(() => q.data?.map(toType) ?? null, [q.data]);
  return { types, error: q.error };
}

/** Concrete types whose objects can be created and listed at /{type}. */
export function concreteTypes(types: ObjectType[] | null): ObjectType[] {
  return (types ?? []).filter((t) => !t.abstract && t.enabled).sort((a, b) => a.name.localeCompare(b.name));
}

/** The human name of a type ("News items"), its machine name in words until the model is read;
 *  `one`: of one object of it ("News item"), as a row of a list names its type. */
export function typeLabel(types: ObjectType[] | null, name: string, one = false): string {
  const type = types?.find((t) => t.name === name);
  return (one ? type?.singularLabel : type?.label) ?? humanName(name);
}

export function isMediaType(types: ObjectType[] | null, name: string): boolean {
  const byName = new Map((types ?? []).map((t) => [t.name, t]));
  for (let t = byName.get(name); t; t = t.parent ? byName.get(t.parent) : undefined) {
    if (t.parent === MEDIA_TYPES_PARENT) return true;
  }
  return false;
}
