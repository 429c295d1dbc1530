// Media: upload files by drag and drop (one step each: the stream and its media object), each
// with a progress bar, and browse media objects with their thumbnails.
import { useRef, useState } from 'react';
import { uploadMedia, type Resource } from '../../api/client';
import { ErrorNote, Loading } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { StatusBadge } from '../../components/fields';
import { titleOf } from '../../components/format';
import { concreteTypes, isMediaType, useObjectTypes } from '../../components/model';
import { href } from '../../components/route';
import { CircleAlert, Image as ImageIcon, Upload } from '../../components/icons';
import { ThumbnailImage, useThumbnails } from '../../components/thumbnail';
import { useToast } from '../../components/toast';
import { useList } from '../../components/use-list';
import { may, useRights } from '../../components/rights';

export function MediaPage() {
  const { types, error: typesError } = useObjectTypes();
  const mediaTypes = concreteTypes(types).filter((t) => isMediaType(types, t.name));
  const rights = useRights();
  const creatable = mediaTypes.map((t) => t.name).filter((t) => may(rights, 'create', t));
  const [filterType, setFilterType] = useState('');
  const [version, setVersion] = useState(0);
  const shown = filterType ? [filterType] : mediaTypes.map((t) => t.name);
  const list = useList(shown.length ? '/objects' : null, { 'filter[type]': shown.join(','), sort: '-id' }, 24, version);

  return (
    <section>
      <h1>Media</h1>
      <ErrorNote error={typesError} />
      {/* Uploading creates a media object: offered only for the media types the user may create. */}
      {creatable.length ? <Uploader mediaTypes={creatable} onUploaded={() => setVersion((v) => v + 1)} /> : null}
      <div className="toolbar">
        <label>
          Show
          <select value={filterType} onChange={(e) => setFilterType(e.target.value)}>
            <option value="">All media</option>
            {mediaTypes.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!types && !typesError ? <Loading /> : null}
      <ListView list={list} empty={creatable.length ? 'No media yet. Drop files above to upload them.' : 'No media yet.'} emptyIcon={<ImageIcon size={28} />} label="Media pages">
        {(items) => <MediaGrid items={items} />}
      </ListView>
    </section>
  );
}

/** The type an uploaded file most likely belongs to. */
function guessType(file: File, available: string[]): string {
  const major = file.type.split('/')[0];
  const wanted = { image: 'images', audio: 'audio', video: 'videos' }[major] ?? 'files';
  return available.includes(wanted) ? wanted : (available[0] ?? 'files');
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
function Uploader({ mediaTypes, onUploaded }: { mediaTypes: string[]; onUploaded: () => void }) {
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
                  <a href={href('objects', u.created.type, u.created.id)}>Open {titleOf(u.created)}</a>
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

function MediaGrid({ items }: { items: Resource[] }) {
  const thumbs = useThumbnails(
    items.map((i) => i.id),
    'medium',
  );
  return (
    <ul className="media-grid" aria-label="Media">
      {items.map((m) => (
        <li key={m.id} className="media-card">
          <a className="thumb" href={href('objects', m.type, m.id)} tabIndex={-1} aria-hidden="true">
            <ThumbnailImage thumb={thumbs.get(m.id)} alt={titleOf(m)} />
          </a>
          <div className="caption">
            <a href={href('objects', m.type, m.id)}>{titleOf(m)}</a>
            <div className="muted">
              {m.type} <StatusBadge status={m.attributes.status} />
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}

