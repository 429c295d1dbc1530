// npm run model -- export [FILE] | apply FILE [--dry-run] [--delete]: the object model as one JSON
// file (GET /model/project's document), out of or into the configured database ($FOLIO_DATA_DIR
// or FOLIO_DATABASE_URL), so a model is kept in git and moved between installs. A server may keep
// running: it sees an applied model before its next request, as after a /model write.
// Exit 0 when exported, applied or nothing to do; 1 when refused (invalid file, a removal that
// would lose data: nothing changed); 2 on usage or configuration errors.
import fs from 'node:fs';
import path from 'node:path';
import { createContext } from '../app.js';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { ApiError } from '../http/errors.js';
import { reloadModel } from '../resources/objects/model.js';
import { applyProject } from '../resources/model/project.js';
import { exportProject, SECTIONS, type ProjectDiff } from '../resources/model/project-document.js';
import { openStorage } from '../storage/open-storage.js';
import { finish, flagsNpmTook, npmTookFlagsError, UsageError } from './output.js';

const USAGE = 'usage: npm run model -- export [FILE] | apply FILE [--dry-run] [--delete]';

/** The differences, one line per item: `+` created, `~` changed (with what), `-` removed, `=` kept. */
function describeDiff(diff: ProjectDiff): string[] {
  const lines: string[] = [];
  const show = (v: unknown) => JSON.stringify(v ?? null);
  const label = (i: { name: string; object?: string | null }) => (i.object ? `${i.object}.${i.name}` : i.name);
  for (const section of SECTIONS) {
    const items = [
      ...(diff.remove[section] ?? []).map((i) => `  - ${label(i)}`),
      ...(diff.create[section] ?? []).map((i) => `  + ${label(i as { name: string; object?: string | null })}`),
      ...(diff.update[section] ?? []).map((i) => `  ~ ${label(i)}: ${Object.entries(i.changes).map(([f, c]) => `${f} ${show(c.from)} → ${show(c.to)}`).join(', ')}`),
      // The API's reason names its query parameter; here the option does it.
      ...(diff.kept[section] ?? []).map((i) => `  = ${label(i)} (kept: ${i.reason.replace('removed only with delete', 'removed only with --delete')})`),
    ];
    if (items.length) lines.push(`${section}:`, ...items);
  }
  return lines;
}

const count = (part: Partial<Record<string, unknown[]>>) => Object.values(part).reduce((n, list) => n + (list?.length ?? 0), 0);

async function main(args: string[]): Promise<number> {
  // `npm run model apply F --dry-run` without `--`: npm keeps the flags, and applying without
  // them would do what was not asked (apply for real): refused, nothing done.
  const took = flagsNpmTook(['--dry-run', '--delete'], args);
  if (took.length) throw npmTookFlagsError('model', took, args);
  const rest = args.filter((a) => a !== '--');
  const [command, ...params] = rest;
  const flags = params.filter((a) => a.startsWith('-'));
  const files = params.filter((a) => !a.startsWith('-'));
  if (command === 'export') {
    if (flags.length) throw new UsageError(`unknown option ${flags[0]}`);
    if (files.length > 1) throw new UsageError('give at most one FILE');
  } else if (command === 'apply') {
    const unknown = flags.find((f) => f !== '--dry-run' && f !== '--delete');
    if (unknown) throw new UsageError(`unknown option ${unknown}`);
    if (files.length !== 1) throw new UsageError('give exactly one model FILE');
  } else {
    throw new UsageError(command ? `unknown command "${command}"` : 'give a command: export or apply');
  }

  let document: unknown;
  if (command === 'apply') {
    const file = path.resolve(files[0]);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      console.error(`model: ${file} is not a file`);
      return 1;
    }
    try {
      document = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      console.error(`model: ${file} is not valid JSON (${(err as Error).message}); nothing was changed`);
      return 1;
    }
  }

  const config = loadConfig();
  const dbFile = path.join(config.dataDir, 'folio.sqlite');
  if (command === 'export' && !config.databaseUrl && !fs.existsSync(dbFile)) {
    console.error(`model: no database at ${dbFile} (set FOLIO_DATA_DIR)`);
    return 2;
  }
  const database = await openDatabase(config);
  // A second user of the storage a server may be writing to: its temp files are left alone.
  const storage = await openStorage(config.storage, { dataDir: config.dataDir, clearTemp: false }).catch(async (err) => {
    await database.close();
    throw err;
  });
  const ctx = await createContext(config, database, storage, () => {});
  try {
    await reloadModel(ctx);
    if (command === 'export') {
      const text = JSON.stringify(await exportProject(ctx), null, 2) + '\n';
      if (files[0]) {
        fs.mkdirSync(path.dirname(path.resolve(files[0])), { recursive: true });
        fs.writeFileSync(path.resolve(files[0]), text);
        console.error(`model: wrote ${path.resolve(files[0])}`);
      } else {
        process.stdout.write(text);
      }
      return 0;
    }
    const options = { dryRun: flags.includes('--dry-run'), delete: flags.includes('--delete') };
    try {
      const diff = await applyProject(ctx, document, options);
      for (const line of describeDiff(diff)) console.log(line);
      const [created, changed, removed] = [count(diff.create), count(diff.update), count(diff.remove)];
      if (created + changed + removed === 0) console.log('model: no differences: the database has this model');
      else console.log(`model: ${created} to create, ${changed} to change, ${removed} to remove: ${options.dryRun ? 'dry run, nothing was changed' : 'applied'}`);
      if (count(diff.kept) && !options.delete) console.log('model: items only the database has were kept (--delete removes them)');
      return 0;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      const detail = err.detail ?? err.message;
      console.error(`model: refused: ${detail}${/nothing was changed/.test(detail) ? '' : '; nothing was changed'}`);
      return 1;
    }
  } finally {
    for (const hook of ctx.onClose) await hook();
    await storage.close();
    await database.close();
  }
}

finish('model', USAGE, main(process.argv.slice(2)));
