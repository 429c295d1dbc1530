// The relations of one object, each titled with the model's label ("See also", or the inverse
// label from the other side) and collapsed while empty; add by searching among the types the
// relation allows, leaving out the object itself and what is already related; remove. A published
// object changed by a user without `publish` changes in its draft: each relation then shows the
// list the draft holds, and adding or removing saves the whole list into the draft. Related media
// (a poster) show their thumbnail beside the title.
import { useEffect, useId, useState } from 'react';
import { api, nameObjects, type Resource } from '../../api/client';
import { Empty, ErrorNote, Pager } from '../../components/feedback';
import { StatusBadge } from '../../components/fields';
import { titleOf } from '../../components/format';
import { ChevronDown, ChevronRight, Plus, X } from '../../components/icons';
import { isMediaType, typeLabel, useObjectTypes } from '../../components/model';
import { ObjectPicker } from '../../components/object-picker';
import { ThumbnailImage, useThumbnails } from '../../components/thumbnail';
import { href } from '../../components/route';
import { useToast } from '../../components/toast';
import { useList } from '../../components/use-list';
import { may, useRights } from '../../components/rights';
import { changedInDraft, draftRelation, linkOf, SAVED_TO_DRAFT, useObjectsByIds, type IntoDraft } from './into-draft';
import '../../components/picker.css';

const NOT_RELATIONS = new Set(['parents', 'parent', 'children', 'roles', 'streams', 'translations']);

interface RelationInfo {
  label: string;
  description: string | null;
  /** Which side's types may be added from this side. */
  side: 'right_object_types' | 'left_object_types';
  /** The relation's name (for the /model/relations/{name}/… paths). */
  relation: string;
}

/** Labels of every relation name, both directions (GET /model/relations). */
export function useRelationLabels(): Map<string, RelationInfo> | null {
  const [labels, setLabels] = useState<Map<string, RelationInfo> | null>(null);
  useEffect(() => {
    api.listAll('/model/relations', {}, 10).then(
      (all) => {
        const map = new Map<string, RelationInfo>();
        for (const r of all) {
          const a = r.attributes;
          const description = (a.description as string | null) ?? null;
          map.set(String(a.name), { label: String(a.label || a.name), description, side: 'right_object_types', relation: String(a.name) });
          map.set(String(a.inverse_name), { label: String(a.inverse_label || a.inverse_name), description, side: 'left_object_types', relation: String(a.name) });
        }
        setLabels(map);
      },
      () => setLabels(new Map()),
    );
  }, []);
  return labels;
}

export const humanize = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');

/**
 * `readOnly`: the user may not change the object (relationship writes are updates of it).
 * `onWritten`: after each relationship write (it moves the object's version).
 * `intoDraft`: changes go into the object's draft.
 */
export function RelationsPanel({ object, readOnly = false, onWritten, intoDraft }: { object: Resource; readOnly?: boolean; onWritten?: () => void; intoDraft?: IntoDraft }) {
  const labels = useRelationLabels();
  const names = Object.keys(object.relationships ?? {}).filter((n) => !NOT_RELATIONS.has(n));
  if (!labels) return null;
  return (
    <section aria-labelledby="object-relations">
      <h2 id="object-relations">Relations</h2>
      {names.length === 0 ? <Empty>This type has no relations.</Empty> : null}
      {names.map((name) => (
        <Relation key={name} object={object} name={name} readOnly={readOnly} onWritten={onWritten} intoDraft={intoDraft} info={labels.get(name) ?? { label: humanize(name), description: null, side: 'right_object_types', relation: name }} />
      ))}
    </section>
  );
}

