// API keys (admins): the applications that call the API with `X-Api-Key` (required of everyone but
// the admin UI when the server runs with FOLIO_REQUIRE_API_KEY=1). Create one (its client secret is
// shown once, in a dialog, and never again), turn a key off (revoke: requests with it get 403 and
// its tokens end) or on again, delete it. "Last used" is the server's meta.last_used (a minute late at most).
import { useState, type FormEvent } from 'react';
import { api, type Resource } from '../../api/client';
import { DeleteButton, Dialog } from '../../components/dialog';
import { ErrorNote } from '../../components/feedback';
import { Field, useFieldError, type Values } from '../../components/fields';
import { formatDate } from '../../components/format';
import { KeyRound, Plus } from '../../components/icons';
import { DataTable } from '../../components/data-table';
import { useToast } from '../../components/toast';
import { useAction, useList } from '../../components/use-list';

const PATH = '/applications';

export function ApplicationsPage() {
  const list = useList(PATH, { sort: '-id' }, 50);
  const [values, setValues] = useState<Values>({});
  const [created, setCreated] = useState<Resource | null>(null);
  const { busy, error, run } = useAction();
  const { problems, general } = useFieldError(error, values, ['name']);
  const toast = useToast();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await run(() => api.create(PATH, 'applications', { name: String(values.name ?? '').trim(), description: values.description || null }));
    if (!r) return;
    setValues({});
    setCreated(r.data);
  };
  const setEnabled = async (app: Resource, enabled: boolean) => {
    try {
      await api.update(`${PATH}/${app.id}`, 'applications', app.id, { enabled });
      toast.success(enabled ? `“${app.attributes.name}” works again.` : `“${app.attributes.name}” is revoked: requests with its key are refused.`);
    } catch (e) {
      toast.error(e, enabled ? 'The key was not turned on' : 'The key was not revoked');
    }
  };

  return (
    <section>
      <h1>API keys</h1>
      <p className="muted">
        Each application that reads the API gets its own key, sent as the <code>X-Api-Key</code> header; with its client secret it can also sign in for a token.
      </p>
      <form className="panel" onSubmit={submit} aria-label="New API key" noValidate>
        <div className="form-grid">
          <Field label="Application name *" name="name" values={values} onChange={setValues} problem={problems.name} />
          <Field label="Description" name="description" values={values} onChange={setValues} />
        </div>
        <ErrorNote error={general} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || !String(values.name ?? '').trim()}>
            <Plus aria-hidden size={16} /> Create key
          </button>
        </div>
      </form>
      <DataTable
        label="API keys"
        pagerLabel="API key pages"
        list={list}
        empty="No API keys yet."
        emptyIcon={<KeyRound size={28} />}
        columns={[
          {
            header: 'Application',
            cell: (app) => (
              <>
                <strong>{String(app.attributes.name)}</strong>
                {app.attributes.description ? <div className="muted">{String(app.attributes.description)}</div> : null}
              </>
            ),
          },
          { header: 'Key', cell: (app) => <code className="api-key">{String(app.meta.api_key ?? '')}</code> },
          {
            header: 'State',
            cell: (app) => <span className={`badge ${app.attributes.enabled ? 'on' : 'off'}`}>{app.attributes.enabled ? 'active' : 'revoked'}</span>,
          },
          { header: 'Created', cell: (app) => formatDate(app.meta.created) },
          { header: 'Last used', cell: (app) => (app.meta.last_used ? formatDate(app.meta.last_used) : <span className="muted">never</span>) },
        ]}
        actions={(app) => {
          const name = String(app.attributes.name);
          const enabled = Boolean(app.attributes.enabled);
          return (
            <>
              <button type="button" className="small" onClick={() => void setEnabled(app, !enabled)} aria-label={`${enabled ? 'Revoke' : 'Turn on'} ${name}`}>
                {enabled ? 'Revoke' : 'Turn on'}
              </button>
              <DeleteButton
                title={`Delete the key of “${name}”?`}
                message={<p>Requests with this key are refused from now on, and it cannot be turned on again.</p>}
                action={() => api.remove(`${PATH}/${app.id}`)}
                onDone={() => toast.success(`The key of “${name}” is deleted.`)}
              />
            </>
          );
        }}
      />
      {created ? <SecretDialog app={created} onClose={() => setCreated(null)} /> : null}
    </section>
  );
}

/** The one time the client secret is shown. */
function SecretDialog({ app, onClose }: { app: Resource; onClose: () => void }) {
  const secret = String(app.meta.client_secret ?? '');
  const [copied, setCopied] = useState(false);
  return (
    <Dialog title={`Key for “${String(app.attributes.name)}” created`} onClose={onClose}>
      <div className="dialog-body">
        <p>
          <strong>Copy the client secret now: it is shown only this once.</strong> The key stays visible in the list.
        </p>
        <dl className="facts">
          <dt>API key</dt>
          <dd>
            <code className="api-key">{String(app.meta.api_key ?? '')}</code>
          </dd>
          <dt>Client secret</dt>
          <dd>
            <code className="api-key" data-testid="client-secret">
              {secret}
            </code>
          </dd>
        </dl>
      </div>
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy the secret'}
        </button>
        <button type="button" className="primary" onClick={onClose} data-autofocus>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}
