// Which right each part of a change needs, on which object: the one table a reader audits. The
// kernel (kernel.ts) checks the command's own object first (the target: `create`, `update`,
// `delete`), then every part's plan declares the other objects it will change or name, through
// `KernelWrite.need(subject, row)`; each declaration is checked against this table (a part asking
// for a subject it does not declare here is a programming error) and through the write guards,
// once per object, before any part writes. Objects a part only names are read as the actor reads
// them (KernelWrite.resolve): hidden ones answer 404 as missing, restricted ones 401/403.
//
// `publish` is not a row of its own: the permissions guard asks it for every check whose object is
// or becomes `on` (needsPublish in permissions/rules.ts), the target's, a folder's or a child's
// alike, and for a translation whose status is or becomes `on`.

/** The objects a part may check besides the target. */
export type Subject = 'related' | 'folder' | 'child' | 'former parent' | 'translation';

export interface PartRights {
  /** The right on the command's own object (the kernel checks it before any part is planned). */
  target: 'update';
  /** Rights on the other objects the part touches: `read` (resolved as the actor reads it), `update`. */
  others: Partial<Record<Subject, ReadonlyArray<'read' | 'update'>>>;
  /** What the table's reader should know about the part. */
  note: string;
}

export const PART_RIGHTS = {
  attributes: { target: 'update', others: {}, note: 'title, body, status, window, custom properties; users: only admins change roles, blocked, status, username' },
  relations: { target: 'update', others: { related: ['read'] }, note: 'add, replace, remove related objects; a replace keeps the links to objects the actor may not read' },
  link: { target: 'update', others: { related: ['read'] }, note: "one link's priority and params (legacy)" },
  parents: { target: 'update', others: { folder: ['read', 'update'], 'former parent': ['update'] }, note: 'the object filed into or taken out of folders, from its side; only placements that change are checked; a folder moved leaves its former parent' },
  children: { target: 'update', others: { child: ['read', 'update'], 'former parent': ['update'] }, note: "a folder's children; a sub-folder moved in leaves its former parent, which changes too" },
  folderParent: { target: 'update', others: { folder: ['read', 'update'], 'former parent': ['update'] }, note: "a folder's parent; one the actor may not read refuses the move without naming it" },
  stream: { target: 'update', others: {}, note: 'upload, link, unlink or delete the media object’s file (locked objects: admins only)' },
  terms: { target: 'update', others: {}, note: 'categories, tags, date ranges, places' },
  translations: { target: 'update', others: { translation: ['update'] }, note: "a translation's create, change or removal: `publish` when it is or becomes `on`" },
  roles: { target: 'update', others: {}, note: "a user's roles: administrators only" },
} as const satisfies Record<string, PartRights>;

export type PartName = keyof typeof PART_RIGHTS;

/** Whether part `part` declares `right` on `subject` (the kernel refuses to check anything else). */
export function declares(part: string, subject: Subject, right: 'read' | 'update'): boolean {
  const rights = (PART_RIGHTS as Record<string, PartRights>)[part];
  return Boolean(rights?.others[subject]?.includes(right));
}

/** The table as lines of text (the README and the closing notes print it; a test compares it with the code). */
export function rightsTable(): string[] {
  return Object.entries(PART_RIGHTS as Record<string, PartRights>).map(([part, r]) => {
    const others = Object.entries(r.others).map(([subject, rights]) => `${rights.join(' + ')} on the ${subject}`);
    return `${part}: ${[`${r.target} on the object`, ...others].join('; ')} (${r.note})`;
  });
}
