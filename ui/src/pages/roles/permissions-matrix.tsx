// The permissions of a role as a matrix: object types (with `*` for every type and the abstract
// types that cover their sub-types) × actions, each all / own / none. A type without a rule of
// its own follows its nearest ancestor's, else `*` — shown greyed until "own rule" is ticked,
// exactly as the server resolves it (CONTRACT.md, Permissions).
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
function ruleKey(rules: PermissionRules, name: string, types: ObjectType[]): string | null {
  for (let t: ObjectType | undefined = types.find((x) => x.name === name); t; t = types.find((x) => x.name === t!.parent)) {
    if (Object.hasOwn(rules, t.name)) return t.name;
  }
  return Object.hasOwn(rules, '*') ? '*' : null;
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
  const setOwnRule = (name: string, on: boolean) => {
    const next = { ...value };
    if (on) next[name] = [...(value[ruleKey(value, name, types) ?? ''] ?? [])];
    else delete next[name];
    onChange(next);
  };
  const setCell = (name: string, action: Action, reach: Reach) => onChange({ ...value, [name]: withReach(value[name] ?? [], action, reach) });
  return (
    <div className="table-wrap permissions-matrix">
      <table aria-label="Permissions">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Own rule</th>
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
                </th>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${label}: own rule`}
                    checked={own}
                    disabled={disabled}
                    onChange={(e) => setOwnRule(row.name, e.target.checked)}
                    title={own ? 'This type has its own rule' : `Follows ${from ?? 'no rule'}`}
                  />
                </td>
                {ACTIONS.map((action) => {
                  const reach = reachOf(list, action);
                  return (
                    <td key={action}>
                      <select
                        aria-label={`${label}: ${action}`}
                        value={reach}
                        disabled={disabled || !own}
                        className={`reach ${reach}`}
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
