// Media: upload files by drag and drop (one step each: the stream and its media object), each
// with a progress bar, and browse the library: search (q), type (/media for all, /{type} for
// one), folder (filter[parent], or filter[ancestor] with its subfolders), images without alt text,
// whether they have a draft (filter[has_draft], for those who may change media), and sort — all kept in the URL's hash, so Back, Forward and a reload keep them.
// A media object opens in the Media area (#/media/{type}/{id}, the library's filters kept in its
// query), and its back link returns to the library as it was left.
import { useRef, useState } from 'react';
import { uploadMedia, type Resource } from '../../api/client';
import { ErrorNote, Loading } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { SearchBox, SelectField, StatusBadge } from '../../components/fields';
import { titleOf } from '../../components/format';
import { concreteTypes, isMediaType, typeLabel, useObjectTypes } from '../../components/model';
import { href, useHashQuery } from '../../components/route';
import { ObjectEditor } from '../objects/ObjectEditor';
import { DRAFT_FILTER_OPTIONS } from '../objects/into-draft';
import { CircleAlert, Image as ImageIcon, Upload } from '../../components/icons';
import { UnavailableAction } from '../../components/unavailable';
import { ThumbnailImage, useThumbnails } from '../../components/thumbnail';
import { guessType } from '../../components/picker-upload';
import { useToast } from '../../components/toast';
import { useList } from '../../components/use-list';
import { may, useRights } from '../../components/rights';
import { folderPath, useFolderTree } from '../folders/folder-tree-data';
import { formatBytes } from './MediaDetails';
import './media.css';

/** Sorts the list offers: the API's allow-listed fields (BEdita has no sort by file size). */
const SORTS: Array<[string, string]> = [
  ['-created', 'Newest first'],
  ['created', 'Oldest first'],
  ['-modified', 'Recently changed'],
  ['title', 'Title A–Z'],
  ['-title', 'Title Z–A'],
];
const DEFAULT_SORT = '-created';
/** With a search, the default order is the best match (no `sort`: the server ranks). */
const BEST_MATCH = 'relevance';


/** What an empty filtered list says: "No images match “boat” in this folder." */
function noMatch(what: string, q: string, narrowed: boolean): string {
  if (!q) return `No ${what} match these filters.`;
  return `No ${what} match “${q}”${narrowed ? ' with these filters' : ''}.`;
}

/** A hash with the library's filters as its query. */
function withQuery(hash: string, params: Record<string, string>): string {
  const qs = new URLSearchParams(params).toString();
  return hash + (qs ? `?${qs}` : '');
}

/** A media object's page in the Media area: `#/media/{type}/{id}?{the library's filters}`. */
const mediaHref = (type: string, id: string, params: Record<string, string>) => withQuery(href('media', type, id), params);

export function MediaPage({ route = [] }: { route?: string[] }) {
  const [type, id] = route;
  const [params] = useHashQuery();
  if (type && id) return <ObjectEditor key={`${type}/${id}`} type={type} id={id} back={{ href: withQuery(href('media'), params), label: 'Media' }} />;
  return <MediaLibrary />;
}

