// The object editor's publication window: "Publish from" / "Publish until" in the user's time zone
// (named beside the fields), each clearable; stored by the form as UTC instants. Checked before
// saving: until must come after from.
import { useId } from 'react';
import { FieldProblem, type Values } from '../../components/fields';
import { timeZoneLabel } from '../../components/publication';

export type Problems = Record<string, string>;

/** What is wrong with the window as typed, by field name. */
export function windowProblems(values: Values): Problems {
  const start = values.publish_start ? Date.parse(values.publish_start) : NaN;
  const end = values.publish_end ? Date.parse(values.publish_end) : NaN;
  if (values.publish_start && Number.isNaN(start)) return { publish_start: 'Enter a full date and time.' };
  if (values.publish_end && Number.isNaN(end)) return { publish_end: 'Enter a full date and time.' };
  if (end <= start) return { publish_end: '“Publish until” must be later than “Publish from”.' };
  return {};
}

/** `disabled`: read only (the user may not change the object): the Clear buttons too, not only greyed. */
export function PublicationWindow({ values, onChange, problems, disabled = false }: { values: Values; onChange: (change: (old: Values) => Values) => void; problems: Problems; disabled?: boolean }) {
  const zoneId = useId();
  const bound = (name: 'publish_start' | 'publish_end', label: string, hint: string) => {
    const errorId = `${zoneId}-${name}-error`;
    const problem = problems[name];
    return (
      <div className="field">
        <label htmlFor={`${zoneId}-${name}`}>{label}</label>
        <div className="with-clear">
          <input
            id={`${zoneId}-${name}`}
            type="datetime-local"
            name={name}
            data-problem={name}
            value={values[name] ?? ''}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${zoneId} ${problem ? errorId : ''}`.trim()}
            onChange={(e) => {
              const v = e.target.value;
              onChange((old) => ({ ...old, [name]: v }));
            }}
            disabled={disabled}
          />
          <button type="button" className="small" onClick={() => onChange((old) => ({ ...old, [name]: '' }))} disabled={disabled || !values[name]} aria-label={`Clear “${label}”`}>
            Clear
          </button>
        </div>
        <span className="hint">{hint}</span>
        <FieldProblem id={errorId} text={problem} />
      </div>
    );
  };
  return (
    <fieldset className="editor-group">
      <legend>Publication window</legend>
      <p className="hint" id={zoneId}>
        Times are in your time zone, {timeZoneLabel()}. With status “On”, the public sees this object only between these times.
      </p>
      <div className="row">
        {bound('publish_start', 'Publish from', 'Empty: as soon as it is on.')}
        {bound('publish_end', 'Publish until', 'Empty: no end.')}
      </div>
    </fieldset>
  );
}
