// Objects: browse by type with search, status filter and sortable columns — all kept in the URL,
// so reload and Back return to the same list; select several for publish / unpublish / move to
// a folder / trash; create after asking for a title; edit in ObjectEditor. The languages each
// object is translated into come from one request per page (GET /translations by object ids).
// Published objects whose window has not opened yet (scheduled) or has closed (expired) carry a
// chip, and the "Schedule" filter finds them (date filters on publish_start / publish_end).
// Objects with a draft (unpublished changes of a published object) are marked, and the "Draft"
// filter finds them (filter[has_draft]; one GET /drafts by object ids per page for the marks).
// Each row says whose it is: who created it and who changed it last (the list asks for the
// usernames with `author_names=1`); "Mine" keeps the objects one created or last changed, the
// folder filter those in a folder (filter[parent]); media rows show their thumbnail.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useCurrentUser } from '../../components/current-user';
import { ThumbnailImage, useThumbnails } from '../../components/thumbnail';
import { folderPath, useFolderTree, type FolderNode } from '../folders/folder-tree-data';
import { api, translations, type DraftMeta, type Resource, type TranslationAttributes } from '../../api/client';
import { Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { SelectField, STATUS_OPTIONS, StatusBadge, SearchBox, TypeOptions } from '../../components/fields';
import { formatDate, titleOf } from '../../components/format';
import { FileText, Image, Plus } from '../../components/icons';
import { isMediaType, typeLabel, useObjectTypes } from '../../components/model';
import { forceNavigate, href, navigate, useHashQuery } from '../../components/route';
import { SortHeader } from '../../components/sort-header';
import { useToast } from '../../components/toast';
import { useAction, useList } from '../../components/use-list';
import { may, useRights } from '../../components/rights';
import { UnavailableAction } from '../../components/unavailable';
import { BulkBar } from './BulkBar';
import { ObjectEditor } from './ObjectEditor';
import { editorTypes, singularOf } from './object-types';
import { languageName } from './languages';
import { DRAFT_FILTER_OPTIONS } from './into-draft';
import { PublicationChip } from '../../components/publication';

const SCHEDULE_OPTIONS: Array<[string, string]> = [
  ['scheduled', 'Scheduled'],
  ['expired', 'Expired'],
];

const MINE_OPTIONS: Array<[string, string]> = [
  ['', 'Anyone’s'],
  ['created', 'Created by me'],
  ['modified', 'Last changed by me'],
];

/** The list filter of "Mine": the objects I created, or those I changed last. */
function mineFilter(mine: string, userId: string | undefined): Record<string, string> {
  if (!userId) return {};
  if (mine === 'created') return { 'filter[created_by]': userId };
  if (mine === 'modified') return { 'filter[modified_by]': userId };
  return {};
}

/** The folders in tree order (each after its parent), for a menu that names them by their path. */
function foldersInOrder(nodes: FolderNode[]): FolderNode[] {
  return nodes.flatMap((n) => [n, ...foldersInOrder(n.children)]);
}

/**
 * The list filters for scheduled or expired objects, as of `now`: by their window alone, so the
 * status filter still applies (an editor's draft given a start to come is scheduled too).
 */
function scheduleFilter(schedule: string, now: string): Record<string, string> {
  if (schedule === 'scheduled') return { 'filter[publish_start][gt]': now };
  if (schedule === 'expired') return { 'filter[publish_end][lt]': now };
  return {};
}

export function ObjectsPage({ route }: { route: string[] }) {
  const [type, id] = route;
  if (type && id === 'new') return <ObjectList type={type} creating />;
  if (type && id) return <ObjectEditor key={`${type}/${id}`} type={type} id={id} />;
  return <ObjectList type={type ?? ''} />;
}

const DEFAULT_SORT = '-modified';

function ObjectList({ type, creating = false }: { type: string; creating?: boolean }) {
  const { types, error: typesError } = useObjectTypes();
  const [params, setParams] = useHashQuery();
  const [showCreate, setShowCreate] = useState(creating);
  const [selected, setSelected] = useState<Map<string, Resource>>(new Map());
  useEffect(() => setShowCreate(creating), [creating]);
  const q = params.q ?? '';
  const status = params.status ?? '';
  const schedule = params.schedule ?? '';
  const hasDraft = params.draft ?? '';
  const mine = params.mine ?? '';
  const folder = params.folder ?? '';
  const user = useCurrentUser();
  const { tree } = useFolderTree();
  // "Now" is fixed when the filter is chosen, so the list's query does not change at every render.
  const now = useMemo(() => new Date().toISOString(), [schedule]); // eslint-disable-line react-hooks/exhaustive-deps
  const sort = params.sort ?? DEFAULT_SORT;
  const page = Math.max(1, Number(params.page) || 1);
  const choices = editorTypes(types);
  const list = useList(
    type ? `/${type}` : choices.length ? '/objects' : null,
    {
      q: q || undefined,
      // A word only a translation holds finds its object too (docs/decisions.md, "Translations").
      'filter[search_translations]': q ? 'true' : undefined,
      'filter[status]': status || undefined,
      ...scheduleFilter(schedule, now),
      'filter[has_draft]': hasDraft || undefined,
      ...mineFilter(mine, user?.id),
      'filter[parent]': folder || undefined,
      'filter[type]': type ? undefined : choices.map((t) => t.name).join(','),
      sort,
      author_names: '1',
    },
    20,
    null,
    [page, (p) => setParams({ page: p > 1 ? p : null })],
  );
  // A new list (filter, page, type) starts with nothing selected.
  useEffect(() => setSelected(new Map()), [type, q, status, schedule, hasDraft, mine, folder, sort, page]);
  const filtered = Boolean(q || status || schedule || hasDraft || mine || folder);
  // "New" only where the user's roles allow creating (any listed type when none is chosen).
  const rights = useRights();
  const canCreate = type ? may(rights, 'create', type) : choices.some((t) => may(rights, 'create', t.name));
  // Drafts are for those who may change the objects: no filter (nor marks) for the others.
  const seesDrafts = type ? may(rights, 'update', type) : choices.some((t) => may(rights, 'update', t.name));

  return (
    <section>
      <div className="page-head">
        <h1>{type ? typeLabel(types, type) : 'Objects'}</h1>
        <span className="spacer" />
        {canCreate ? (
          <button type="button" className="primary" onClick={() => setShowCreate(true)} disabled={!choices.length}>
            <Plus aria-hidden size={16} /> New {type ? singularOf(types, type) : 'object'}
          </button>
        ) : rights.loaded && type ? (
          <UnavailableAction label={`New ${singularOf(types, type)}`} icon={<Plus aria-hidden size={16} />} reason={`Your roles let you read ${typeLabel(types, type).toLowerCase()}, not create them.`} />
        ) : null}
      </div>
      <ErrorNote error={typesError} />
      <SearchBox key={q} label="Search" placeholder="Title, description, body, translations" initial={q} onSearch={(text) => setParams({ q: text, page: null })}>
        <label>
          Type
          <select value={type} onChange={(e) => navigate('objects', ...(e.target.value ? [e.target.value] : []))}>
            <option value="">All types</option>
            <TypeOptions types={choices} />
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setParams({ status: e.target.value, page: null })}>
            <option value="">Any status</option>
            {STATUS_OPTIONS.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Schedule
          <select value={schedule} onChange={(e) => setParams({ schedule: e.target.value, page: null })}>
            <option value="">Any</option>
            {SCHEDULE_OPTIONS.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <SelectField label="Mine" name="mine" values={{ mine }} options={MINE_OPTIONS} onChange={(v) => setParams({ mine: String(v.mine), page: null })} />
        <label>
          Folder
          <select value={folder} onChange={(e) => setParams({ folder: e.target.value, page: null })}>
            <option value="">Any folder</option>
            {folder && !tree?.byId.has(folder) ? <option value={folder}>Folder {folder}</option> : null}
            {foldersInOrder(tree?.roots ?? []).map((f) => (
              <option key={f.id} value={f.id}>
                {folderPath(tree, f.id)}
              </option>
            ))}
          </select>
        </label>
        {seesDrafts ? <SelectField label="Draft" name="draft" values={{ draft: hasDraft }} options={DRAFT_FILTER_OPTIONS} onChange={(v) => setParams({ draft: String(v.draft), page: null })} /> : null}
      </SearchBox>
      <BulkBar selected={[...selected.values()]} onDone={() => void list.reload()} onClear={() => setSelected(new Map())} />
      <ListView
        list={list}
        empty={filtered ? 'No object matches these filters.' : type ? `No ${type} yet.` : 'No objects yet.'}
        emptyIcon={<FileText size={28} />}
        emptyAction={
          filtered ? (
            <button type="button" onClick={() => setParams({ q: null, status: null, schedule: null, draft: null, mine: null, folder: null, page: null })}>
              Clear filters
            </button>
          ) : canCreate ? (
            <button type="button" onClick={() => setShowCreate(true)} disabled={!choices.length}>
              <Plus aria-hidden size={16} /> New {type ? singularOf(types, type) : 'object'}
            </button>
          ) : null
        }
        label="Object pages"
      >
        {(objects) => (
          <ObjectTable objects={objects} withDrafts={seesDrafts} sort={sort} onSort={(s) => setParams({ sort: s === DEFAULT_SORT ? null : s, page: null })} selected={selected} onSelect={setSelected} />
        )}
      </ListView>
      {showCreate && canCreate ? (
        <CreateObjectDialog
          type={type}
          onClose={() => {
            setShowCreate(false);
            if (creating) forceNavigate(href('objects', type), true);
          }}
        />
      ) : null}
    </section>
  );
}

function ObjectTable({
  objects,
  withDrafts,
  sort,
  onSort,
  selected,
  onSelect,
}: {
  objects: Resource[];
  /** Mark the objects that have a draft. */
  withDrafts: boolean;
  sort: string;
  onSort: (sort: string) => void;
  selected: Map<string, Resource>;
  onSelect: (s: Map<string, Resource>) => void;
}) {
  const { types } = useObjectTypes();
  const key = (o: Resource) => `${o.type}/${o.id}`;
  const all = objects.length > 0 && objects.every((o) => selected.has(key(o)));
  const languages = usePageLanguages(objects);
  const drafted = usePageDrafts(withDrafts ? objects : []);
  const media = objects.filter((o) => isMediaType(types, o.type));
  // The languages column only where a row of the page has a translation (room for whose it is).
  const translated = objects.some((o) => languages.get(o.id)?.length);
  const thumbs = useThumbnails(
    media.map((o) => o.id),
    'small',
  );
  const toggle = (o: Resource) => {
    const next = new Map(selected);
    if (next.has(key(o))) next.delete(key(o));
    else next.set(key(o), o);
    onSelect(next);
  };
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th className="check">
              <input type="checkbox" aria-label="Select all on this page" checked={all} onChange={() => onSelect(all ? new Map() : new Map(objects.map((o) => [key(o), o])))} />
            </th>
            <SortHeader field="title" label="Title" sort={sort} onSort={onSort} />
            <th>Type</th>
            <SortHeader field="status" label="Status" sort={sort} onSort={onSort} />
            {translated ? <th>Languages</th> : null}
            <th>Created by</th>
            <SortHeader field="modified" label="Modified" sort={sort} onSort={onSort} descendingFirst />
            <th>Modified by</th>
          </tr>
        </thead>
        <tbody>
          {objects.map((o) => (
            <tr key={key(o)} className={selected.has(key(o)) ? 'selected' : undefined}>
              <td className="check">
                <input type="checkbox" aria-label={`Select ${titleOf(o)}`} checked={selected.has(key(o))} onChange={() => toggle(o)} />
              </td>
              <td>
                {media.length ? (
                  <span className="title-with-thumb">
                    {!isMediaType(types, o.type) ? (
                      <span className="row-thumb" />
                    ) : thumbs.get(o.id)?.ready ? (
                      <span className="row-thumb">
                        <ThumbnailImage thumb={thumbs.get(o.id)} alt="" />
                      </span>
                    ) : (
                      <span className="row-thumb" role="img" aria-label="No preview yet">
                        <Image aria-hidden size={18} />
                      </span>
                    )}
                    <a href={href('objects', o.type, o.id)}>{titleOf(o)}</a>
                  </span>
                ) : (
                  <a href={href('objects', o.type, o.id)}>{titleOf(o)}</a>
                )}
              </td>
              <td>{typeLabel(types, o.type, true)}</td>
              <td className="status-cell">
                <StatusBadge status={o.attributes.status} />
                <PublicationChip attributes={o.attributes} />
                {drafted.has(o.id) ? (
                  <span className="badge warn" title={`${drafted.get(o.id)?.submitted ? 'Its draft waits for review' : 'It has a draft: changes not published yet'}; last changed by ${drafted.get(o.id)?.modified_by_name ?? 'someone'}`}>
                    {drafted.get(o.id)?.submitted ? 'Draft in review' : 'Has draft'}
                  </span>
                ) : null}
              </td>
              {translated ? (
                <td className="languages-cell">
                  {(languages.get(o.id) ?? []).map((t) => (
                    <span key={t.lang} className={`badge ${t.status === 'on' ? 'on' : ''}`} title={`${languageName(t.lang)}: ${t.status === 'on' ? 'published' : t.status}`}>
                      {t.lang}
                      <span className="visually-hidden"> ({languageName(t.lang)}, {t.status === 'on' ? 'published' : t.status})</span>
                    </span>
                  ))}
                </td>
              ) : null}
              <td className="author-cell">{authorName(o.meta.created_by_name, o.meta.created_by)}</td>
              <td className="modified-cell">{formatDate(o.meta.modified)}</td>
              <td className="author-cell">{authorName(o.meta.modified_by_name, o.meta.modified_by)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A username from the list's `author_names`; a user removed for good (no name) by their number. */
function authorName(name: unknown, id: unknown): string {
  if (typeof name === 'string' && name) return name;
  return id === null || id === undefined ? '—' : `User ${String(id)}`;
}

/** The translations' languages of a page of objects, by object id (one request per page). */
function usePageLanguages(objects: Resource[]): Map<string, Array<Pick<TranslationAttributes, 'lang' | 'status'>>> {
  const [byObject, setByObject] = useState(new Map<string, Array<Pick<TranslationAttributes, 'lang' | 'status'>>>());
  const ids = objects.map((o) => o.id).join(',');
  useEffect(() => {
    let live = true;
    // Languages are a hint beside the list: a failure leaves the column empty.
    translations.ofObjects(ids ? ids.split(',') : []).then(
      (all) => {
        if (!live) return;
        const map = new Map<string, Array<Pick<TranslationAttributes, 'lang' | 'status'>>>();
        for (const t of all) {
          const id = String(t.attributes.object_id);
          map.set(id, [...(map.get(id) ?? []), { lang: t.attributes.lang, status: t.attributes.status }]);
        }
        setByObject(map);
      },
      () => live && setByObject(new Map()),
    );
    return () => {
      live = false;
    };
  }, [ids]);
  return byObject;
}

/** The drafts of a page of objects, by object id (one request per page; a failure marks none). */
function usePageDrafts(objects: Resource[]): Map<string, DraftMeta> {
  const [byObject, setByObject] = useState(new Map<string, DraftMeta>());
  const ids = objects.map((o) => o.id).join(',');
  useEffect(() => {
    let live = true;
    if (!ids) return setByObject(new Map());
    api.list('/drafts', { 'filter[id]': ids, page_size: 100 }).then(
      (page) => live && setByObject(new Map(page.data.map((d) => [d.id, (d.meta.draft ?? {}) as DraftMeta]))),
      () => live && setByObject(new Map()),
    );
    return () => {
      live = false;
    };
  }, [ids]);
  return byObject;
}

/** Asks for the title (and the type, when the list shows all) before anything is created. */
function CreateObjectDialog({ type, onClose }: { type: string; onClose: () => void }) {
  const { types } = useObjectTypes();
  const choices = editorTypes(types);
  const [chosen, setChosen] = useState(type || (choices.some((t) => t.name === 'documents') ? 'documents' : (choices[0]?.name ?? '')));
  const [title, setTitle] = useState('');
  const { busy, error, run } = useAction();
  const toast = useToast();
  const singular = singularOf(types, chosen);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const created = await run(() => api.create(`/${chosen}`, chosen, { title: title.trim(), status: 'draft' }));
    if (!created) return;
    toast.success(`${singular.charAt(0).toUpperCase() + singular.slice(1)} “${titleOf(created.data)}” created as a draft.`, { next: true });
    forceNavigate(href('objects', chosen, created.data.id));
  };
  return (
    <Dialog title={`New ${type ? singular : 'object'}`} onClose={onClose}>
      <form onSubmit={submit} className="stack" aria-label="Create object">
        {!type ? (
          <label>
            Type
            <select value={chosen} onChange={(e) => setChosen(e.target.value)}>
              {choices.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.singularLabel}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Title
          <input name="title" value={title} onChange={(e) => setTitle(e.target.value)} required placeholder={`The ${singular}’s title`} />
        </label>
        <ErrorNote error={error} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || !title.trim() || !chosen}>
            Create {singular}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
