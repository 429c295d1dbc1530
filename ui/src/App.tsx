// The admin shell: login, then a sticky sidebar of areas and the page of the current route. When
// the session expires the page stays mounted under a sign-in dialog, so nothing typed is lost.
import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { lastUsername, onSessionChange, sessionState, signOut, type SessionState } from './api/client';
import { queryClient } from './api/queries';
import { CurrentUserContext } from './components/current-user';
import { Dialog } from './components/dialog';
import { ErrorNote } from './components/feedback';
import { LogOut, Menu } from './components/icons';
import { NO_RIGHTS, RightsProvider, useSignedInUser, type Rights } from './components/rights';
import { href, useRoute } from './components/route';
import { keepFocusAfterSubmit } from './components/keep-focus';
import { ThemeSwitch } from './components/theme';
import { ToastProvider } from './components/toast';
import { LeavePrompt } from './components/unsaved';
import { LoginForm, LoginPage } from './pages/login/LoginForm';
import { mayOpen, pages } from './pages';
import { PreviewPage, previewTarget } from './pages/preview/PreviewPage';

export function App() {
  const [state, setState] = useState<SessionState>(sessionState);
  useEffect(() => onSessionChange(setState), []);
  // A draft's preview link: its own page, for anyone holding the token (no sign-in).
  const preview = useMemo(() => previewTarget(), []);
  if (preview) return <PreviewPage id={preview.id} token={preview.token} />;
  return (
    <QueryClientProvider client={queryClient}>
      {state === 'none' ? (
        <LoginPage />
      ) : (
        <ToastProvider>
          <Shell expired={state === 'expired'} />
        </ToastProvider>
      )}
    </QueryClientProvider>
  );
}

function Shell({ expired }: { expired: boolean }) {
  const route = useRoute();
  // Read again whenever rights may have changed (components/rights.tsx).
  const { user, error: userError } = useSignedInUser(expired);
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => setMenuOpen(false), [route.join('/')]);
  useEffect(() => keepFocusAfterSubmit(), []);

  // Areas and buttons follow what the user may do (components/rights.tsx).
  const rights = useMemo<Rights>(
    () => (user ? { loaded: true, admin: user.admin, userId: user.id, byType: user.rights } : NO_RIGHTS),
    [user],
  );
  const area = route[0] ?? 'home';
  const page = pages.find((p) => p.path === area) ?? pages[0];
  const allowed = mayOpen(page, rights);
  const Page = page.component;
  useEffect(() => {
    document.title = `${page.label} · Folio admin`;
  }, [page.label]);

  return (
    <CurrentUserContext.Provider value={user}>
      <div className={`shell${menuOpen ? ' menu-open' : ''}`}>
        <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
          Skip to content
        </a>
        <header className="topbar">
          <button type="button" className="menu-toggle icon-button" aria-label="Menu" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)}>
            <Menu aria-hidden size={20} />
          </button>
          <a className="brand" href={href('home')}>
            <img src="favicon.svg" alt="" width={22} height={22} />
            Folio
          </a>
          <span className="spacer" />
          <ThemeSwitch username={user?.username ?? null} />
          {user ? (
            <a
              className="whoami"
              href={href('profile')}
              aria-label={`My account: ${user.name || user.username}`}
              title={`My account${user.roles.length ? ` (${user.roles.join(', ')})` : ''}`}
            >
              {user.name || user.username}
            </a>
          ) : null}
          <button type="button" onClick={() => void signOut()}>
            <LogOut aria-hidden size={16} /> Sign out
          </button>
        </header>
        <nav className="sidebar" aria-label="Areas">
          <ul>
            {pages
              .filter((p) => mayOpen(p, rights) && !p.hidden)
              .map((p) => (
                <li key={p.path}>
                  <a href={href(p.path)} aria-current={p.path === page.path ? 'page' : undefined}>
                    <p.icon aria-hidden size={18} />
                    {p.label}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <main className="content" id="main" tabIndex={-1}>
          <ErrorNote error={userError} />
          <RightsProvider value={rights}>
            {allowed ? <Page route={route.slice(1)} /> : rights.loaded ? <p className="muted">This area is for administrators.</p> : null}
          </RightsProvider>
        </main>
        <LeavePrompt />
        {expired ? (
          <Dialog title="Your session has expired" onClose={() => void signOut()}>
            <p className="muted">Sign in again to continue where you left off.</p>
            <LoginForm initialUsername={user?.username ?? lastUsername()} />
          </Dialog>
        ) : null}
      </div>
    </CurrentUserContext.Provider>
  );
}
