// Stored rich text shown read-only: the HTML is parsed (never executed) and only the elements the
// editor writes are rebuilt as React elements; anything else keeps its text. Images show as
// their alt text, so a preview fetches nothing.
import { Fragment, type ReactNode } from 'react';
import './text-blocks.css';

const KEEP = new Set(['p', 'h2', 'h3', 'h4', 'strong', 'b', 'em', 'i', 'ul', 'ol', 'li', 'br', 'blockquote', 'code', 'pre', 'a', 'figure', 'figcaption', 'table', 'thead', 'tbody', 'tr', 'th', 'td']);
/** Cells keep their spans, and nothing else. */
const spans = (el: Element) => ({ colSpan: Number(el.getAttribute('colspan')) || undefined, rowSpan: Number(el.getAttribute('rowspan')) || undefined });

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
  if (tag === 'th' || tag === 'td') {
    const Cell = tag;
    return (
      <Cell key={key} {...spans(el)}>
        {children}
      </Cell>
    );
  }
  const Tag = tag as 'p';
  return <Tag key={key}>{children}</Tag>;
}

/** `scrollLabel`: the preview scrolls (a long text beside a form): it is a named region the
 *  keyboard can reach and scroll. */
export function HtmlPreview({ html, className, id, scrollLabel }: { html: string; className?: string; id?: string; scrollLabel?: string }) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return (
    <div className={className} id={id} {...(scrollLabel ? { tabIndex: 0, role: 'region', 'aria-label': scrollLabel } : {})}>
      {[...doc.body.childNodes].map((c, i) => rebuild(c, i))}
    </div>
  );
}
