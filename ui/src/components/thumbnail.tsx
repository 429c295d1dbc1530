// A media object's thumbnail, fetched through the client (drafts' files need the token).
import { useEffect, useState } from 'react';
import { fileObjectUrl, type Thumbnail } from '../api/client';

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
