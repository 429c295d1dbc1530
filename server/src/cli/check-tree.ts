// npm run check-tree: verifies the folder tree (nested set) of the database in $FOLIO_DATA_DIR.
// Exit 0 when valid, 1 when problems were found (each printed), 2 when it cannot run.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { checkTree } from '../resources/folders/check.js';

async function main(): Promise<number> {
  const config = loadConfig();
  const file = path.join(config.dataDir, 'folio.sqlite');
  if (!config.databaseUrl && !fs.existsSync(file)) {
    console.error(`check-tree: no database at ${file} (set FOLIO_DATA_DIR)`);
    return 2;
  }
  const database = await openDatabase(config);
  try {
    const problems = await checkTree(database.db);
    const nodes = await database.db.selectFrom('trees').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    if (!problems.length) {
      console.log(`check-tree: the folder tree is valid (${Number(nodes.n)} ${Number(nodes.n) === 1 ? 'node' : 'nodes'})`);
      return 0;
    }
    for (const p of problems) console.log(p);
    console.log(`check-tree: ${problems.length} problem(s) found`);
    return 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`check-tree: ${err instanceof ConfigError ? 'configuration error: ' : ''}${err?.message ?? err}`);
    process.exit(2);
  },
);
