// Drafts: every published object with unpublished changes that the user may edit (GET /drafts),
// filtered by type, by review state and to one's own. The objects' lists have no "has a draft"
// filter (the API's object lists know nothing of drafts), so this is where they are found.
import { useId } from 'react';
import { Pager } from '../../components/feedback';
import { useCurrentUser } from '../../components/current-user';
import { useObjectTypes } from '../../components/model';
import { PageHead } from '../../components/page-head';
import { useHashQuery } from '../../components/route';
import { useList } from '../../components/use-list';
import { editorTypes } from '../objects/object-types';
import { DraftList } from './DraftList';
import './drafts.css';

export function DraftsPage() {
  const user = useCurrentUser();
  const { types } = useObjectTypes();
  const [query, setQuery] = useHashQuery();
  const ids = { type: useId(), review: useId(), mine: useId() };
  const list = useList(user ? '/drafts' : null, {
    'filter[type]': query.type || undefined,
    'filter[submitted]': query.review === 'submitted' ? 'true' : query.review === 'not-submitted' ? 'false' : undefined,
    'filter[modified_by]': query.mine === '1' ? user?.id : undefined,
    sort: '-modified',
  });
  return (
    <section>
      <PageHead title="Drafts" />
      <p className="muted">Published objects with changes that readers do not see yet. Open one to review, publish or discard its changes.</p>
      <div className="toolbar" role="search" aria-label="Filter drafts">
        <label htmlFor={ids.type}>
          Type
          <select id={ids.type} value={query.type ?? ''} onChange={(e) => setQuery({ type: e.target.value })}>
            <option value="">All types</option>
            {editorTypes(types).map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label htmlFor={ids.review}>
          Review
          <select id={ids.review} value={query.review ?? ''} onChange={(e) => setQuery({ review: e.target.value })}>
            <option value="">All</option>
            <option value="submitted">Waiting for review</option>
            <option value="not-submitted">Not submitted</option>
          </select>
        </label>
        <label htmlFor={ids.mine} className="inline-check">
          <input id={ids.mine} type="checkbox" checked={query.mine === '1'} onChange={(e) => setQuery({ mine: e.target.checked ? '1' : null })} /> Only my changes
        </label>
      </div>
      <div className="panel">
        <DraftList list={list} empty="No published object has unpublished changes here." />
        <Pager pagination={list.result?.pagination ?? null} onPage={list.setPage} />
      </div>
    </section>
  );
}
