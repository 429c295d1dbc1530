// Media: upload files (one step: the stream and its media object) with a progress bar, and
// browse media objects with their thumbnails.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { thumbnails, uploadMedia, type Resource, type Thumbnail } from '../../api/client';
import { ErrorNote, Loading, Notice } from '../../components/feedback';
import { ListView } from '../../components/list-view';
import { StatusBadge } from '../../components/fields';
import { titleOf } from '../../components/format';
import { concreteTypes, isMediaType, useObjectTypes } from '../../components/model';
import { href } from '../../components/route';
import { ThumbnailImage } from '../../components/thumbnail';
import { useAction, useList } from '../../components/use-list';

export function MediaPage() {
  const { types, error: typesError } = useObjectTypes();
  const mediaTypes = concreteTypes(types).filter((t) => isMediaType(types, t.name));
  const [filterType, setFilterType] = useState('');
  const [version, setVersion] = useState(0);
  const shown = filterType ? [filterType] : mediaTypes.map((t) => t.name);
  const list = useList(shown.length ? '/objects' : null, { 'filter[type]': shown.join(','), sort: '-id' }, 24, version);

  return (
    <section>
      <h1>Media</h1>
      <ErrorNote error={typesError} />
      <UploadForm mediaTypes={mediaTypes.map((t) => t.name)} onUploaded={() => setVersion((v) => v + 1)} />
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
      <ListView list={list} empty="No media yet. Upload a file above." label="Media pages">
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

function UploadForm({ mediaTypes, onUploaded }: { mediaTypes: string[]; onUploaded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [type, setType] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [created, setCreated] = useState<Resource | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const { busy, error, run } = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setNotice(null);
    setProgress(0);
    const target = type || guessType(file, mediaTypes);
    const r = await run(() => uploadMedia(target, file, setProgress));
    setProgress(null);
    if (r) {
      setCreated(r.data);
      setNotice(`Uploaded “${file.name}” as ${target.replace(/s$/, '')} #${r.data.id}.`);
      setFile(null);
      if (input.current) input.current.value = '';
      onUploaded();
    }
  };

  return (
    <form className="panel" onSubmit={submit} aria-label="Upload">
      <h2>Upload a file</h2>
      <div className="toolbar">
        <label className="grow">
          File
          <input ref={input} type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} required />
        </label>
        <label>
          Create as
          <select value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">{file ? `Automatic (${guessType(file, mediaTypes)})` : 'Automatic'}</option>
            {mediaTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={!file || busy}>
          Upload
        </button>
      </div>
      {progress !== null ? (
        <label>
          Upload progress {Math.round(progress * 100)}%
          <progress max={1} value={progress} />
        </label>
      ) : null}
      <ErrorNote error={error} />
      <Notice text={notice} />
      {created ? (
        <p>
          <a href={href('objects', created.type, created.id)}>Edit {titleOf(created)}</a>
        </p>
      ) : null}
    </form>
  );
}

/** Thumbnails for the shown items; `async`-style entries that are not ready are asked again. */
function useThumbnails(ids: string[], preset: string) {
  const [thumbs, setThumbs] = useState<Map<string, Thumbnail>>(new Map());
  const key = ids.join(',');
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (attempt: number) => {
      try {
        const list = await thumbnails(key ? key.split(',') : [], preset);
        if (!live) return;
        setThumbs(new Map(list.map((t) => [String(t.id), t])));
        if (attempt < 10 && list.some((t) => !t.ready && t.acceptable !== false)) timer = setTimeout(() => void load(attempt + 1), 1000);
      } catch {
        /* previews are optional: cards show "No preview" */
      }
    };
    void load(0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key, preset]);
  return thumbs;
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
          <a className="thumb" href={href('objects', m.type, m.id)} aria-label={`Open ${titleOf(m)}`}>
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

/** The preview of one media object, on its edit page. */
export function MediaPreview({ object }: { object: Resource }) {
  const thumbs = useThumbnails([object.id], 'default');
  return (
    <section className="panel media-preview" aria-label="Preview">
      <ThumbnailImage thumb={thumbs.get(object.id)} alt={titleOf(object)} />
    </section>
  );
}
