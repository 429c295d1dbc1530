// A media object's thumbnail, fetched through the client (drafts' files need the token).
import { useEffect, useState } from 'react';
import { fileObjectUrl, thumbnails, type Thumbnail } from '../api/client';

export function ThumbnailImage({ thumb, alt }: { thumb: Thumbnail | undefined; alt: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!thumb?.ready || !thumb.url) return;
    let url: string | null = null;
    let live = true;
    fileObjectUrl(thumb.url).then(
      (u) => {
        url = u;
        if (live) setSrc(u);
        else URL.revokeObjectURL(u);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [thumb?.url, thumb?.ready]);
  if (src) return <img src={src} alt={alt} />;
  if (thumb && thumb.acceptable === false) return <span>No preview</span>;
  if (failed) return <span>Preview unavailable</span>;
  if (!thumb) return <span>No preview</span>;
  return <span>Preparing preview…</span>;
}

/** Thumbnails for the shown items; `async`-style entries that are not ready are asked again. */
export function useThumbnails(ids: string[], preset: string) {
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

