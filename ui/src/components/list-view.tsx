// The states every paged list shows: error, loading, empty, the items, and the pager.
import type { ReactNode } from 'react';
import type { Resource } from '../api/client';
import { Empty, ErrorNote, Loading, Pager } from './feedback';
import type { PagedList } from './use-list';

export function ListView({
  list,
  empty,
  label,
  children,
  emptyIcon,
  emptyAction,
}: {
  list: PagedList;
  empty: ReactNode;
  emptyIcon?: ReactNode;
  emptyAction?: ReactNode;
  /** Accessible name of the pager. */
  label: string;
  children: (data: Resource[]) => ReactNode;
}) {
  const r = list.result;
  return (
    <>
      <ErrorNote error={list.error} />
      {list.loading && !r ? <Loading /> : null}
      {r && r.data.length === 0 ? <Empty icon={emptyIcon} action={emptyAction}>
          {empty}
        </Empty> : null}
      {r && r.data.length > 0 ? children(r.data) : null}
      <Pager pagination={r?.pagination ?? null} onPage={list.setPage} label={label} />
    </>
  );
}
