// The permissions of a role as a matrix: object types (with `*` for every type and the abstract
// types that cover their sub-types) × actions, each all / own / none. A type without a rule of
// its own follows its nearest ancestor's, else `*`, exactly as the server resolves it (CONTRACT.md,
// Permissions): its row shows the values it follows, marked "as *"; changing one gives the type a
// rule of its own (the followed values, with that change), and "Follow *" drops it again.
import { useState } from 'react';
import type { ObjectType } from '../../components/model';
import './permissions-matrix.css';

export const ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
type Action = (typeof ACTIONS)[number];
type Reach = 'all' | 'own' | 'none';
export type PermissionRules = Record<string, string[]>;

const reachOf = (list: string[], action: Action): Reach => (list.includes(action) ? 'all' : list.includes(`${action}:own`) ? 'own' : 'none');

function withReach(list: string[], action: Action, reach: Reach): string[] {
  const rest = list.filter((a) => a !== action && a !== `${action}:own`);
  const added = reach === 'all' ? [action] : reach === 'own' ? [`${action}:own`] : [];
  return ACTIONS.flatMap((a) => (a === action ? added : rest.filter((r) => r.split(':')[0] === a)));
}

/** The key whose rule applies to `name`: its own, else the nearest ancestor's, else `*`. */
export function ruleKey(rules: PermissionRules, name: string, types: ObjectType[]): string | null {
  for (let t: ObjectType | undefined = types.find((x) => x.name === name); t; t = types.find((x) => x.name === t!.parent)) {
    if (Object.hasOwn(rules, t.name)) return t.name;
  }
  return Object.hasOwn(rules, '*') ? '*' : null;
}

/** What dropping `name`'s own rule does: follow its nearest ancestor's rule, else `*`, else none. */
function followText(rules: PermissionRules, name: string, types: ObjectType[]): string {
  const { [name]: _own, ...others } = rules;
  const parent = types.find((t) => t.name === name)?.parent;
  const followed = parent ? ruleKey(others, parent, types) : Object.hasOwn(others, '*') ? '*' : null;
  return followed ? `follow ${followed}` : 'clear';
}

/** Rows: `*`, then the type tree depth first (abstract types before their sub-types). */
function rowsOf(types: ObjectType[]): Array<{ name: string; depth: number; abstract: boolean }> {
  const out: Array<{ name: string; depth: number; abstract: boolean }> = [{ name: '*', depth: 0, abstract: true }];
  const walk = (parent: string | null, depth: number) => {
    for (const t of types.filter((x) => x.parent === parent && x.name !== 'users').sort((a, b) => a.name.localeCompare(b.name))) {
      out.push({ name: t.name, depth, abstract: t.abstract });
      walk(t.name, depth + 1);
    }
  };
  walk(null, 1);
  return out;
}

export function PermissionsMatrix({
  value,
  types,
  onChange,
  disabled,
}: {
  value: PermissionRules;
  types: ObjectType[];
  onChange: (rules: PermissionRules) => void;
  disabled?: boolean;
}) {
  const [hover, setHover] = useState<string | null>(null);
  const rows = rowsOf(types);
  const follow = (name: string) => {
    const next = { ...value };
    delete next[name];
    onChange(next);
  };
  /** A change in a row that follows another rule starts the row's own rule from what it followed. */
  const setCell = (name: string, action: Action, reach: Reach) => {
    const base = Object.hasOwn(value, name) ? value[name] : value[ruleKey(value, name, types) ?? ''] ?? [];
    onChange({ ...value, [name]: withReach(base, action, reach) });
  };
  return (
    <div className="table-wrap permissions-matrix">
      <table aria-label="Permissions">
        <thead>
          <tr>
            <th scope="col">Type</th>
            {ACTIONS.map((a) => (
              <th scope="col" key={a}>
                {a}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const own = Object.hasOwn(value, row.name);
            const from = own ? row.name : row.name === '*' ? null : ruleKey(value, row.name, types);
            const list = from ? value[from] : [];
            const label = row.name === '*' ? 'Every type (*)' : row.name;
            return (
              <tr key={row.name} className={hover === row.name ? 'hover' : undefined} onMouseEnter={() => setHover(row.name)} onMouseLeave={() => setHover(null)}>
                <th scope="row" style={{ paddingLeft: `${0.6 + row.depth * 1.1}rem` }}>
                  {label}
                  {row.abstract && row.name !== '*' ? <span className="badge">abstract</span> : null}
                  {row.name === '*' ? null : own ? (
                    <button type="button" className="link follow" onClick={() => follow(row.name)} disabled={disabled} aria-label={`${label}: ${followText(value, row.name, types)}`}>
                      {followText(value, row.name, types)}
                    </button>
                  ) : (
                    <span className="follows">{from ? `as ${from}` : 'not set'}</span>
                  )}
                </th>
                {ACTIONS.map((action) => {
                  const reach = reachOf(list, action);
                  return (
                    <td key={action}>
                      <select
                        aria-label={`${label}: ${action}`}
                        value={reach}
                        disabled={disabled}
                        className={`reach ${reach}${own || row.name === '*' ? '' : ' followed'}`}
                        onChange={(e) => setCell(row.name, action, e.target.value as Reach)}
                      >
                        <option value="all">all</option>
                        {action === 'create' ? null : <option value="own">own</option>}
                        <option value="none">none</option>
                      </select>
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
