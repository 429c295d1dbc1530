// The top of a media object's page: a large preview, the file's facts (name, type, size,
// dimensions), a download link, and the thumbnails the server makes of it. The form below it
// edits the caption (the core `description`) and, on images, the alt text (`alt_text`): what the
// rich-text editor puts in a body by default when the image is placed.
import { downloadFile, type Resource } from '../../api/client';
import type { FormProperty } from '../../components/schema-form';
import { Download } from '../../components/icons';
import { titleOf } from '../../components/format';
import { ThumbnailImage, useThumbnails } from '../../components/thumbnail';
import { useToast } from '../../components/toast';

const PRESETS: Array<[string, string]> = [
  ['small', '100 px wide'],
  ['medium', '400 px wide'],
  ['default', '800 × 600'],
];

/** A media object's form fields say what they are for: the description is the caption. */
export function withMediaHints(p: FormProperty): FormProperty {
  if (p.name !== 'description') return p;
  return { ...p, label: 'Caption', description: 'Shown under the file where it is placed in a text (the core description; editable there for each use).' };
}

export function formatBytes(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  if (n < 1024) return `${n} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  for (; v >= 1024 && i < units.length - 1; i++) v /= 1024;
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function MediaDetails({ object, included }: { object: Resource; included: Resource[] }) {
  const ids = [object.id];
  const big = useThumbnails(ids, 'default');
  const small = useThumbnails(ids, 'small');
  const medium = useThumbnails(ids, 'medium');
  const byPreset: Record<string, ReturnType<typeof useThumbnails>> = { small, medium, default: big };
  const toast = useToast();
  const streamIds = new Set(((object.relationships?.streams?.data as Array<{ id: string }> | undefined) ?? []).map((s) => s.id));
  const stream = included.find((r) => r.type === 'streams' && (streamIds.size === 0 || streamIds.has(r.id)));
  const fileName = String(stream?.attributes.file_name ?? titleOf(object));
  const url = (stream?.meta.url as string | undefined) ?? (object.meta.media_url as string | undefined);
  const width = stream?.meta.width;
  const height = stream?.meta.height;

  const download = async (e: React.MouseEvent) => {
    e.preventDefault();
    if (!url) return;
    try {
      await downloadFile(url, fileName);
    } catch (err) {
      toast.error(err, 'The download failed');
    }
  };

  return (
    <section className="panel media-details" aria-label="Preview">
      <div className="media-preview">
        <ThumbnailImage thumb={big.get(object.id)} alt={typeof object.attributes.alt_text === "string" && object.attributes.alt_text ? object.attributes.alt_text : titleOf(object)} />
      </div>
      <div className="media-facts">
        <dl>
          <dt>File name</dt>
          <dd>{stream ? fileName : '—'}</dd>
          <dt>Type</dt>
          <dd>{String(stream?.attributes.mime_type ?? '—')}</dd>
          <dt>Size</dt>
          <dd>{formatBytes(stream?.meta.file_size)}</dd>
          <dt>Dimensions</dt>
          <dd>{typeof width === 'number' && typeof height === 'number' ? `${width} × ${height} px` : '—'}</dd>
        </dl>
        {url ? (
          <a className="button" href={url} download={fileName} onClick={(e) => void download(e)}>
            <Download aria-hidden size={16} /> Download {fileName}
          </a>
        ) : null}
        <h3>Thumbnails</h3>
        <ul className="thumb-list">
          {PRESETS.map(([preset, size]) => (
            <li key={preset}>
              <span className="thumb">
                <ThumbnailImage thumb={byPreset[preset].get(object.id)} alt={`${preset} thumbnail`} />
              </span>
              <span>
                {preset} <span className="muted">({size})</span>
              </span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
