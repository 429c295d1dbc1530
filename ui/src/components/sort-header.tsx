// A sortable column header: a button that sorts by the field, then reverses; aria-sort says how
// the list is sorted now.
import { ArrowDown, ArrowUp, ArrowUpDown } from './icons';

export function SortHeader({ field, label, sort, onSort, descendingFirst }: { field: string; label: string; sort: string; onSort: (sort: string) => void; descendingFirst?: boolean }) {
  const state = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : 'none';
  const next = state === 'ascending' ? `-${field}` : state === 'descending' ? field : descendingFirst ? `-${field}` : field;
  const Icon = state === 'ascending' ? ArrowUp : state === 'descending' ? ArrowDown : ArrowUpDown;
  return (
    <th aria-sort={state}>
      <button type="button" className="sort" onClick={() => onSort(next)}>
        {label}
        <Icon aria-hidden size={14} />
        <span className="visually-hidden">{state === 'none' ? ', sortable' : ''}</span>
      </button>
    </th>
  );
}
