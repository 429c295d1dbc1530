// Publishing safely: before an object is saved as public (status `on`), what it uses — images and
// links to objects in its rich text, objects it relates to — is read, and whatever the public
// would not see (draft or off, restricted to roles, gone) is listed in a dialog that offers to
// publish those too (one POST /operations, all or nothing) before the object's own save. The rule
// is in docs/admin-ui.md ("Publishing safely").
import { typeLabel, useObjectTypes } from '../../components/model';
import { api, nameObjects, type Resource } from '../../api/client';
import { fieldLabel } from '../../api/error-text';
import { Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { StatusBadge } from '../../components/fields';
import { titleOf } from '../../components/format';
import { may, type Rights } from '../../components/rights';

/** Something a public object uses that the public cannot see. */
export interface Hole {
  id: string;
  type: string;
  title: string;
  /** `null`: it could not be read at all (gone, or hidden from this user). */
  status: string | null;
  /** Where the object uses it: "Image in Body", "Link in Body", "See also". */
  uses: string[];
  /** Why publishing cannot mend it, when it cannot. */
  blocked: string | null;
}

const STREAM = /\/streams\/download\/([0-9a-f-]{36})/i;

/** The object ids and stream uuids that an HTML value points to (same-site links only). */
function referencesIn(html: string): { streams: string[]; objects: string[] } {
  const out = { streams: [] as string[], objects: [] as string[] };
  if (!/<(img|a)\b/i.test(html)) return out;
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const img of doc.querySelectorAll('img[src]')) {
    const m = STREAM.exec(img.getAttribute('src') ?? '');
    if (m) out.streams.push(m[1]);
  }
  for (const a of doc.querySelectorAll('a[href]')) {
    let url: URL;
    try {
      url = new URL(a.getAttribute('href') ?? '', window.location.origin);
    } catch {
      continue;
    }
    if (url.origin !== window.location.origin) continue;
    const stream = STREAM.exec(url.pathname);
    if (stream) {
      out.streams.push(stream[1]);
      continue;
    }
    // `/documents/12`, `/objects/12`, or the admin's own `#/objects/documents/12`.
    const m = /^\/[a-z][a-z0-9_]*\/(\d+)$/.exec(url.pathname) ?? /^#\/objects\/[a-z][a-z0-9_]*\/(\d+)$/.exec(url.hash);
    if (m) out.objects.push(m[1]);
  }
  return out;
}

/** The relations (not inverse sides) an object's type uses, with their labels: what it shows as its own. */
async function ownRelations(object: Resource): Promise<Array<{ name: string; label: string }>> {
  const model = await api.listAll('/model/relations', {}, 10);
  return model
    .map((r) => ({ name: String(r.attributes.name), label: String(r.attributes.label || r.attributes.name) }))
    .filter((r) => object.relationships?.[r.name]);
}

function whyHidden(o: Resource, rights: Rights): { hidden: boolean; blocked: string | null } {
  const restricted = Array.isArray(o.meta.perms?.roles) && o.meta.perms.roles.length > 0;
  if (restricted) return { hidden: true, blocked: 'restricted to some roles: the public never sees it' };
  const start = o.attributes.publish_start ? Date.parse(String(o.attributes.publish_start)) : NaN;
  const end = o.attributes.publish_end ? Date.parse(String(o.attributes.publish_end)) : NaN;
  if (o.attributes.status === 'on') {
    if (end <= Date.now()) return { hidden: true, blocked: 'its publication window has ended' };
    if (start > Date.now()) return { hidden: true, blocked: `public only from ${new Date(start).toLocaleString()}` };
    return { hidden: false, blocked: null };
  }
  return { hidden: true, blocked: may(rights, 'publish', o.type, o) ? null : 'your roles do not let you publish it' };
}

/**
 * What `object` (with these attribute values, as about to be saved) uses that the public would not
 * see. `alsoPublished`: ids published in the same step (a bulk publish), which are no holes.
 */
