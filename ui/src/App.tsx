// Placeholder shell of the admin UI (the admin UI issue builds it out).
export function App() {
  return (
    <main>
      <h1>Folio admin</h1>
      <p>Sign in to manage content.</p>
    </main>
  );
}
