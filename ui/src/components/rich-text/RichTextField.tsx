// A rich-text field of a form. The editor itself (TipTap over ProseMirror, ~100 kB gzipped) is
// loaded the first time a form shows one, so the admin's first load stays small.
import { lazy, Suspense, useId } from 'react';

const RichTextEditor = lazy(() => import('./RichTextEditor'));

export function RichTextField({ label, value, onChange, description }: { label: string; value: string; onChange: (html: string) => void; description?: string }) {
  const labelId = useId();
  const hintId = useId();
  return (
    <div className="field wide">
      <span className="field-label" id={labelId}>
        {label}
      </span>
      <Suspense fallback={<div className="rte rte-loading">Loading the editor…</div>}>
        <RichTextEditor labelId={labelId} describedBy={description ? hintId : undefined} value={value} onChange={onChange} />
      </Suspense>
      {description ? (
        <span className="hint" id={hintId}>
          {description}
        </span>
      ) : null}
    </div>
  );
}
