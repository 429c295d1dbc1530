// The reference server: node:http + better-sqlite3 with prepared statements, no framework. It
// answers the GET-by-id and list scenarios on the same database file, with the same visibility
// rules (active, status on) and a comparable JSON body, to put Folio's figures in proportion.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';

const dataDir = process.argv[2];
const db = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true, fileMustExist: true });
db.pragma('journal_mode = WAL');
const byId = db.prepare(`select * from objects where id = ? and deleted = 0 and status = 'on'`);
const typeId = db.prepare(`select id from object_types where name = ?`);
const count = db.prepare(`select count(*) as n from objects where object_type_id = ? and deleted = 0 and status = 'on' and lang = ?`);
const page = db.prepare(
  `select * from objects where object_type_id = ? and deleted = 0 and status = 'on' and lang = ? order by created desc, id desc limit ? offset ?`,
);

const resource = (row: Record<string, unknown>) => ({
  id: String(row.id),
  type: 'documents',
  attributes: { status: row.status, uname: row.uname, title: row.title, description: row.description, body: row.body, lang: row.lang },
  meta: { created: row.created, modified: row.modified, published: row.published, locked: Boolean(row.locked) },
});

const server = http.createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  let body: unknown;
  const m = /^\/documents\/(\d+)$/.exec(u.pathname);
  if (m) {
    const row = byId.get(Number(m[1])) as Record<string, unknown> | undefined;
    if (!row) {
      res.writeHead(404).end();
      return;
    }
    body = { data: resource(row) };
  } else if (u.pathname === '/documents') {
    const t = (typeId.get('documents') as { id: number }).id;
    const lang = u.searchParams.get('filter[lang]') ?? 'en';
    const p = Math.max(1, Number(u.searchParams.get('page') ?? 1));
    const size = Number(u.searchParams.get('page_size') ?? 20);
    const n = (count.get(t, lang) as { n: number }).n;
    body = { data: (page.all(t, lang, size, (p - 1) * size) as Record<string, unknown>[]).map(resource), meta: { pagination: { count: n, page: p } } };
  } else {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/vnd.api+json' }).end(JSON.stringify(body));
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
});
process.on('disconnect', () => process.exit(0));
