// A draft as a reader will see it once published: the admin's own preview page, which a draft's
// preview link opens (`/admin/preview/{id}?token=…` or `#/preview/{id}?token=…`). It needs no
// sign-in: the token alone reads that draft (GET /drafts/{id}?preview_token=…), read-only.
import { useEffect, useMemo, useState } from 'react';
import { drafts, publicPoster, type Resource } from '../../api/client';
import { ErrorNote, Loading } from '../../components/feedback';
import { formatDate, titleOf } from '../../components/format';
import '../../components/rich-text/image-layout.css';
import '../../components/rich-text/text-blocks.css';
import './preview.css';

/** The preview asked for by the address, if any: `/admin/preview/{id}?token=` or `#/preview/{id}?token=`. */
export function previewTarget(loc: Location = window.location): { id: string; token: string } | null {
  const path = /^\/admin\/preview\/([^/]+)\/?$/.exec(loc.pathname);
  if (path) return { id: decodeURIComponent(path[1]), token: new URLSearchParams(loc.search).get('token') ?? '' };
  const hash = /^#\/preview\/([^/?]+)(?:\?(.*))?$/.exec(loc.hash);
  if (hash) return { id: decodeURIComponent(hash[1]), token: new URLSearchParams(hash[2] ?? '').get('token') ?? '' };
  return null;
}

/** Rich text without what could run: scripts, frames, event handlers, javascript: links. */
function safeHtml(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, iframe, object, embed, style, link, meta').forEach((el) => el.remove());
  for (const el of doc.body.querySelectorAll('*')) {
    for (const attr of [...el.attributes]) {
      if (/^on/i.test(attr.name) || (/^(href|src|action|formaction)$/i.test(attr.name) && /^\s*javascript:/i.test(attr.value))) el.removeAttribute(attr.name);
    }
  }
  return doc.body.innerHTML;
}

export function PreviewPage({ id, token }: { id: string; token: string }) {
  const [object, setObject] = useState<Resource | null>(null);
  const [poster, setPoster] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    drafts.readPreview(id, token).then((r) => {
      setObject(r.data);
      document.title = `Preview: ${titleOf(r.data)} · Folio`;
      void publicPoster(r.data.type, r.data.id).then(setPoster);
    }, setError);
  }, [id, token]);
  const body = useMemo(() => safeHtml(String(object?.attributes.body ?? '')), [object]);
  return (
    <div className="preview-page">
      <p className="preview-bar" role="note">
        Preview of unpublished changes: readers do not see this version yet.
      </p>
      <main className="preview-article" id="main">
        {error ? <ErrorNote error={error} /> : null}
        {!object && !error ? <Loading /> : null}
        {object ? (
          <article>
            <h1>{titleOf(object)}</h1>
            {object.attributes.description ? <p className="preview-lead">{String(object.attributes.description).replace(/<[^>]*>/g, '')}</p> : null}
            <p className="preview-date">{formatDate(object.attributes.publish_start ?? object.meta.published ?? object.meta.modified)}</p>
            {poster ? <img className="preview-poster" src={poster} alt="" /> : null}
            <div className="preview-body" dangerouslySetInnerHTML={{ __html: body }} />
          </article>
        ) : null}
      </main>
    </div>
  );
}
