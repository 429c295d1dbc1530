// Home: what an editor looks for first — their own drafts, what changed lately, what goes live or
// expires next (published objects with a window, of the types the user may read), and how many
// objects of each type there are (each a way into its list). "My drafts" leaves media out: an
// upload is a draft until published, and a batch of them would push the writing off the panel
// (Media lists them). "Scheduled" shows drafts given a start too (they go live once published).
import { useEffect, useMemo, useState } from 'react';
import { api, type Resource } from '../../api/client';
import { useCurrentUser } from '../../components/current-user';
import { Empty, ErrorNote, Loading } from '../../components/feedback';
import { StatusBadge } from '../../components/fields';
import { formatDate, titleOf } from '../../components/format';
import { FileText, Plus } from '../../components/icons';
import { concreteTypes, isMediaType, typeLabel, useObjectTypes, type ObjectType } from '../../components/model';
import { href } from '../../components/route';
import { useList, type PagedList } from '../../components/use-list';
import { editorTypes, singularOf } from '../objects/object-types';
import { may, useRights } from '../../components/rights';
import { DraftList } from '../drafts/DraftList';

const SCHEDULED_SHOWN = 8;

export function HomePage() {
  const user = useCurrentUser();
  const rights = useRights();
  const { types, error } = useObjectTypes();
  const listed = editorTypes(types);
  // The button makes what the user may make: documents first, else the first type they may create.
  const creatable = listed.filter((t) => may(rights, 'create', t.name));
  const creates = creatable.find((t) => t.name === 'documents') ?? creatable[0];
  const typeFilter = listed.length ? listed.map((t) => t.name).join(',') : null;
  const recent = useList(typeFilter ? '/objects' : null, { 'filter[type]': typeFilter, sort: '-modified' }, 8);
  const written = listed.filter((t) => !isMediaType(types, t.name));
  const writtenFilter = written.length ? written.map((t) => t.name).join(',') : null;
  const drafts = useList(writtenFilter && user ? '/objects' : null, { 'filter[type]': writtenFilter, 'filter[status]': 'draft', 'filter[created_by]': user?.id, sort: '-modified' }, 8);
  return (
    <section>
      <div className="page-head">
        <h1>Welcome{user ? `, ${user.name || user.username}` : ''}</h1>
        <span className="spacer" />
        {creates ? (
          <a className="button primary" href={href('objects', creates.name, 'new')}>
            <Plus aria-hidden size={16} /> New {singularOf(types, creates.name)}
          </a>
        ) : null}
      </div>
      <ErrorNote error={error} />
      <div className="dashboard">
        <section className="panel" aria-labelledby="home-drafts">
          <h2 id="home-drafts">My drafts</h2>
          <RecentList list={drafts} empty="You have no drafts. Everything you wrote is published or off." />
        </section>
        <section className="panel" aria-labelledby="home-recent">
          <h2 id="home-recent">Recently changed</h2>
          <RecentList list={recent} empty="Nothing has been written yet." />
        </section>
      </div>
      <DraftsSections />
      <section className="panel" aria-labelledby="home-scheduled">
        <h2 id="home-scheduled">Scheduled</h2>
        <ScheduledList types={listed.map((t) => t.name)} />
      </section>
      <section aria-labelledby="home-counts">
        <h2 id="home-counts">Content by type</h2>
        {types ? <TypeCounts types={concreteTypes(types).filter((t) => t.name !== 'users')} /> : <Loading />}
      </section>
    </section>
  );
}

function RecentList({ list, empty }: { list: PagedList; empty: string }) {
  const { types } = useObjectTypes();
  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.result) return <Loading />;
  if (!list.result.data.length) return <Empty icon={<FileText size={28} />}>{empty}</Empty>;
  return (
    <ul className="recent">
      {list.result.data.map((o: Resource) => (
        <li key={`${o.type}-${o.id}`}>
          <a href={href('objects', o.type, o.id)}>{titleOf(o)}</a>
          <span className="muted">{typeLabel(types, o.type, true)}</span>
          <StatusBadge status={o.attributes.status} />
          <span className="muted when">{formatDate(o.meta.modified)}</span>
        </li>
      ))}
    </ul>
  );
}

