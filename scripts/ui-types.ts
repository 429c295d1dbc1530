// npm run ui:types: boot a server on a temp SQLite database (the model every fresh site starts
// with), read its object types' JSON Schemas and write ui/src/api/schema-types.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { SCHEMA_TYPES_FILE, fetchSchemaTypes } from './schema-types.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ui-types-'));
const admin = { username: 'admin', password: 'ui-types-admin-1' };
const config = loadConfig({ FOLIO_ADMIN_USERNAME: admin.username, FOLIO_ADMIN_PASSWORD: admin.password, FOLIO_LOGIN_LIMIT: '0', FOLIO_DATA_DIR: dataDir }, { logRequests: false });
const server = await createServer(config, { log: () => {} });
try {
  const { port } = await server.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  const auth = await fetch(`${baseUrl}/auth`, { method: 'POST', headers: { Accept: 'application/vnd.api+json', 'Content-Type': 'application/json' }, body: JSON.stringify(admin) });
  if (!auth.ok) throw new Error(`sign-in failed: ${auth.status}`);
  const { meta } = (await auth.json()) as { meta: { jwt: string } };
  fs.writeFileSync(SCHEMA_TYPES_FILE, await fetchSchemaTypes(baseUrl, meta.jwt));
  console.log(`wrote ${SCHEMA_TYPES_FILE}`);
} finally {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
