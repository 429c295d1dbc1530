// Webhooks: list and create; a detail page to edit, enable or disable, delete, send a test event,
// see the signing secret (and make a new one), and follow the deliveries with their status and
// attempts (refreshed while some are still waiting; a finished one can be sent again).
import { useEffect, useState, type FormEvent } from 'react';
import { WEBHOOK_EVENTS, webhooks, type Resource, type WebhookAttributes } from '../../api/client';
import { ConfirmButton } from '../../components/dialog';
import { ErrorNote, Loading, Notice } from '../../components/feedback';
import { Field, FormFooter, type Values } from '../../components/fields';
import { formatDate } from '../../components/format';
import { DataTable, type Column } from '../../components/data-table';
import { useObjectTypes } from '../../components/model';
import { href, navigate } from '../../components/route';
import { useAction, useList } from '../../components/use-list';
import { useResource } from '../../components/use-resource';
import { BackLink, PageHead } from '../../components/page-head';

export function WebhooksPage({ route }: { route: string[] }) {
  return route[0] ? <WebhookDetail id={route[0]} /> : <WebhookList />;
}

const EVENT_LABELS: Record<string, string> = {
  'objects.create': 'Created',
  'objects.update': 'Updated',
  'objects.trash': 'Moved to trash',
  'objects.restore': 'Restored',
  'objects.remove': 'Deleted permanently',
  'objects.publish': 'Went live (published, or its window opened)',
  'objects.unpublish': 'Went offline (unpublished, or its window closed)',
  'drafts.submitted': 'Draft submitted for review',
  'webhooks.test': 'Test event',
};

const NEW_WEBHOOK: Values = { name: '', url: '', events: ['*'], types: [], enabled: true };

/** Form values → attributes: every event when all of them (or none of them by mistake) are ticked. */
function attributesOf(values: Values): Partial<WebhookAttributes> {
  const events: string[] = values.events ?? ['*'];
  const all = events.includes('*') || WEBHOOK_EVENTS.every((e) => events.includes(e));
  return { name: values.name, url: values.url, events: all ? ['*'] : events, types: values.types ?? [], enabled: Boolean(values.enabled) };
}

const describeEvents = (events: string[]) => (events.includes('*') ? 'All events' : events.map((e) => EVENT_LABELS[e] ?? e).join(', '));
const describeTypes = (types: string[]) => (types.length ? types.join(', ') : 'All types');

function toggled(list: string[], value: string, on: boolean): string[] {
  return on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value);
}

