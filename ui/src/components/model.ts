// The object types of the model, loaded once per session view and refreshed after model edits.
import { useEffect, useState } from 'react';
import { api, type Resource } from '../api/client';

export interface ObjectType {
  id: string;
  name: string;
  singular: string;
  parent: string | null;
  abstract: boolean;
  enabled: boolean;
  description: string | null;
}

/** Types the admin edits elsewhere (their own pages) or that have no objects of their own. */
export const MEDIA_TYPES_PARENT = 'media';

let cache: Promise<ObjectType[]> | null = null;
const subscribers = new Set<() => void>();

function toType(r: Resource): ObjectType {
  const a = r.attributes;
  return {
    id: r.id,
    name: String(a.name),
    singular: String(a.singular ?? a.name),
    parent: (a.parent_name as string | null) ?? null,
    abstract: Boolean(a.is_abstract),
    enabled: a.enabled === undefined ? true : Boolean(a.enabled),
    description: (a.description as string | null) ?? null,
  };
}

async function loadAll(): Promise<ObjectType[]> {
  const out: ObjectType[] = [];
  for (let page = 1; ; page++) {
    const r = await api.list('/model/object_types', { page, page_size: 100 });
    out.push(...r.data.map(toType));
    if (page >= r.pagination.page_count) return out;
  }
}

export function invalidateObjectTypes(): void {
  cache = null;
  for (const s of subscribers) s();
}

export function useObjectTypes(): { types: ObjectType[] | null; error: unknown } {
  const [types, setTypes] = useState<ObjectType[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    subscribers.add(bump);
    return () => void subscribers.delete(bump);
  }, []);
  useEffect(() => {
    cache ??= loadAll();
    const mine = cache;
    mine.then(setTypes, (e) => {
      if (cache === mine) cache = null;
      setError(e);
    });
  }, [version]);
  return { types, error };
}

/** Concrete types whose objects can be created and listed at /{type}. */
export function concreteTypes(types: ObjectType[] | null): ObjectType[] {
  return (types ?? []).filter((t) => !t.abstract && t.enabled).sort((a, b) => a.name.localeCompare(b.name));
}

export function isMediaType(types: ObjectType[] | null, name: string): boolean {
  const byName = new Map((types ?? []).map((t) => [t.name, t]));
  for (let t = byName.get(name); t; t = t.parent ? byName.get(t.parent) : undefined) {
    if (t.parent === MEDIA_TYPES_PARENT) return true;
  }
  return false;
}
