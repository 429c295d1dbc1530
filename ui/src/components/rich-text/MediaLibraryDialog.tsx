// Choose an image from the media library (GET /images, newest first, searchable) to place in
// a text; each shows its thumbnail. Keyboard: type, Enter to search, Tab to an image, Enter.
import { useState, type FormEvent } from 'react';
import { relativeUrl, type Resource } from '../../api/client';
import { Dialog } from '../dialog';
import { Empty, ErrorNote, Loading, Pager } from '../feedback';
import { titleOf } from '../format';
import { Image as ImageIcon } from '../icons';
import { ThumbnailImage, useThumbnails } from '../thumbnail';
import { useList } from '../use-list';

export function MediaLibraryDialog({ onPick, onClose }: { onPick: (image: { src: string; alt: string; resource: Resource }) => void; onClose: () => void }) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const list = useList('/images', { q: query || undefined, sort: query ? undefined : '-modified' }, 12);
  const items = list.result?.data ?? [];
  const thumbs = useThumbnails(
    items.map((i) => i.id),
    'small',
  );
  const search = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation();
    setQuery(text.trim());
  };
  return (
    <Dialog title="Insert an image" onClose={onClose} wide>
      <form className="toolbar" role="search" onSubmit={search}>
        <label className="grow">
          Find images
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Title or file name" />
        </label>
        <button type="submit">Find</button>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.result ? <Loading /> : null}
      {list.result && !items.length ? (
        <Empty icon={<ImageIcon size={28} />}>{query ? 'No image matches.' : 'No images yet. Upload them under Media.'}</Empty>
      ) : null}
      <ul className="image-choices">
        {items.map((m) => {
          const url = typeof m.meta.media_url === 'string' ? relativeUrl(m.meta.media_url) : null;
          return (
            <li key={m.id}>
              <button type="button" disabled={!url} onClick={() => url && onPick({ src: url, alt: titleOf(m), resource: m })}>
                {/* The name is the visible caption (axe: label-content-name-mismatch), "Insert" read first. */}
                <span className="thumb" aria-hidden="true">
                  <ThumbnailImage thumb={thumbs.get(m.id)} alt="" />
                </span>
                <span className="visually-hidden">Insert </span>
                <span className="caption">{titleOf(m)}</span>
              </button>
            </li>
          );
        })}
      </ul>
      <Pager pagination={list.result?.pagination ?? null} onPage={list.setPage} label="Image pages" />
    </Dialog>
  );
}
