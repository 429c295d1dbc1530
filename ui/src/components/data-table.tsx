// The one table of the admin's lists: its columns (sortable headers, a visually hidden one for row
// actions), rows with an optional selection, and the states every list shows — error, loading,
// empty (an icon, what is missing, the way to add it) and the pager. Feed it a paged list
// (`list`, from useList) or rows already at hand (`rows`, null while loading).
import type { ReactNode } from 'react';
import type { Pagination, Resource } from '../api/client';
import { Empty, ErrorNote, Loading, Pager } from './feedback';
import { SortHeader } from './sort-header';

export interface Column<T> {
  /** The column's header, and its accessible name. */
  header: string;
  cell: (row: T) => ReactNode;
  /** A field to sort by: the header becomes a sort button (needs the table's `sort` and `onSort`). */
  sort?: string;
  /** The first click sorts newest (or largest) first. */
  descendingFirst?: boolean;
  /** Class of the column's cells. */
  className?: string;
}

export interface Selection<T> {
  selected: Set<string>;
  onChange: (next: Set<string>) => void;
  /** The accessible name of a row's box ("Select <title>"). */
  rowLabel: (row: T) => string;
}

/** A paged list as useList gives it. */
export interface ListSource<T> {
  result: { data: T[]; pagination: Pagination } | null;
  error: unknown;
  loading: boolean;
  setPage: (page: number) => void;
}

interface Props<T> {
  /** The table's accessible name. */
  label: string;
  columns: Array<Column<T> | null | false>;
  /** A paged list from useList: rows, states and pager come from it. */
  list?: ListSource<T>;
  /** Rows at hand instead of `list` (null while they load). */
  rows?: T[] | null;
  error?: unknown;
  loading?: boolean;
  pagination?: Pagination | null;
  onPage?: (page: number) => void;
  /** Accessible name of the pager (default: "<label> pages"). */
  pagerLabel?: string;
  /** What the empty state says, its icon and the way to add the first item. */
  empty: ReactNode;
  emptyIcon?: ReactNode;
  emptyAction?: ReactNode;
  /** The sort in force and how to change it (for columns with `sort`). */
  sort?: string;
  onSort?: (sort: string) => void;
  selection?: Selection<T>;
  /** The buttons of a row, in a last column whose header only screen readers read. */
  actions?: (row: T) => ReactNode;
  rowKey?: (row: T) => string;
  rowClassName?: (row: T) => string | undefined;
}

const keyOf = (row: unknown) => String((row as { id?: unknown }).id);

export function DataTable<T = Resource>({
  label,
  columns,
  list,
  rows: given,
  error = list?.error,
  loading = list?.loading,
  pagination = list?.result?.pagination ?? null,
  onPage = list?.setPage,
  pagerLabel,
  empty,
  emptyIcon,
  emptyAction,
  sort = '',
  onSort,
  selection,
  actions,
  rowKey = keyOf,
  rowClassName,
}: Props<T>) {
  const rows = list ? (list.result?.data ?? null) : (given ?? null);
  const shown = columns.filter((c): c is Column<T> => Boolean(c));
  const allSelected = Boolean(selection && rows?.length && rows.every((r) => selection.selected.has(rowKey(r))));
  const toggle = (key: string) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    selection.onChange(next);
  };
  return (
    <>
      <ErrorNote error={error} />
      {loading && !rows ? <Loading /> : null}
      {rows && rows.length === 0 ? (
        <Empty icon={emptyIcon} action={emptyAction}>
          {empty}
        </Empty>
      ) : null}
      {rows && rows.length > 0 ? (
        <div className="table-wrap">
          <table aria-label={label}>
            <thead>
              <tr>
                {selection ? (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select all on this page"
                      checked={allSelected}
                      onChange={() => selection.onChange(allSelected ? new Set() : new Set(rows.map(rowKey)))}
                    />
                  </th>
                ) : null}
                {shown.map((c) =>
                  c.sort && onSort ? (
                    <SortHeader key={c.header} field={c.sort} label={c.header} sort={sort} onSort={onSort} descendingFirst={c.descendingFirst} />
                  ) : (
                    <th key={c.header} scope="col">
                      {c.header}
                    </th>
                  ),
                )}
                {actions ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const key = rowKey(row);
                return (
                  <tr key={key} className={rowClassName?.(row)}>
                    {selection ? (
                      <td>
                        <input type="checkbox" aria-label={selection.rowLabel(row)} checked={selection.selected.has(key)} onChange={() => toggle(key)} />
                      </td>
                    ) : null}
                    {shown.map((c) => (
                      <td key={c.header} className={c.className}>
                        {c.cell(row)}
                      </td>
                    ))}
                    {actions ? <td className="actions-cell">{actions(row)}</td> : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {onPage ? <Pager pagination={pagination} onPage={onPage} label={pagerLabel ?? `${label} pages`} /> : null}
    </>
  );
}
