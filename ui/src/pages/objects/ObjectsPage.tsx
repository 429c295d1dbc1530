export function ObjectsPage({ route }: { route: string[] }) {
  return (
    <section>
      <h1>Objects</h1>
      <p>{route.join('/')}</p>
    </section>
  );
}
