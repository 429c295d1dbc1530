// Which object types the Objects area lists and creates (users and folders have their own areas).
import { concreteTypes, type ObjectType } from '../../components/model';

const OWN_AREA = new Set(['users', 'folders']);

export function editorTypes(types: ObjectType[] | null): ObjectType[] {
  return concreteTypes(types).filter((t) => !OWN_AREA.has(t.name));
}

/** "document" for documents, "news item" for news_items (the type's `singular`, in words). */
export function singularOf(types: ObjectType[] | null, name: string): string {
  return (types?.find((t) => t.name === name)?.singular ?? name.replace(/s$/, '')).replace(/_/g, ' ');
}
