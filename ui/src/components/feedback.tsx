// Loading, empty and error states, and the pager every list shows.
import type { ReactNode } from 'react';
import { errorMessage, type Pagination } from '../api/client';
import { Inbox } from './icons';

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const { title, detail } = errorMessage(error);
  return (
    <div className="error" role="alert">
      <strong>{title}</strong>
      {detail ? <span> — {detail}</span> : null}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

/** The one empty state: an icon, what is missing, and (optionally) the way to add it. */
export function Empty({ children, icon, action }: { children: ReactNode; icon?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <span className="empty-icon" aria-hidden>
        {icon ?? <Inbox size={28} />}
      </span>
      <p>{children}</p>
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}

export function Notice({ text }: { text: string | null }) {
  return text ? (
    <p className="notice" role="status">
      {text}
    </p>
  ) : null;
}

export function Pager({ pagination, onPage, label = 'Pages' }: { pagination: Pagination | null; onPage: (page: number) => void; label?: string }) {
  if (!pagination || pagination.count === 0) return null;
  const { page, page_count, count } = pagination;
  // One page needs no buttons, only the count.
  if (page_count <= 1 && page <= 1) {
    return (
      <nav className="pager" aria-label={label}>
        <span>
          {count} {count === 1 ? 'item' : 'items'}
        </span>
      </nav>
    );
  }
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        ‹ Previous
      </button>
      <span>
        Page {Math.min(page, page_count)} of {page_count} · {count} {count === 1 ? 'item' : 'items'}
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= page_count}>
        Next ›
      </button>
    </nav>
  );
}
