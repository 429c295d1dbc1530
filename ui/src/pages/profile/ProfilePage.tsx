// My account: every user reads and edits its own profile (PATCH /users/{own id}); changing the
// email or the password asks for the current password (the server refuses it otherwise).
import { useEffect, useState, type FormEvent } from 'react';
import { api, currentUser, signIn, type Resource } from '../../api/client';
import { ErrorNote, Loading } from '../../components/feedback';
import { Field, FormFooter, nullIfEmpty, type Values } from '../../components/fields';
import { useAction } from '../../components/use-list';

const PROFILE = ['name', 'surname', 'title', 'description', 'lang'];

export function ProfilePage() {
  const [me, setMe] = useState<Resource | null>(null);
  const [roles, setRoles] = useState<string[]>([]);
  const [loadError, setLoadError] = useState<unknown>(null);
  useEffect(() => {
    currentUser().then(async (u) => {
      setRoles(u.roles);
      setMe((await api.get(`/users/${u.id}`)).data);
    }, setLoadError);
  }, []);
  if (loadError) return <ErrorNote error={loadError} />;
  if (!me) return <Loading />;
  return (
    <section>
      <div className="page-head">
        <h1>My account</h1>
      </div>
      <p className="muted">
        Signed in as <strong>{String(me.attributes.username)}</strong>
        {roles.length ? ` · roles: ${roles.join(', ')}` : ' · no role'}
      </p>
      <ProfileForm me={me} onSaved={setMe} />
      <EmailForm me={me} onSaved={setMe} />
      <PasswordForm me={me} />
    </section>
  );
}

function ProfileForm({ me, onSaved }: { me: Resource; onSaved: (r: Resource) => void }) {
  const [values, setValues] = useState<Values>(() => Object.fromEntries(PROFILE.map((k) => [k, me.attributes[k] ?? ''])));
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    const saved = await run(() => api.update(`/users/${me.id}`, 'users', me.id, nullIfEmpty(values, PROFILE)));
    if (saved) {
      onSaved(saved.data);
      setNotice('Profile saved.');
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Profile">
      <h2>Profile</h2>
      <div className="form-grid">
        <Field label="Name" name="name" values={values} onChange={setValues} />
        <Field label="Surname" name="surname" values={values} onChange={setValues} />
        <Field label="Title" name="title" values={values} onChange={setValues} />
        <Field label="Language" name="lang" values={values} onChange={setValues} maxLength={32} />
        <Field label="Description" name="description" type="textarea" values={values} onChange={setValues} className="wide" />
      </div>
      <FormFooter error={error} notice={notice} busy={busy} label="Save profile" />
    </form>
  );
}

function EmailForm({ me, onSaved }: { me: Resource; onSaved: (r: Resource) => void }) {
  const [values, setValues] = useState<Values>({ email: me.attributes.email ?? '', old_password: '' });
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    const saved = await run(() => api.update(`/users/${me.id}`, 'users', me.id, { email: values.email || null, old_password: values.old_password }));
    if (saved) {
      onSaved(saved.data);
      setValues({ email: saved.data.attributes.email ?? '', old_password: '' });
      setNotice('Email changed.');
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Email">
      <h2>Email</h2>
      <div className="form-grid">
        <Field label="Email" name="email" type="email" values={values} onChange={setValues} autoComplete="email" />
        <Field label="Current password" name="old_password" type="password" values={values} onChange={setValues} required autoComplete="current-password" />
      </div>
      <FormFooter error={error} notice={notice} busy={busy} label="Change email" />
    </form>
  );
}

function PasswordForm({ me }: { me: Resource }) {
  const [values, setValues] = useState<Values>({ old_password: '', password: '', confirm: '' });
  const [notice, setNotice] = useState<string | null>(null);
  const [mismatch, setMismatch] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    setMismatch(values.password === values.confirm ? null : 'The new password and its confirmation differ.');
    if (values.password !== values.confirm) return;
    const saved = await run(async () => {
      await api.update(`/users/${me.id}`, 'users', me.id, { password: values.password, old_password: values.old_password });
      // A new password ends every session, this one too: sign in again with it.
      await signIn(String(me.attributes.username), values.password);
      return true;
    });
    if (saved) {
      setValues({ old_password: '', password: '', confirm: '' });
      setNotice('Password changed. Your other sessions have ended.');
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label="Password">
      <h2>Password</h2>
      <div className="form-grid">
        <Field label="Current password" name="old_password" type="password" values={values} onChange={setValues} required autoComplete="current-password" />
        <Field label="New password" name="password" type="password" values={values} onChange={setValues} required autoComplete="new-password" />
        <Field label="Repeat the new password" name="confirm" type="password" values={values} onChange={setValues} required autoComplete="new-password" />
      </div>
      <ErrorNote error={mismatch ? new Error(mismatch) : null} />
      <FormFooter error={error} notice={notice} busy={busy} label="Change password" />
    </form>
  );
}
