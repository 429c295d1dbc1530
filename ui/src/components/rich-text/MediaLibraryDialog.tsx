// Place an image in a text: choose it from the media library (GET /images, newest first,
// searchable; each shows its thumbnail) or upload a new one right here (for those who may create
// images; the new image is then chosen), then say how it is used here — its alt text and caption,
// taken from the image (`alt_text`, `description`) and editable for this use only, its size and
// its alignment. The same
// second step edits an image already in the text. Keyboard: type, Enter to search, Tab to an
// image, Enter; then the fields, Enter to insert.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { relativeUrl, type Resource } from '../../api/client';
import { Dialog } from '../dialog';
import { Empty, ErrorNote, Loading, Pager } from '../feedback';
import { FieldProblem } from '../fields';
import { titleOf } from '../format';
import { Image as ImageIcon } from '../icons';
import { PickerUpload } from '../picker-upload';
import { may, useRights } from '../rights';
import { ThumbnailImage, useThumbnails } from '../thumbnail';
import { useList } from '../use-list';
import { IMAGE_ALIGNS, IMAGE_SIZES, type ImageAlign, type ImageSize } from './image-nodes';
import './image-dialog.css';

/** An image as a text uses it. */
export interface PlacedImage {
  src: string;
  alt: string;
  caption: string;
  size: ImageSize;
  align: ImageAlign;
}

/** What the image itself says, the defaults of every use (full width, centred). */
export function imageDefaults(image: Resource): Omit<PlacedImage, 'src'> {
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  return { alt: text(image.attributes.alt_text), caption: text(image.attributes.description), size: 'full', align: 'center' };
}

const SIZE_LABELS: Record<ImageSize, string> = { small: 'Small', medium: 'Medium', full: 'Full width' };
const ALIGN_LABELS: Record<ImageAlign, string> = { left: 'Left, text beside', center: 'Centre', right: 'Right, text beside' };

export function MediaLibraryDialog({ editing, onPlace, onClose }: { editing?: PlacedImage | null; onPlace: (image: PlacedImage) => void; onClose: () => void }) {
  const [chosen, setChosen] = useState<Resource | null>(null);
  if (editing) return <ImageUseForm title="Image in the text" src={editing.src} initial={editing} submitLabel="Update image" onPlace={onPlace} onClose={onClose} />;
  if (chosen) {
    const src = relativeUrl(String(chosen.meta.media_url));
    return <ImageUseForm title="Insert an image" src={src} image={chosen} initial={imageDefaults(chosen)} submitLabel="Insert image" onBack={() => setChosen(null)} onPlace={onPlace} onClose={onClose} />;
  }
  return <ImageChoice onChoose={setChosen} onClose={onClose} />;
}

