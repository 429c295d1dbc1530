// Loading, empty and error states, and the pager every list shows.
import { errorMessage, type Pagination } from '../api/client';

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

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Notice({ text }: { text: string | null }) {
  return text ? (
    <p className="notice" role="status">
      {text}
    </p>
  ) : null;
}

export function Pager({ pagination, onPage, label = 'Pages' }: { pagination: Pagination | null; onPage: (page: number) => void; label?: string }) {
  if (!pagination) return null;
  const { page, page_count, count } = pagination;
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
