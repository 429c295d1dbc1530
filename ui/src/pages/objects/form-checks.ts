// Checks of the object form made before saving: required fields (every `required` property of the
// type's schema, and the title of every type but media, whose title may come from the file), and
// the unique name (slug) looked up while it is typed, so a taken one is said before the server
// would quietly add a number to it.
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api/client';
import { fieldLabel } from '../../api/error-text';
import type { Values } from '../../components/fields';
import { titleOf } from '../../components/format';
import type { FormProperty } from '../../components/schema-form';

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && (v.trim() === '' || v.trim() === '<p></p>')) || (Array.isArray(v) && v.length === 0);

/** Required fields left empty, by name. `titleRequired`: the title counts as required. */
export function requiredProblems(properties: FormProperty[], values: Values, titleRequired: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of properties) {
    if (p.kind === 'boolean') continue;
    if ((p.required || (titleRequired && p.name === 'title')) && isEmpty(values[p.name])) out[p.name] = `“${fieldLabel(p.name)}” is required.`;
  }
  return out;
}

export interface SlugCheck {
  /** The value the last answer is about. */
  checked: string | null;
  /** The problem, when that value is used by another object. */
  taken: string | null;
  /** A live remark under the field ("checking", "free"). */
  notes: Record<string, string>;
}

/** Whether `value` (a changed unique name) is used by another object, asked 400 ms after typing stops. */
export function useSlugCheck(value: string, savedValue: string, objectId: string): SlugCheck {
  const [state, setState] = useState<{ checked: string | null; taken: string | null; note: string | null }>({ checked: null, taken: null, note: null });
  const asked = useRef(0);
  useEffect(() => {
    const ask = ++asked.current;
    const wanted = value.trim();
    if (!wanted || wanted === savedValue) {
      setState({ checked: null, taken: null, note: null });
      return;
    }
    setState((s) => ({ ...s, note: 'Checking whether this name is free…' }));
    const timer = setTimeout(() => {
      api.list('/objects', { 'filter[uname]': wanted, page_size: 2 }).then(
        (r) => {
          if (ask !== asked.current) return; // a newer value is being checked
          const other = r.data.find((o) => o.id !== objectId);
          setState(
            other
              ? { checked: value, taken: `“${wanted}” is already used by “${titleOf(other)}” (${other.type}). Choose another unique name.`, note: null }
              : { checked: value, taken: null, note: `“${wanted}” is free.` },
          );
        },
        () => ask === asked.current && setState({ checked: null, taken: null, note: null }),
      );
    }, 400);
    return () => clearTimeout(timer);
  }, [value, savedValue, objectId]);
  return { checked: state.checked, taken: state.taken, notes: state.note ? { uname: state.note } : {} };
}