export async function findHoles(object: Resource, attributes: Record<string, unknown>, rights: Rights, alsoPublished: Set<string> = new Set()): Promise<Hole[]> {
  const holes = new Map<string, Hole>();
  const use = (o: Resource | null, id: string, type: string, how: string) => {
    if (alsoPublished.has(id) || id === object.id) return;
    const found = holes.get(id);
    if (found) {
      if (!found.uses.includes(how)) found.uses.push(how);
      return;
    }
    if (!o) {
      holes.set(id, { id, type, title: `#${id}`, status: null, uses: [how], blocked: 'it no longer exists, or you may not see it' });
      return;
    }
    const { hidden, blocked } = whyHidden(o, rights);
    if (hidden) holes.set(id, { id, type: o.type, title: titleOf(o), status: String(o.attributes.status ?? ''), uses: [how], blocked });
  };
  const reads: Array<Promise<void>> = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== 'string' || !value.includes('<')) continue;
    const refs = referencesIn(value);
    for (const uuid of new Set(refs.streams)) {
      reads.push(
        api.get(`/streams/${uuid}/object`).then(
          (r) => use(r.data, r.data.id, r.data.type, `Image in ${fieldLabel(name)}`),
          () => use(null, uuid, 'streams', `Image in ${fieldLabel(name)}`),
        ),
      );
    }
    for (const id of new Set(refs.objects)) {
      reads.push(api.get(`/objects/${id}`).then((r) => use(r.data, id, r.data.type, `Link in ${fieldLabel(name)}`), () => use(null, id, 'objects', `Link in ${fieldLabel(name)}`)));
    }
  }
  for (const { name, label } of await ownRelations(object)) {
    reads.push(api.listAll(`/${object.type}/${object.id}/${name}`, {}, 10).then((related) => related.forEach((r) => use(r, r.id, r.type, label))));
  }
  await Promise.all(reads);
  return [...holes.values()];
}

/** Publish what can be published, all or nothing (folders are written through /folders). */
export async function publishHoles(holes: Hole[]): Promise<void> {
  const fixable = holes.filter((h) => !h.blocked && h.status !== null);
  const folders = fixable.filter((h) => h.type === 'folders');
  const others = fixable.filter((h) => h.type !== 'folders');
  try {
    if (others.length) await api.operations(others.map((h) => ({ op: 'update', data: { type: h.type, id: h.id, attributes: { status: 'on' } } })));
    for (const f of folders) await api.update(`/folders/${f.id}`, 'folders', f.id, { status: 'on' });
  } catch (e) {
    throw nameObjects(e, holes);
  }
}

/**
 * The question before a public save: what would be missing, and three ways on — publish those
 * too and then save, save anyway (the editor has been told), or go back.
 */
export function PublishCheckDialog({
  subject,
  holes,
  busy,
  error,
  onPublishAll,
  onSaveAnyway,
  onCancel,
  cancelLabel = 'Back to editing',
}: {
  /** What is being published: "“Spring issue”" or "3 objects". */
  subject: string;
  /** The way back: from a form "Back to editing"; from a list or the folder page "Don't publish". */
  cancelLabel?: string;
  holes: Hole[];
  busy: boolean;
  error: unknown;
  onPublishAll: () => void;
  onSaveAnyway: () => void;
  onCancel: () => void;
}) {
  const fixable = holes.filter((h) => !h.blocked).length;
  const { types: model } = useObjectTypes();
  return (
    <Dialog title="Some of what it uses is not public" onClose={onCancel} wide>
      <div className="dialog-body">
        <p>
          {subject} will be public, but the public cannot see {holes.length === 1 ? 'one item used there' : `${holes.length} items used there`}: {holes.length === 1 ? 'it' : 'they'} would be missing from the page.
        </p>
        <ul className="holes" aria-label="Not public">
          {holes.map((h) => (
            <li key={`${h.type}-${h.id}`}>
              <strong>{h.title}</strong> <span className="muted">{typeLabel(model, h.type, true)}</span> {h.status ? <StatusBadge status={h.status} /> : null}
              <span className="muted"> · {h.uses.join(', ')}</span>
              {h.blocked ? <span className="hole-blocked"> — not published with it: {h.blocked}.</span> : null}
            </li>
          ))}
        </ul>
      </div>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="button" onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </button>
        <button type="button" onClick={onSaveAnyway} disabled={busy}>
          Publish without them
        </button>
        {fixable ? (
          <button type="button" className="primary" onClick={onPublishAll} disabled={busy} data-autofocus>
            Publish {fixable === 1 ? 'it' : `these ${fixable}`} too
          </button>
        ) : null}
      </div>
    </Dialog>
  );
}