function MediaLibrary() {
  const { types, error: typesError } = useObjectTypes();
  const mediaTypes = concreteTypes(types).filter((t) => isMediaType(types, t.name));
  const rights = useRights();
  const creatable = mediaTypes.map((t) => t.name).filter((t) => may(rights, 'create', t));
  const [params, setParams] = useHashQuery();
  const [version, setVersion] = useState(0);
  const { tree, error: treeError } = useFolderTree();

  const q = params.q ?? '';
  // Only a media type the model has; anything else in the URL lists all media.
  const type = mediaTypes.some((t) => t.name === params.type) ? params.type : '';
  const folder = params.folder ?? '';
  const below = Boolean(folder) && params.below === '1';
  const noAlt = type === 'images' && params.alt === 'missing';
  // Drafts are for those who may change media: no filter for the others.
  const seesDrafts = (type ? [type] : mediaTypes.map((t) => t.name)).some((t) => may(rights, 'update', t));
  const hasDraft = seesDrafts ? (params.draft ?? '') : '';
  const defaultSort = q ? BEST_MATCH : DEFAULT_SORT;
  // "Best match" means something only with a search.
  const sort = params.sort && (q || params.sort !== BEST_MATCH) ? params.sort : defaultSort;
  const page = Math.max(1, Number(params.page) || 1);
  const list = useList(
    types ? (type ? `/${type}` : '/media') : null,
    {
      q: q || undefined,
      [below ? 'filter[ancestor]' : 'filter[parent]']: folder || undefined,
      'filter[alt_text]': noAlt ? 'null' : undefined,
      'filter[has_draft]': hasDraft || undefined,
      // Ties (files uploaded in the same second, equal titles) in the same direction, by id.
      sort: sort === BEST_MATCH ? undefined : `${sort},${sort.startsWith('-') ? '-' : ''}id`,
    },
    24,
    version,
    [page, (p) => setParams({ page: p > 1 ? p : null })],
  );
  const filtered = Boolean(q || type || folder || noAlt || hasDraft);
  const folders = tree ? [...tree.byId.keys()].map((id) => ({ id, path: folderPath(tree, id) })).sort((a, b) => a.path.localeCompare(b.path)) : [];
  const what = type ? typeLabel(types, type).toLowerCase() : 'media';

  return (
    <section>
      <h1>Media</h1>
      <ErrorNote error={typesError} />
      {/* Uploading creates a media object: offered only for the media types the user may create. */}
      {creatable.length ? (
        <Uploader mediaTypes={creatable} params={params} onUploaded={() => setVersion((v) => v + 1)} />
      ) : rights.loaded ? (
        <div className="toolbar">
          <UnavailableAction label="Upload files" icon={<Upload aria-hidden size={16} />} reason="Your roles do not let you add media." />
        </div>
      ) : null}
      <div className="media-filters">
      <SearchBox key={q} label="Search media" placeholder="Title, caption or alt text" initial={q} onSearch={(text) => setParams({ q: text, page: null })}>
        <label>
          Type
          <select value={type} onChange={(e) => setParams({ type: e.target.value, alt: null, page: null })}>
            <option value="">All media</option>
            {mediaTypes.map((t) => (
              <option key={t.name} value={t.name}>
                {typeLabel(types, t.name)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Folder
          <select value={folder} onChange={(e) => setParams({ folder: e.target.value, below: e.target.value ? params.below : null, page: null })}>
            <option value="">Any folder</option>
            {/* A folder in the URL that is not (yet) in the tree stays chosen, by its id. */}
            {folder && tree && !tree.byId.has(folder) ? <option value={folder}>Folder {folder}</option> : null}
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path}
              </option>
            ))}
          </select>
        </label>
        {seesDrafts ? <SelectField label="Draft" name="draft" values={{ draft: hasDraft }} options={DRAFT_FILTER_OPTIONS} onChange={(v) => setParams({ draft: String(v.draft), page: null })} /> : null}
        <label>
          Sort
          <select value={sort} onChange={(e) => setParams({ sort: e.target.value === defaultSort ? null : e.target.value, page: null })}>
            {q ? <option value={BEST_MATCH}>Best match</option> : null}
            {SORTS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </SearchBox>
      </div>
      {folder || type === 'images' ? (
        <div className="media-options">
          {folder ? (
            <label className="inline">
              <input type="checkbox" checked={below} onChange={(e) => setParams({ below: e.target.checked ? '1' : null, page: null })} />
              Include its subfolders
            </label>
          ) : null}
          {type === 'images' ? (
            <label className="inline">
              <input type="checkbox" checked={noAlt} onChange={(e) => setParams({ alt: e.target.checked ? 'missing' : null, page: null })} />
              Only images without alt text
            </label>
          ) : null}
        </div>
      ) : null}
      <ErrorNote error={treeError} />
      {!types && !typesError ? <Loading /> : null}
      {/* A search by best match ranks its newest matches only (docs/decisions.md, the search window). */}
      {list.result?.meta?.search?.complete === false ? (
        <p className="muted" role="status">
          Best match ranks the {Number(list.result.meta.search.ranked).toLocaleString()} newest matches. Choose another order to list every match.{' '}
          <button type="button" className="link" onClick={() => setParams({ sort: DEFAULT_SORT, page: null })}>
            List every match, newest first
          </button>
        </p>
      ) : null}
      <ListView
        list={list}
        empty={filtered ? noMatch(what, q, Boolean(folder || noAlt || hasDraft)) : creatable.length ? 'No media yet. Drop files above to upload them.' : 'No media yet.'}
        emptyIcon={<ImageIcon size={28} />}
        emptyAction={
          filtered ? (
            <button type="button" onClick={() => setParams({ q: null, type: null, folder: null, below: null, alt: null, draft: null, sort: null, page: null })}>
              Clear filters
            </button>
          ) : null
        }
        label="Media pages"
      >
        {(items) => <MediaGrid items={items} included={list.result?.included ?? []} params={params} />}
      </ListView>
    </section>
  );
}

interface UploadItem {
  key: number;
  file: File;
  type: string;
  progress: number;
  error: unknown;
  created: Resource | null;
}

/**
 * Drop several files (or choose them): each is uploaded in turn with its own progress bar, then
 * links to its new media object. "Create as" picks the media type, or guesses from the file.
 */
function Uploader({ mediaTypes, params, onUploaded }: { mediaTypes: string[]; params: Record<string, string>; onUploaded: () => void }) {
  const [type, setType] = useState('');
  const [uploads, setUploads] = useState<UploadItem[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const nextKey = useRef(1);
  const queue = useRef(Promise.resolve());
  const toast = useToast();

  const patch = (key: number, change: Partial<UploadItem>) => setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));
  const start = (files: File[]) => {
    if (!files.length) return;
    const added = files.map((file) => ({ key: nextKey.current++, file, type: type || guessType(file, mediaTypes), progress: 0, error: null, created: null }));
    setUploads((all) => [...added, ...all].slice(0, 50));
    for (const u of added) {
      queue.current = queue.current.then(async () => {
        try {
          const r = await uploadMedia(u.type, u.file, (progress) => patch(u.key, { progress }));
          patch(u.key, { created: r.data, progress: 1 });
          toast.success(`Uploaded “${u.file.name}” as ${u.type.replace(/s$/, '')}.`);
          onUploaded();
        } catch (e) {
          patch(u.key, { error: e });
          toast.error(e, `“${u.file.name}” was not uploaded`);
        }
      });
    }
    if (input.current) input.current.value = '';
  };

  return (
    <section className="panel" aria-label="Upload">
      <h2>Upload files</h2>
      <div
        className={`dropzone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          if (e.dataTransfer.types.includes('Files')) {
            e.preventDefault();
            setOver(true);
          }
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          start([...e.dataTransfer.files]);
        }}
      >
        <Upload aria-hidden size={28} />
        <p>Drag and drop files here, or</p>
        <label className="button">
          Choose files…
          <input ref={input} className="visually-hidden" type="file" multiple onChange={(e) => start([...(e.target.files ?? [])])} />
        </label>
        <label className="inline-select">
          Create as
          <select value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">Automatic (from the file type)</option>
            {mediaTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {uploads.length ? (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.key} className={u.error ? 'failed' : undefined}>
              <span className="upload-name">{u.file.name}</span>
              {/* A refused upload is not a full bar: it says it failed, in red, with the reason beside it. */}
              {u.error ? (
                <span className="upload-failed">
                  <CircleAlert aria-hidden size={16} /> Failed
                </span>
              ) : (
                <progress max={1} value={u.progress} aria-label={`Upload progress of ${u.file.name}`} />
              )}
              <span className="upload-state">
                {u.error ? (
                  <ErrorNote error={u.error} />
                ) : u.created ? (
                  <a href={mediaHref(u.created.type, u.created.id, params)}>Open {titleOf(u.created)}</a>
                ) : (
                  `${Math.round(u.progress * 100)}%`
                )}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** The stream of a media object among a list's `included`. */
function streamOf(m: Resource, included: Resource[]): Resource | undefined {
  const ids = ((m.relationships?.streams?.data as Array<{ id: string }> | undefined) ?? []).map((s) => s.id);
  return included.find((r) => r.type === 'streams' && ids.includes(r.id));
}

function MediaGrid({ items, included, params }: { items: Resource[]; included: Resource[]; params: Record<string, string> }) {
  const { types: model } = useObjectTypes();
  const thumbs = useThumbnails(
    items.map((i) => i.id),
    'medium',
  );
  return (
    <ul className="media-grid" aria-label="Media">
      {items.map((m) => {
        const stream = streamOf(m, included);
        const { width, height } = stream?.meta ?? {};
        const facts = [
          typeof width === 'number' && typeof height === 'number' ? `${width} × ${height}` : null,
          stream ? formatBytes(stream.meta.file_size) : null,
        ].filter(Boolean);
        const altText = typeof m.attributes.alt_text === 'string' ? m.attributes.alt_text : '';
        return (
          <li key={m.id} className="media-card">
            <a className="thumb" href={mediaHref(m.type, m.id, params)} tabIndex={-1} aria-hidden="true">
              <ThumbnailImage thumb={thumbs.get(m.id)} alt={altText || titleOf(m)} />
            </a>
            <div className="caption">
              <a href={mediaHref(m.type, m.id, params)}>{titleOf(m)}</a>
              <div className="muted">
                {typeLabel(model, m.type, true)} <StatusBadge status={m.attributes.status} />
                {m.type === 'images' && !altText ? <span className="badge missing">no alt text</span> : null}
              </div>
              {facts.length ? <div className="muted media-facts-line">{facts.join(' · ')}</div> : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
