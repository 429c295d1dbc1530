// Drafts of published objects as a short list (Home, the Drafts page): each object's title as a
// link to its editor, its type, whether it waits for review or is scheduled, and how long ago it
// was changed.
import type { Resource } from '../../api/client';
import { Empty, ErrorNote, Loading } from '../../components/feedback';
import { formatDate, titleOf } from '../../components/format';
import { FileText } from '../../components/icons';
import { href } from '../../components/route';
import type { PagedList } from '../../components/use-list';
import { ago } from '../objects/draft-panel';

export function DraftList({ list, empty }: { list: PagedList; empty: string }) {
  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.result) return <Loading />;
  if (!list.result.data.length) return <Empty icon={<FileText size={28} />}>{empty}</Empty>;
  return (
    <ul className="recent">
      {list.result.data.map((o: Resource) => {
        const d = (o.meta.draft ?? {}) as { modified?: string; submitted?: string | null; publish_at?: string | null };
        return (
          <li key={`${o.type}-${o.id}`}>
            <a href={href('objects', o.type, o.id)}>{titleOf(o)}</a>
            <span className="muted">{o.type}</span>
            {d.publish_at ? (
              <span className="badge scheduled">Goes live {formatDate(d.publish_at)}</span>
            ) : d.submitted ? (
              <span className="badge">In review</span>
            ) : (
              <span className="badge draft">Draft</span>
            )}
            <span className="muted when" title={formatDate(d.modified)}>
              {ago(d.modified)}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
