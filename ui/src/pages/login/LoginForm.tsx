// Username + password form: the start page, and the dialog that resumes an expired session.
import { useState, type FormEvent } from 'react';
import { signIn } from '../../api/client';
import { ErrorNote } from '../../components/feedback';
import { useAction } from '../../components/use-list';

export function LoginForm({ initialUsername = '' }: { initialUsername?: string }) {
  const [username, setUsername] = useState(initialUsername);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(() => signIn(username, password));
  };
  return (
    <form className="login-form" onSubmit={submit} aria-label="Sign in">
      <label>
        Username
        <input name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required autoFocus />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
      </label>
      <ErrorNote error={error} />
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

export function LoginPage() {
  return (
    <main className="login-page">
      <div className="login-card">
        <h1>Folio</h1>
        <p className="muted">Sign in to manage content.</p>
        <LoginForm />
      </div>
    </main>
  );
}