function Relation({ object, name, info, readOnly, onWritten, intoDraft }: { object: Resource; name: string; info: RelationInfo; readOnly: boolean; onWritten?: () => void; intoDraft?: IntoDraft }) {
  const base = `/${object.type}/${object.id}`;
  const list = useList(`${base}/${name}`);
  // The list the draft holds (all of it, on one page), else the live one.
  const held = intoDraft ? draftRelation(intoDraft.draft, name) : undefined;
  const heldItems = useObjectsByIds(held);
  const items = held ? (heldItems ?? []) : (list.result?.data ?? []);
  const loaded = held ? heldItems !== null : Boolean(list.result);
  const [open, setOpen] = useState<boolean | null>(null);
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [related, setRelated] = useState<Set<string>>(new Set());
  const [allowed, setAllowed] = useState<string[] | undefined>(undefined);
  const toast = useToast();
  const bodyId = useId();
  const { types: model } = useObjectTypes();
  const thumbs = useThumbnails(
    items.filter((r) => isMediaType(model, r.type)).map((r) => r.id),
    'small',
  );
  const count = held ? held.length : (list.result?.pagination.count ?? 0);
  // Open when it has something, collapsed while empty (until the user opens it).
  const expanded = open ?? count > 0;

  useEffect(() => {
    if (!adding) return;
    // Everything already related (not just this page) and the types the relation allows.
    if (held) setRelated(new Set(held.map((r) => `${r.type}/${r.id}`)));
    else api.listAll(`${base}/${name}`, {}, 20).then((all) => setRelated(new Set(all.map((r) => `${r.type}/${r.id}`))), () => {});
    api.listAll(`/model/relations/${encodeURIComponent(info.relation)}/${info.side}`, {}, 5).then(
      (types) => setAllowed(types.map((t) => String(t.attributes.name))),
      () => setAllowed(undefined),
    );
  }, [adding, base, name, info.relation, info.side, list.result, held?.map((r) => r.id).join(',')]); // eslint-disable-line react-hooks/exhaustive-deps

  // A published object given a related object the public cannot see: said at once, with the way to publish it.
  const [unseen, setUnseen] = useState<Resource | null>(null);
  const rights = useRights();
  const change = async (method: 'POST' | 'DELETE', target: Resource) => {
    setBusy(true);
    try {
      if (intoDraft) await changeDraft(intoDraft, method, target);
      else {
        await api.relate(method, `${base}/relationships/${name}`, [{ type: target.type, id: target.id }]);
        onWritten?.();
      }
      const done = method === 'POST' ? `“${titleOf(target)}” added to ${info.label}` : `“${titleOf(target)}” removed from ${info.label}`;
      toast.success(intoDraft ? `${done}: ${SAVED_TO_DRAFT}.` : `${done}.`);
      setUnseen(method === 'POST' && object.attributes.status === 'on' && target.attributes.status !== 'on' ? target : null);
    } catch (e) {
      toast.error(nameObjects(e, [object, target]), method === 'POST' ? `Not added to ${info.label}` : `Not removed from ${info.label}`);
    } finally {
      setBusy(false);
      await list.reload();
    }
  };
  /** The relation's whole list, with `target` added or removed, saved into the draft. */
  const changeDraft = async (into: IntoDraft, method: 'POST' | 'DELETE', target: Resource) => {
    const now = held ?? (await api.listAll(`${base}/${name}`, {}, 20)).map(linkOf);
    const next = method === 'POST' ? [...now, { type: target.type, id: target.id }] : now.filter((r) => !(r.type === target.type && r.id === target.id));
    await into.save({ relationships: { [name]: { data: next } } });
  };
  const publishUnseen = async (target: Resource) => {
    setBusy(true);
    try {
      await api.update(`/${target.type}/${target.id}`, target.type, target.id, { status: 'on' });
      toast.success(`“${titleOf(target)}” published.`);
      setUnseen(null);
    } catch (e) {
      toast.error(nameObjects(e, [target]), `“${titleOf(target)}” was not published`);
    } finally {
      setBusy(false);
      await list.reload();
    }
  };
  return (
    <div className={`panel relation${expanded ? '' : ' collapsed'}`} role="group" aria-label={info.label}>
      <div className="page-head">
        <h3>
          <button type="button" className="disclosure" aria-expanded={expanded} aria-controls={bodyId} onClick={() => setOpen(!expanded)}>
            {expanded ? <ChevronDown aria-hidden size={16} /> : <ChevronRight aria-hidden size={16} />}
            {info.label}
            <span className="count-badge">
              {loaded ? count : '…'}
              <span className="visually-hidden"> related</span>
            </span>
          </button>
        </h3>
        {changedInDraft(intoDraft?.draft, name) ? <span className="badge warn">Changed in the draft</span> : null}
        <span className="spacer" />
        {expanded && !readOnly ? (
          <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            {adding ? 'Done' : <><Plus aria-hidden size={16} /> Add to {info.label}</>}
          </button>
        ) : null}
      </div>
      <div id={bodyId} hidden={!expanded}>
        {info.description ? <p className="muted relation-description">{info.description}</p> : null}
        <ErrorNote error={held ? null : list.error} />
        {loaded && count === 0 ? <p className="muted">Nothing related yet.</p> : null}
        <ul className="related">
          {items.map((r) => (
            <li key={`${r.type}-${r.id}`}>
              {isMediaType(model, r.type) ? (
                <span className="pick-thumb" aria-hidden="true">
                  <ThumbnailImage thumb={thumbs.get(r.id)} alt="" />
                </span>
              ) : null}
              <a className="grow" href={href('objects', r.type, r.id)}>
                {titleOf(r)}
              </a>
              <span className="muted">{typeLabel(model, r.type, true)}</span>
              <StatusBadge status={r.attributes.status} />
              {readOnly ? null : (
                <button type="button" className="small" onClick={() => void change('DELETE', r)} disabled={busy} aria-label={`Remove ${titleOf(r)} from ${info.label}`}>
                  <X aria-hidden size={14} /> Remove
                </button>
              )}
            </li>
          ))}
        </ul>
        {unseen ? (
          <div className="notice warn-note" role="status">
            “{titleOf(unseen)}” is {unseen.attributes.status === 'draft' ? 'a draft' : 'off'}: the public sees “{titleOf(object)}” without it.{' '}
            {may(rights, 'publish', unseen.type, unseen) ? (
              <button type="button" className="small" disabled={busy} onClick={() => void publishUnseen(unseen)}>
                Publish “{titleOf(unseen)}”
              </button>
            ) : (
              'Your roles do not let you publish it.'
            )}
          </div>
        ) : null}
        {!held && list.result && list.result.pagination.page_count > 1 ? <Pager pagination={list.result.pagination} onPage={list.setPage} label={`Pages of ${info.label}`} /> : null}
        {adding ? (
          <ObjectPicker
            onPick={(r) => void change('POST', r)}
            busy={busy}
            types={allowed}
            label={`Find objects to add to ${info.label}`}
            exclude={(r) => (r.type === object.type && r.id === object.id) || related.has(`${r.type}/${r.id}`)}
          />
        ) : null}
      </div>
    </div>
  );
}