/** The next publication bounds to come: objects going live or expiring, soonest first. */
function ScheduledList({ types }: { types: string[] }) {
  const rights = useRights();
  const model = useObjectTypes().types;
  const readable = types.filter((t) => may(rights, 'read', t)).join(',');
  const now = useMemo(() => new Date().toISOString(), []);
  const path = readable ? '/objects' : null;
  // Starts of any status but off: an editor's draft given a start is scheduled too, once published.
  const starting = useList(path, { 'filter[type]': readable, 'filter[status]': 'on,draft', 'filter[publish_start][gt]': now, sort: 'publish_start' }, SCHEDULED_SHOWN);
  const ending = useList(path, { 'filter[type]': readable, 'filter[status]': 'on', 'filter[publish_end][gt]': now, sort: 'publish_end' }, SCHEDULED_SHOWN);
  // Drafts scheduled to be published (the drafts list has no filter on that instant: the newest ones are read).
  const changes = useList(rights.admin || types.some((t) => may(rights, 'update', t)) ? '/drafts' : null, { sort: '-modified' }, 100);
  const error = starting.error ?? ending.error;
  if (error) return <ErrorNote error={error} />;
  if (!readable) return <Empty icon={<FileText size={28} />}>Nothing is scheduled.</Empty>;
  if (!starting.result || !ending.result) return <Loading />;
  const scheduledChanges = (changes.result?.data ?? []).filter((o) => (o.meta.draft as { publish_at?: string | null } | undefined)?.publish_at);
  const events = [
    ...starting.result.data.map((o) => ({ o, at: String(o.attributes.publish_start), what: o.attributes.status === 'on' ? 'Goes live' : 'Goes live once published' })),
    ...ending.result.data.map((o) => ({ o, at: String(o.attributes.publish_end), what: 'Expires' })),
    ...scheduledChanges.map((o) => ({ o, at: String((o.meta.draft as { publish_at: string }).publish_at), what: 'Changes go live' })),
  ]
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
    .slice(0, SCHEDULED_SHOWN);
  if (!events.length) return <Empty icon={<FileText size={28} />}>Nothing is scheduled to go live or expire.</Empty>;
  return (
    <ul className="recent" aria-label="Scheduled objects">
      {events.map(({ o, at, what }) => (
        <li key={`${o.type}-${o.id}-${what}`}>
          <a href={href('objects', o.type, o.id)}>{titleOf(o)}</a>
          <span className="muted">{typeLabel(model, o.type, true)}</span>
          <span className={`badge ${what === 'Expires' ? 'expired' : 'scheduled'}`}>{what}</span>
          <span className="muted when">{formatDate(at)}</span>
        </li>
      ))}
    </ul>
  );
}

function TypeCounts({ types }: { types: ObjectType[] }) {
  const [counts, setCounts] = useState<Record<string, number | null>>({});
  const key = types.map((t) => t.name).join(',');
  useEffect(() => {
    let live = true;
    for (const t of types) {
      api.list(`/${t.name}`, { page_size: 1 }).then(
        (r) => live && setCounts((c) => ({ ...c, [t.name]: r.pagination.count })),
        () => live && setCounts((c) => ({ ...c, [t.name]: null })),
      );
    }
    return () => {
      live = false;
    };
  }, [key]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <ul className="type-counts">
      {types.map((t) => (
        <li key={t.name}>
          <a href={t.name === 'folders' ? href('folders') : href('objects', t.name)}>
            <span className="count">{counts[t.name] ?? '–'}</span>
            <span>{t.label}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * Drafts of published objects: for publishers, those submitted for review; for every editor,
 * their own drafts and those scheduled to go live.
 */
function DraftsSections() {
  const user = useCurrentUser();
  const rights = useRights();
  const { types } = useObjectTypes();
  const listed = editorTypes(types);
  // The button makes what the user may make: documents first, else the first type they may create.
  const creatable = listed.filter((t) => may(rights, 'create', t.name));
  const creates = creatable.find((t) => t.name === 'documents') ?? creatable[0];
  const publisher = rights.admin || listed.some((t) => may(rights, 'publish', t.name));
  const editor = rights.admin || listed.some((t) => may(rights, 'update', t.name));
  const review = useList(publisher ? '/drafts' : null, { 'filter[submitted]': 'true', sort: 'modified' }, 20);
  const mine = useList(editor && user ? '/drafts' : null, { 'filter[modified_by]': user?.id, sort: '-modified' }, 20);
  if (!editor) return null;
  return (
    <div className="dashboard">
      {publisher ? (
        <section className="panel" aria-labelledby="home-review">
          <h2 id="home-review">Waiting for review</h2>
          <DraftList list={review} empty="No changes are waiting for review." />
        </section>
      ) : null}
      <section className="panel" aria-labelledby="home-my-changes">
        <h2 id="home-my-changes">My unpublished changes</h2>
        <DraftList list={mine} empty="You have no unpublished changes to published objects." />
        <p className="more">
          <a href={href('drafts')}>All drafts ›</a>
        </p>
      </section>
    </div>
  );
}

