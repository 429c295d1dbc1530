// The head of a page: its title, the badges beside it and, on the right, its actions; and the
// link back to the list a detail page belongs to.
import type { ReactNode } from 'react';
import { href } from './route';

export function PageHead({ title, badges, children, level = 1, id }: { title: ReactNode; badges?: ReactNode; children?: ReactNode; level?: 1 | 2; id?: string }) {
  const Heading = level === 1 ? 'h1' : 'h2';
  return (
    <div className="page-head">
      <Heading id={id}>{title}</Heading>
      {badges}
      <span className="spacer" />
      {children}
    </div>
  );
}

/** "‹ Users": back to the list of an area. */
export function BackLink({ area, label }: { area: string; label: string }) {
  return (
    <p>
      <a href={href(area)}>‹ {label}</a>
    </p>
  );
}
