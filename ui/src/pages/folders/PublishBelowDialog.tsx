// Publishing a folder offers what it holds: its sub-folders and the objects in it and in them that
// are still drafts (filter[ancestor]), with counts, each group chosen or not. What the user may not
// publish (their roles, or `:own` rights on another's object) is left as it is, and the dialog says
// so beforehand; the writes go one by one through the API with the user's own rights, and what the
// server refuses is named afterwards.
import { useState } from 'react';
import { api, type Resource } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { titleOf } from '../../components/format';
import { may, type Rights } from '../../components/rights';

export interface Below {
  folders: Resource[];
  objects: Resource[];
}

/** The drafts anywhere below a folder: its sub-folders, and the other objects. */
export async function draftsBelow(folderId: string): Promise<Below> {
  const all = await api.listAll('/objects', { 'filter[ancestor]': folderId, 'filter[status]': 'draft' });
  return { folders: all.filter((o) => o.type === 'folders'), objects: all.filter((o) => o.type !== 'folders') };
}

const mayPublish = (rights: Rights, o: Resource) => may(rights, 'publish', o.type, o) && may(rights, 'update', o.type, o);

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Publishes each (status on); answers those refused, with the server's reason. */
export async function publishEach(items: Resource[]): Promise<Array<{ item: Resource; reason: string }>> {
  const refused: Array<{ item: Resource; reason: string }> = [];
  for (const item of items) {
    try {
      await api.update(`/${item.type}/${item.id}`, item.type, item.id, { status: 'on' });
    } catch (e) {
      refused.push({ item, reason: (e as { detail?: string; message?: string }).detail ?? (e as Error).message ?? 'refused' });
    }
  }
  return refused;
}

export function PublishBelowDialog({
  folder,
  below,
  rights,
  busy,
  onCancel,
  onPublish,
}: {
  folder: Resource;
  below: Below;
  rights: Rights;
  busy: boolean;
  onCancel: () => void;
  /** Publish the folder and these (those the user may publish among the chosen groups). */
  onPublish: (also: Resource[], skipped: Resource[]) => void;
}) {
  const [withFolders, setWithFolders] = useState(true);
  const [withObjects, setWithObjects] = useState(true);
  const groups = [
    { key: 'folders', items: below.folders, on: withFolders, set: setWithFolders, label: (n: number) => `Publish its ${plural(n, 'sub-folder', 'sub-folders')}` },
    { key: 'objects', items: below.objects, on: withObjects, set: setWithObjects, label: (n: number) => `Publish the ${plural(n, 'object', 'objects')} in it and its sub-folders` },
  ].filter((g) => g.items.length);
  const chosen = groups.filter((g) => g.on).flatMap((g) => g.items);
  const allowed = chosen.filter((o) => mayPublish(rights, o));
  const skipped = chosen.filter((o) => !mayPublish(rights, o));
  return (
    <Dialog title={`Publish “${titleOf(folder)}”`} onClose={onCancel}>
      <div className="dialog-body stack">
        <p>
          This folder holds {[below.folders.length ? plural(below.folders.length, 'sub-folder', 'sub-folders') : null, below.objects.length ? plural(below.objects.length, 'object', 'objects') : null].filter(Boolean).join(' and ')} that {below.folders.length + below.objects.length === 1 ? 'is' : 'are'} still a draft. Publish them
          with it?
        </p>
        <fieldset className="plain">
          <legend className="visually-hidden">Also publish</legend>
          {groups.map((g) => (
            <label key={g.key} className="inline">
              <input type="checkbox" checked={g.on} onChange={(e) => g.set(e.target.checked)} /> {g.label(g.items.length)}
            </label>
          ))}
        </fieldset>
        {skipped.length ? (
          <div className="notice warn-note publish-skipped" role="note">
            <p>
              Your roles do not let you publish {plural(skipped.length, 'of them', 'of them')}; {skipped.length === 1 ? 'it stays' : 'they stay'} a draft:
            </p>
            <ul>
              {skipped.map((o) => (
                <li key={`${o.type}-${o.id}`}>{titleOf(o)}</li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" onClick={() => onPublish([], [])} disabled={busy}>
          Publish the folder only
        </button>
        <button type="button" className="primary" onClick={() => onPublish(allowed, skipped)} disabled={busy}>
          {allowed.length ? `Publish ${plural(allowed.length + 1, 'item', 'items')}` : 'Publish the folder'}
        </button>
      </div>
    </Dialog>
  );
}