/** Name, URL, the events and the object types listened to, and whether it is enabled. */
function WebhookFields({ values, onChange }: { values: Values; onChange: (v: Values) => void }) {
  const { types } = useObjectTypes();
  const events: string[] = values.events ?? ['*'];
  const all = events.includes('*');
  const chosenTypes: string[] = values.types ?? [];
  return (
    <>
      <div className="form-grid">
        <Field label="Name" name="name" values={values} onChange={onChange} required maxLength={255} />
        <Field label="URL" name="url" type="url" values={values} onChange={onChange} required hint="http:// or https://; Folio POSTs a signed JSON body here." />
      </div>
      <fieldset className="panel">
        <legend>Events</legend>
        <label className="inline">
          <input type="checkbox" checked={all} onChange={(e) => onChange({ ...values, events: e.target.checked ? ['*'] : [] })} />
          All events
        </label>
        <div className="checks">
          {WEBHOOK_EVENTS.map((event) => (
            <label className="inline" key={event}>
              <input
                type="checkbox"
                checked={all || events.includes(event)}
                disabled={all}
                onChange={(e) => onChange({ ...values, events: toggled(events, event, e.target.checked) })}
              />
              {EVENT_LABELS[event]}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="panel">
        <legend>Object types</legend>
        <p className="muted">None ticked: every type. A type of all kinds (Objects, Media) covers every kind of it.</p>
        <div className="checks">
          {(types ?? []).map((t) => (
            <label className="inline" key={t.name}>
              <input type="checkbox" checked={chosenTypes.includes(t.name)} onChange={(e) => onChange({ ...values, types: toggled(chosenTypes, t.name, e.target.checked) })} />
              {t.label}
              {t.abstract ? <span className="muted"> (all kinds)</span> : null}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="Enabled" name="enabled" type="checkbox" values={values} onChange={onChange} />
    </>
  );
}

function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span className={`badge ${enabled ? 'on' : 'off'}`}>{enabled ? 'enabled' : 'disabled'}</span>;
}

function WebhookList() {
  const list = useList(webhooks.path());
  const [values, setValues] = useState<Values>(NEW_WEBHOOK);
  const [open, setOpen] = useState(false);
  const { busy, error, run } = useAction();
  const toggle = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const created = await run(() => webhooks.create(attributesOf(values)));
    if (created) navigate('webhooks', created.data.id);
  };
  const setEnabled = async (w: Resource, enabled: boolean) => {
    if (await toggle.run(() => webhooks.update(w.id, { enabled }))) await list.reload();
  };
  return (
    <section>
      <PageHead title="Webhooks">
        {open ? null : (
          <button type="button" className="primary" onClick={() => setOpen(true)}>
            New webhook
          </button>
        )}
      </PageHead>
      <p className="muted">
        After each matching change to an object commits, Folio POSTs a JSON event to the webhook's URL, signed with its secret
        (<code>X-Folio-Signature</code>), and retries for hours when the receiver does not answer 2xx.
      </p>
      {open ? (
        <form className="panel" onSubmit={create} aria-label="New webhook">
          <h2>New webhook</h2>
          <WebhookFields values={values} onChange={setValues} />
          <FormFooter error={error} busy={busy} label="Create webhook" onCancel={() => setOpen(false)} />
        </form>
      ) : null}
      <ErrorNote error={toggle.error} />
      <DataTable
        label="Webhooks"
        pagerLabel="Webhook pages"
        list={list}
        empty="No webhooks yet."
        columns={[
          { header: 'Name', cell: (w) => <a href={href('webhooks', w.id)}>{w.attributes.name}</a> },
          { header: 'URL', cell: (w) => <code>{w.attributes.url}</code> },
          { header: 'Events', cell: (w) => describeEvents(w.attributes.events) },
          { header: 'Types', cell: (w) => describeTypes(w.attributes.types) },
          { header: 'State', cell: (w) => <EnabledBadge enabled={w.attributes.enabled} /> },
          { header: 'Created', cell: (w) => formatDate(w.meta.created) },
        ]}
        actions={(w) => (
          <button type="button" className="small" disabled={toggle.busy} onClick={() => void setEnabled(w, !w.attributes.enabled)}>
            {w.attributes.enabled ? `Disable` : `Enable`}
            <span className="visually-hidden"> {w.attributes.name}</span>
          </button>
        )}
      />
    </section>
  );
}

function WebhookDetail({ id }: { id: string }) {
  const { resource: hook, values, setValues, loadError, notice, save, submit: write } = useResource(webhooks.path(id));
  const [refresh, setRefresh] = useState(0);
  const deliveries = useList(webhooks.deliveriesPath(id), { sort: '-id' }, 20, refresh);
  const action = useAction();
  const [actionNotice, setActionNotice] = useState<string | null>(null);
  const [showSecret, setShowSecret] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);

  // While a delivery waits for a retry, look again every few seconds.
  const waiting = (deliveries.result?.data ?? []).some((d) => d.meta.state === 'pending');
  useEffect(() => {
    if (!waiting) return;
    const t = setInterval(() => setRefresh((n) => n + 1), 3000);
    return () => clearInterval(t);
  }, [waiting]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await write(() => webhooks.update(id, attributesOf(values)));
  };
  const run = async (work: () => Promise<string>) => {
    setActionNotice(null);
    const text = await action.run(work);
    if (text) setActionNotice(text);
    setRefresh((n) => n + 1);
  };
  const sendTest = () =>
    run(async () => {
      const { data } = await webhooks.sendTest(id);
      const status = data.attributes.status;
      if (data.meta.state === 'delivered') return `Test event delivered (HTTP ${status}).`;
      throw new Error(`The test event was not accepted: ${data.meta.error ?? (status ? `HTTP ${status}` : 'no answer')}`);
    });
  const setEnabled = (enabled: boolean) =>
    run(async () => {
      const r = await webhooks.update(id, { enabled });
      setValues({ ...values, enabled: r.data.attributes.enabled });
      return enabled ? 'Webhook enabled.' : 'Webhook disabled: no events are sent until it is enabled again.';
    });

  if (loadError) return <ErrorNote error={loadError} />;
  if (!hook) return <Loading />;
  const enabled = Boolean(hook.attributes.enabled);
  const shownSecret = secret ?? String(hook.meta.secret ?? '');
  return (
    <section>
      <BackLink area="webhooks" label="Webhooks" />
      <div className="page-head">
        <h1>{hook.attributes.name}</h1>
        <EnabledBadge enabled={enabled} />
        <span className="spacer" />
        <button type="button" onClick={() => void sendTest()} disabled={action.busy}>
          Send test event
        </button>
        <button type="button" onClick={() => void setEnabled(!enabled)} disabled={action.busy}>
          {enabled ? 'Disable' : 'Enable'}
        </button>
        <ConfirmButton
          label="Delete webhook"
          title="Delete this webhook?"
          message={
            <p>
              The webhook <strong>{hook.attributes.name}</strong> and its delivery log will be deleted; deliveries still waiting are not sent.
            </p>
          }
          action={() => webhooks.remove(id)}
          onDone={() => navigate('webhooks')}
        />
      </div>
      <ErrorNote error={action.error} />
      <Notice text={actionNotice} />

      <section className="panel" aria-label="Signing secret">
        <h2>Signing secret</h2>
        <p className="muted">
          Each delivery carries <code>X-Folio-Signature: sha256=…</code>, the HMAC-SHA256 of the raw body keyed with this secret.
        </p>
        <p>
          <code aria-label="Secret">{showSecret ? shownSecret : '•'.repeat(24)}</code>{' '}
          <button type="button" className="small" onClick={() => setShowSecret(!showSecret)}>
            {showSecret ? 'Hide' : 'Show'}
          </button>{' '}
          <ConfirmButton
            label="New secret"
            className="small"
            title="Make a new secret?"
            message={<p>Receivers must use the new secret to check signatures from now on.</p>}
            action={async () => {
              const r = await webhooks.newSecret(id);
              setSecret(String(r.data.meta.secret));
              setShowSecret(true);
            }}
          />
        </p>
      </section>

      <form className="panel" onSubmit={submit} aria-label="Webhook">
        <h2>Settings</h2>
        <WebhookFields values={values} onChange={setValues} />
        <FormFooter error={save.error} notice={notice} busy={save.busy} label="Save changes" />
      </form>

      <PageHead title="Deliveries" level={2}>
        <button type="button" className="small" onClick={() => setRefresh((n) => n + 1)}>
          Refresh
        </button>
      </PageHead>
      <DataTable
        label="Deliveries"
        pagerLabel="Delivery pages"
        list={deliveries}
        empty="Nothing sent yet. Change an object, or send a test event."
        columns={DELIVERY_COLUMNS}
        actions={(d) =>
          d.meta.state !== 'pending' ? (
            <button type="button" className="small" onClick={() => void run(async () => (await webhooks.redeliver(id, d.id), 'Queued to be sent again.'))} disabled={action.busy}>
              Send again
            </button>
          ) : null
        }
      />
    </section>
  );
}

const DELIVERY_COLUMNS: Column<Resource>[] = [
  { header: 'Event', cell: (d) => EVENT_LABELS[d.attributes.event] ?? d.attributes.event },
  {
    header: 'Object',
    cell: (d) => {
      const object = d.meta.resource_type === 'webhooks' ? '—' : `${d.meta.resource_type} ${d.attributes.resource_id}`;
      return d.meta.resource_type === 'webhooks' || d.attributes.event === 'objects.remove' ? object : <a href={href('objects', String(d.meta.resource_type), d.attributes.resource_id)}>{object}</a>;
    },
  },
  {
    header: 'Result',
    cell: (d) => {
      const state = String(d.meta.state);
      const badge = state === 'delivered' ? 'on' : state === 'failed' ? 'warn' : 'draft';
      return (
        <>
          <span className={`badge ${badge}`}>{state === 'pending' && d.attributes.attempts > 0 ? 'retrying' : state}</span>
          {d.meta.error ? <div className="muted">{String(d.meta.error)}</div> : null}
          {state === 'pending' && d.meta.next_attempt ? <div className="muted">next try {formatDate(d.meta.next_attempt)}</div> : null}
        </>
      );
    },
  },
  { header: 'HTTP', cell: (d) => d.attributes.status ?? '—' },
  { header: 'Attempts', cell: (d) => `${d.attributes.attempts} / ${d.meta.max_attempts}` },
  { header: 'Created', cell: (d) => formatDate(d.attributes.created) },
  { header: 'Last attempt', cell: (d) => formatDate(d.attributes.last_attempt) },
];