function ImageChoice({ onChoose, onClose }: { onChoose: (image: Resource) => void; onClose: () => void }) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const list = useList('/images', { q: query || undefined, sort: query ? undefined : '-modified' }, 12);
  const items = list.result?.data ?? [];
  const mayUpload = may(useRights(), 'create', 'images');
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
      {mayUpload ? <PickerUpload types={['images']} accept="image/*" onUploaded={onChoose} /> : null}
      <form className="toolbar" role="search" onSubmit={search}>
        <label className="grow">
          Find images
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Title, caption or alt text" />
        </label>
        <button type="submit">Find</button>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.result ? <Loading /> : null}
      {list.result && !items.length ? (
        <Empty icon={<ImageIcon size={28} />}>{query ? 'No image matches.' : mayUpload ? 'No images yet: upload one above.' : 'No images yet.'}</Empty>
      ) : null}
      <ul className="image-choices">
        {items.map((m) => {
          const url = typeof m.meta.media_url === 'string' ? m.meta.media_url : null;
          return (
            <li key={m.id}>
              <button type="button" disabled={!url} onClick={() => url && onChoose(m)}>
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

/**
 * The alt text and caption of one use of an image. The alt text is required unless the image is
 * marked decorative (then `alt=""`, which screen readers skip); an empty caption places the image
 * alone, a caption places it in a figure.
 */
function ImageUseForm({
  title,
  src,
  image,
  initial,
  submitLabel,
  onBack,
  onPlace,
  onClose,
}: {
  title: string;
  src: string;
  image?: Resource;
  initial: Omit<PlacedImage, 'src'>;
  submitLabel: string;
  onBack?: () => void;
  onPlace: (image: PlacedImage) => void;
  onClose: () => void;
}) {
  const [alt, setAlt] = useState(initial.alt);
  // An image already in a text with alt="" was marked decorative; a new one starts described.
  const [decorative, setDecorative] = useState(!image && initial.alt === '');
  const [caption, setCaption] = useState(initial.caption);
  const [size, setSize] = useState<ImageSize>(initial.size);
  const [align, setAlign] = useState<ImageAlign>(initial.align);
  const [problem, setProblem] = useState<string | null>(null);
  const altInput = useRef<HTMLInputElement>(null);
  const ids = { altHint: useId(), altProblem: useId(), captionHint: useId(), alignHint: useId() };
  const thumbs = useThumbnails(image ? [image.id] : [], 'small');
  const defaults = image ? imageDefaults(image) : null;
  useEffect(() => {
    if (problem && (decorative || alt.trim())) setProblem(null);
  }, [alt, decorative, problem]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    e.stopPropagation();
    if (!decorative && !alt.trim()) {
      setProblem('Describe what the image shows, or mark it as decorative.');
      altInput.current?.focus();
      return;
    }
    onPlace({ src, alt: decorative ? '' : alt.trim(), caption: caption.trim(), size, align });
  };

  const altHint = !image
    ? 'What the image shows, for people who cannot see it.'
    : defaults?.alt
      ? 'From the image’s alt text; a change here is for this text only.'
      : 'This image has no alt text yet: describe it here, or on the image’s page for every text.';
  const captionHint = !image ? 'Shown under the image; leave empty for none.' : defaults?.caption ? 'From the image’s caption; a change here is for this text only.' : 'Shown under the image; leave empty for none.';

  return (
    <Dialog title={title} onClose={onClose}>
      <form className="stack image-use" onSubmit={submit} aria-label="Image details" noValidate>
        {image ? (
          <div className="image-use-head">
            <span className="thumb" aria-hidden="true">
              <ThumbnailImage thumb={thumbs.get(image.id)} alt="" />
            </span>
            <strong>{titleOf(image)}</strong>
          </div>
        ) : null}
        <label>
          Alt text
          <input
            ref={altInput}
            data-autofocus={decorative ? undefined : true}
            type="text"
            value={decorative ? '' : alt}
            disabled={decorative}
            onChange={(e) => setAlt(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={[ids.altHint, problem ? ids.altProblem : ''].filter(Boolean).join(' ')}
          />
        </label>
        <span className="hint" id={ids.altHint}>
          {altHint}
        </span>
        <FieldProblem id={ids.altProblem} text={problem} />
        <label className="inline">
          <input type="checkbox" data-autofocus={decorative ? true : undefined} checked={decorative} onChange={(e) => setDecorative(e.target.checked)} />
          Decorative image (screen readers skip it)
        </label>
        <label>
          Caption
          <textarea rows={2} value={caption} onChange={(e) => setCaption(e.target.value)} aria-describedby={ids.captionHint} />
        </label>
        <span className="hint" id={ids.captionHint}>
          {captionHint}
        </span>
        <div className="image-layout">
          <fieldset>
            <legend>Size</legend>
            {IMAGE_SIZES.map((v) => (
              <label className="inline" key={v}>
                <input type="radio" name="image-size" value={v} checked={size === v} onChange={() => setSize(v)} />
                {SIZE_LABELS[v]}
              </label>
            ))}
          </fieldset>
          <fieldset aria-describedby={ids.alignHint}>
            <legend>Alignment</legend>
            {IMAGE_ALIGNS.map((v) => (
              <label className="inline" key={v}>
                <input type="radio" name="image-align" value={v} checked={align === v} onChange={() => setAlign(v)} />
                {ALIGN_LABELS[v]}
              </label>
            ))}
          </fieldset>
        </div>
        <span className="hint" id={ids.alignHint}>
          {size === 'full' ? 'A full-width image has no text beside it: choose Small or Medium for that.' : 'On the left or right, the text flows beside the image.'}
        </span>
        <div className="actions">
          {onBack ? (
            <button type="button" onClick={onBack}>
              Choose another image
            </button>
          ) : (
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          )}
          <button type="submit" className="primary">
            {submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
