// Upload a new file from inside a picker (the rich-text image dialog, a relation's "Add to …"),
// so the writer never leaves the page for Media: drop a file on the zone or choose it with the
// button; it goes up through the same call the Media page uses (POST /{type}/upload/{name}) with
// a progress bar, a refusal is said beside it, and the new media object is handed to `onUploaded`
// (which selects or adds it). One file at a time: a picker picks one.
import { useEffect, useRef, useState } from 'react';
import { uploadMedia, type Resource } from '../api/client';
import { ErrorNote } from './feedback';
import { Upload } from './icons';
import './picker.css';

/** The type an uploaded file most likely belongs to, among those offered. */
export function guessType(file: File, available: string[]): string {
  const major = file.type.split('/')[0];
  const wanted = { image: 'images', audio: 'audio', video: 'videos' }[major] ?? 'files';
  return available.includes(wanted) ? wanted : (available[0] ?? 'files');
}

/** `types`: the media types the file may become (those the user may create, that the picker takes). */
export function PickerUpload({ types, accept, onUploaded }: { types: string[]; accept?: string; onUploaded: (created: Resource) => void }) {
  const [over, setOver] = useState(false);
  const [upload, setUpload] = useState<{ name: string; progress: number; error: unknown } | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const busy = Boolean(upload && !upload.error);
  // A file dropped beside the zone (the dialog's list, the page) is not opened by the browser in
  // place of the admin, losing what was typed.
  useEffect(() => {
    const keep = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files') || (e.target as Element | null)?.closest?.('.picker-upload')) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'none';
    };
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);

  const start = async (file: File | undefined) => {
    if (input.current) input.current.value = '';
    if (!file || busy) return;
    setUpload({ name: file.name, progress: 0, error: null });
    try {
      const r = await uploadMedia(guessType(file, types), file, (progress) => setUpload((u) => (u ? { ...u, progress } : u)));
      setUpload(null);
      onUploaded(r.data);
    } catch (e) {
      setUpload({ name: file.name, progress: 0, error: e });
    }
  };

  return (
    <div
      className={`dropzone picker-upload${over ? ' over' : ''}`}
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
        void start(e.dataTransfer.files[0]);
      }}
    >
      <Upload aria-hidden size={20} />
      <p>Drop a new file here, or</p>
      <label className="button">
        Upload a new file…
        <input ref={input} className="visually-hidden" type="file" accept={accept} disabled={busy} onChange={(e) => void start(e.target.files?.[0])} />
      </label>
      {upload && !upload.error ? (
        <div className="picker-upload-progress" role="status">
          <span>Uploading “{upload.name}”…</span>
          <progress max={1} value={upload.progress} aria-label={`Upload progress of ${upload.name}`} />
        </div>
      ) : null}
      {upload?.error ? (
        <div className="picker-upload-failed">
          <ErrorNote error={upload.error} />
          <span className="muted">“{upload.name}” was not uploaded.</span>
        </div>
      ) : null}
    </div>
  );
}
