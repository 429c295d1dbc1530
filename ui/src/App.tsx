// The admin shell: login, then a sidebar of areas and the page of the current route. When the
// session expires the page stays mounted under a sign-in dialog, so nothing typed is lost.
import { useEffect, useState } from 'react';
import { currentUser, lastUsername, onSessionChange, sessionState, signOut, type CurrentUser, type SessionState } from './api/client';
import { Dialog } from './components/dialog';
import { ErrorNote } from './components/feedback';
import { href, useRoute } from './components/route';
import { LoginForm, LoginPage } from './pages/login/LoginForm';
import { pages } from './pages';

export function App() {
  const [state, setState] = useState<SessionState>(sessionState);
  useEffect(() => onSessionChange(setState), []);
  if (state === 'none') return <LoginPage />;
  return <Shell expired={state === 'expired'} />;
}

function Shell({ expired }: { expired: boolean }) {
  const route = useRoute();
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [userError, setUserError] = useState<unknown>(null);
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    if (expired) return;
    currentUser().then((u) => {
      setUser(u);
      setUserError(null);
    }, setUserError);
  }, [expired]);
  useEffect(() => setMenuOpen(false), [route.join('/')]);

  const area = route[0] ?? 'objects';
  const page = pages.find((p) => p.path === area) ?? pages[0];
  const Page = page.component;

  return (
    <div className={`shell${menuOpen ? ' menu-open' : ''}`}>
      <header className="topbar">
        <button type="button" className="menu-toggle" aria-label="Menu" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)}>
          ☰
        </button>
        <a className="brand" href={href('objects')}>
          Folio
        </a>
        <span className="spacer" />
        {user ? (
          <span className="whoami" title={user.roles.join(', ')}>
            {user.name || user.username}
          </span>
        ) : null}
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav className="sidebar" aria-label="Areas">
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <a href={href(p.path)} aria-current={p.path === page.path ? 'page' : undefined}>
                {p.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content">
        <ErrorNote error={userError} />
        <Page route={route.slice(1)} />
      </main>
      {expired ? (
        <Dialog title="Your session has expired" onClose={() => void signOut()}>
          <p className="muted">Sign in again to continue where you left off.</p>
          <LoginForm initialUsername={user?.username ?? lastUsername()} />
        </Dialog>
      ) : null}
    </div>
  );
}
