// The reference server: node:http + better-sqlite3 (or pg, given a PostgreSQL URL) with prepared
// statements, no framework. It answers the GET-by-id, list and PATCH scenarios on the same
// database (so with the same indexes and statistics), with the same visibility rules (active,
// status on) and a comparable JSON body, to put Folio's figures in proportion.
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/** What the reference answers, on SQLite (prepared statements) or PostgreSQL (named ones). */
interface Queries {
  byId(id: number): Promise<Record<string, unknown> | undefined>;
  typeId(name: string): Promise<number>;
  count(type: number, lang: string | null): Promise<number>;
  page(type: number, lang: string | null, byId: boolean, size: number, offset: number): Promise<Record<string, unknown>[]>;
  describe(id: number, description: string, modified: string): Promise<boolean>;
}

const VISIBLE = `object_type_id = ? and deleted = false and status = 'on'`;
const SQL = {
  byId: `select * from objects where id = ? and deleted = false and status = 'on'`,
  typeId: `select id from object_types where name = ?`,
  count: `select count(*) as n from objects where ${VISIBLE} and lang = ?`,
  countAll: `select count(*) as n from objects where ${VISIBLE}`,
  page: `select * from objects where ${VISIBLE} and lang = ? order by created desc, id desc limit ? offset ?`,
  pageById: `select * from objects where ${VISIBLE} order by id desc limit ? offset ?`,
  describe: `update objects set description = ?, modified = ? where id = ? and deleted = false`,
};
type Name = keyof typeof SQL;

function queries(run: (name: Name, values: unknown[]) => Promise<Record<string, unknown>[]>, changed: (name: Name, values: unknown[]) => Promise<number>): Queries {
  return {
    byId: async (id) => (await run('byId', [id]))[0],
    typeId: async (name) => Number((await run('typeId', [name]))[0].id),
    count: async (t, lang) => Number((await (lang === null ? run('countAll', [t]) : run('count', [t, lang])))[0].n),
    page: (t, lang, byId, size, offset) => (byId ? run('pageById', [t, size, offset]) : run('page', [t, lang ?? 'en', size, offset])),
    describe: async (id, description, modified) => (await changed('describe', [description, modified, id])) > 0,
  };
}

function sqliteQueries(dataDir: string): Queries {
  const db = new Database(path.join(dataDir, 'folio.sqlite'), { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const statements = Object.fromEntries(Object.entries(SQL).map(([name, text]) => [name, db.prepare(text)])) as Record<Name, Database.Statement>;
  return queries(
    async (name, values) => statements[name].all(...values) as Record<string, unknown>[],
    async (name, values) => statements[name].run(...values).changes,
  );
}

function postgresQueries(url: string): Queries {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const query = (name: Name, values: unknown[]) => {
    let i = 0;
    return pool.query({ name, text: SQL[name].replace(/\?/g, () => `$${++i}`), values });
  };
  return queries(
    async (name, values) => (await query(name, values)).rows as Record<string, unknown>[],
    async (name, values) => (await query(name, values)).rowCount ?? 0,
  );
}

const [dataDir, databaseUrl] = process.argv.slice(2);
const db = databaseUrl ? postgresQueries(databaseUrl) : sqliteQueries(dataDir);

const resource = (row: Record<string, unknown>) => ({
  id: String(row.id),
  type: 'documents',
  attributes: { status: row.status, uname: row.uname, title: row.title, description: row.description, body: row.body, lang: row.lang },
  meta: { created: row.created, modified: row.modified, published: row.published, locked: Boolean(row.locked) },
});

async function bodyOf(req: http.IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = http.createServer(async (req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  let body: unknown;
  const m = /^\/documents\/(\d+)$/.exec(u.pathname);
  if (m && req.method === 'PATCH') {
    const input = await bodyOf(req);
    const description = input?.data?.attributes?.description;
    if (typeof description !== 'string' || !(await db.describe(Number(m[1]), description, new Date().toISOString()))) {
      res.writeHead(404).end();
      return;
    }
    body = { data: resource((await db.byId(Number(m[1])))!) };
  } else if (m) {
    const row = await db.byId(Number(m[1]));
    if (!row) {
      res.writeHead(404).end();
      return;
    }
    body = { data: resource(row) };
  } else if (u.pathname === '/documents') {
    const t = await db.typeId('documents');
    const lang = u.searchParams.get('filter[lang]');
    const p = Math.max(1, Number(u.searchParams.get('page') ?? 1));
    const size = Number(u.searchParams.get('page_size') ?? 20);
    const byId = u.searchParams.get('sort') === '-id';
    const [n, rows] = await Promise.all([db.count(t, lang), db.page(t, lang, byId, size, (p - 1) * size)]);
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
