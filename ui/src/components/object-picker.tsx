// Find existing objects by text (GET /objects?q=…) and pick one: used to add related objects
// and folder contents. `exclude` hides what may not be picked (the object itself, what is
// already related); `types` limits the search to the types the relation allows. Media found show
// their thumbnail beside the title (fetched with the session); when the types allowed are media
// types (a poster: images; attachments) and the user may create some, a new file can be uploaded
// right here and is picked at once.
import { useState, type FormEvent } from 'react';
import type { Resource } from '../api/client';
import { Empty, ErrorNote, Loading, Pager } from './feedback';
import { StatusBadge } from './fields';
import { titleOf } from './format';
import { Search } from './icons';
import { isMediaType, typeLabel, useObjectTypes } from './model';
import { PickerUpload } from './picker-upload';
import { may, useRights } from './rights';
import { ThumbnailImage, useThumbnails } from './thumbnail';
import { useList } from './use-list';
import './picker.css';

export function ObjectPicker({
  onPick,
  types,
  busy,
  label = 'Find objects',
  pickLabel = 'Add',
  exclude,
}: {
  onPick: (r: Resource) => void;
  types?: string[];
  busy?: boolean;
  label?: string;
  /** The word on each found object's button. */
  pickLabel?: string;
  exclude?: (r: Resource) => boolean;
}) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const list = useList(query === null ? null : '/objects', { q: query || undefined, 'filter[type]': types?.length ? types.join(',') : undefined }, 10);
  const shown = list.result ? list.result.data.filter((r) => !exclude?.(r)) : null;
  const { types: model } = useObjectTypes();
  const rights = useRights();
  const media = (shown ?? []).filter((r) => isMediaType(model, r.type));
  const thumbs = useThumbnails(
    media.map((r) => r.id),
    'small',
  );
  // Only a picker of media (a poster, attachments): one that takes any type ("See also") is for finding.
  const ofMedia = Boolean(types?.length) && types!.every((t) => isMediaType(model, t));
  const uploadTypes = ofMedia ? types!.filter((t) => may(rights, 'create', t)) : [];
  const accept = uploadTypes.every((t) => t === 'images') ? 'image/*' : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation();
    setQuery(text.trim());
  };
  return (
    <div className="picker">
      {uploadTypes.length ? <PickerUpload types={uploadTypes} accept={accept} onUploaded={onPick} /> : null}
      <form className="toolbar" role="search" onSubmit={submit}>
        <label className="grow">
          {label}
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Title or text; empty lists all" />
        </label>
        <button type="submit">Find</button>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.result ? <Loading what="Searching" /> : null}
      {shown && shown.length === 0 ? <Empty icon={<Search size={28} />}>{list.result!.data.length ? 'Everything found is already added.' : 'Nothing found.'}</Empty> : null}
      {shown && shown.length > 0 ? (
        <ul className="pick-list">
          {shown.map((r) => (
            <li key={r.id}>
              {isMediaType(model, r.type) ? (
                <span className="pick-thumb" aria-hidden="true">
                  <ThumbnailImage thumb={thumbs.get(r.id)} alt="" />
                </span>
              ) : null}
              <span className="grow">
                {titleOf(r)} <span className="muted">({typeLabel(model, r.type, true)})</span> <StatusBadge status={r.attributes.status} />
              </span>
              <button type="button" className="small" onClick={() => onPick(r)} disabled={busy} aria-label={`${pickLabel} ${titleOf(r)}`}>
                {pickLabel}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {list.result ? <Pager pagination={list.result.pagination} onPage={list.setPage} label="Search result pages" /> : null}
    </div>
  );
}
