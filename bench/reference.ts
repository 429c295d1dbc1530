// The reference server: node:http + better-sqlite3 (or pg, given a PostgreSQL URL) with prepared
// statements, no framework. It answers the GET-by-id and list scenarios on the same database, with the same visibility
// rules (active, status on) and a comparable JSON body, to put Folio's figures in proportion.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/** The three reads the reference answers, on SQLite (prepared statements) or PostgreSQL (named ones). */
interface Reads {
  byId(id: number): Promise<Record<string, unknown> | undefined>;
  typeId(name: string): Promise<number>;
  count(type: number, lang: string): Promise<number>;
  page(type: number, lang: string, size: number, offset: number): Promise<Record<string, unknown>[]>;
}

const BY_ID = `select * from objects where id = ? and deleted = false and status = 'on'`;
const TYPE_ID = `select id from object_types where name = ?`;
const COUNT = `select count(*) as n from objects where object_type_id = ? and deleted = false and status = 'on' and lang = ?`;
const PAGE = `select * from objects where object_type_id = ? and deleted = false and status = 'on' and lang = ? order by created desc, id desc limit ? offset ?`;

function sqliteReads(dataDir: string): Reads {
  const db = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true, fileMustExist: true });
  db.pragma('journal_mode = WAL');
  const [byId, typeId, count, page] = [BY_ID, TYPE_ID, COUNT, PAGE].map((q) => db.prepare(q));
  return {
    byId: async (id) => byId.get(id) as Record<string, unknown> | undefined,
    typeId: async (name) => (typeId.get(name) as { id: number }).id,
    count: async (t, lang) => (count.get(t, lang) as { n: number }).n,
    page: async (t, lang, size, offset) => page.all(t, lang, size, offset) as Record<string, unknown>[],
  };
}

function postgresReads(url: string): Reads {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const run = async (name: string, text: string, values: unknown[]) => {
    let i = 0;
    return (await pool.query({ name, text: text.replace(/\?/g, () => `$${++i}`), values })).rows as Record<string, unknown>[];
  };
  return {
    byId: async (id) => (await run('by-id', BY_ID, [id]))[0],
    typeId: async (name) => Number((await run('type-id', TYPE_ID, [name]))[0].id),
    count: async (t, lang) => Number((await run('count', COUNT, [t, lang]))[0].n),
    page: (t, lang, size, offset) => run('page', PAGE, [t, lang, size, offset]),
  };
}

const [dataDir, databaseUrl] = process.argv.slice(2);
const reads = databaseUrl ? postgresReads(databaseUrl) : sqliteReads(dataDir);

const resource = (row: Record<string, unknown>) => ({
  id: String(row.id),
  type: 'documents',
  attributes: { status: row.status, uname: row.uname, title: row.title, description: row.description, body: row.body, lang: row.lang },
  meta: { created: row.created, modified: row.modified, published: row.published, locked: Boolean(row.locked) },
});

const server = http.createServer(async (req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  let body: unknown;
  const m = /^\/documents\/(\d+)$/.exec(u.pathname);
  if (m) {
    const row = await reads.byId(Number(m[1]));
    if (!row) {
      res.writeHead(404).end();
      return;
    }
    body = { data: resource(row) };
  } else if (u.pathname === '/documents') {
    const t = await reads.typeId('documents');
    const lang = u.searchParams.get('filter[lang]') ?? 'en';
    const p = Math.max(1, Number(u.searchParams.get('page') ?? 1));
    const size = Number(u.searchParams.get('page_size') ?? 20);
    const [n, rows] = await Promise.all([reads.count(t, lang), reads.page(t, lang, size, (p - 1) * size)]);
    body = { data: rows.map(resource), meta: { pagination: { count: n, page: p } } };
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
