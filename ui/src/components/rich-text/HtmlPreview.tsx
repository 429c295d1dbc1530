// Stored rich text shown read-only: the HTML is parsed (never executed) and only the elements the
// editor writes are rebuilt as React elements; anything else keeps its text. Images show as
// their alt text, so a preview fetches nothing.
import { Fragment, type ReactNode } from 'react';

const KEEP = new Set(['p', 'h2', 'h3', 'h4', 'strong', 'b', 'em', 'i', 'ul', 'ol', 'li', 'br', 'blockquote', 'code', 'pre', 'a', 'figure', 'figcaption']);

function rebuild(node: Node, key: number): ReactNode {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  const children = [...el.childNodes].map((c, i) => rebuild(c, i));
  if (tag === 'img') return <span key={key} className="preview-image">[image{el.getAttribute('alt') ? `: ${el.getAttribute('alt')}` : ''}]</span>;
  if (tag === 'script' || tag === 'style') return null;
  if (!KEEP.has(tag)) return <Fragment key={key}>{children}</Fragment>;
  if (tag === 'br') return <br key={key} />;
  if (tag === 'a') {
    // A link is shown, not followed: a preview sits beside a form.
    return (
      <span key={key} className="preview-link" title={el.getAttribute('href') ?? undefined}>
        {children}
      </span>
    );
  }
  const Tag = tag as 'p';
  return <Tag key={key}>{children}</Tag>;
}

export function HtmlPreview({ html, className, id }: { html: string; className?: string; id?: string }) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return (
    <div className={className} id={id}>
      {[...doc.body.childNodes].map((c, i) => rebuild(c, i))}
    </div>
  );
}
