// Image work (dimensions of an uploaded image, thumbnails) runs in a helper process of its own,
// started with the first job and stopped when it has been idle for HELPER_IDLE_MS:
//  - memory: loading sharp and libvips adds 15-30 MB to a process, and what they allocate while
//    decoding (tens of MB for one large photo, in the arenas of the threads that decoded it) is
//    rarely given back to the system by glibc; in the helper it all goes when the helper ends;
//  - a decoder that crashes on a hostile file ends the helper, not the server: the job fails (no
//    dimensions, no thumbnail, as for a file that is not an image) and the next job starts a new one.
// Electron's desktop server keeps the work in its own process (a forked child there would be
// another Electron; a desktop has one user and restarts often).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HelperAnswer, HelperJob } from './image-helper.js';
import * as here from './sharp-work.js';
import type { ThumbFormat, ThumbSpec } from './sharp-work.js';

export { MAX_INPUT_PIXELS, thumbFormat, type ThumbFit, type ThumbFormat, type ThumbSpec } from './sharp-work.js';

/** How long the helper stays after its last job (the next job then pays its start, ~0.3 s). */
export const HELPER_IDLE_MS = 5_000;

/** The helper's entry beside this file: bundled (server/dist), compiled, or the source under tsx. */
function helperEntry(): string | null {
  for (const name of ['image-helper.bundle.js', 'image-helper.js', 'image-helper.ts']) {
    const file = fileURLToPath(new URL(`./${name}`, import.meta.url));
    if (fs.existsSync(file)) return file;
  }
  return null;
}

/** A job as callers give it (the id is added when it is sent). */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Job = WithoutId<HelperJob>;

interface Helper {
  child: ChildProcess;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>;
}

let helper: Helper | null = null;
let nextId = 1;
let idleTimer: NodeJS.Timeout | null = null;

/** The helper's entry file, looked up once; jobs run in the helper unless in Electron or without it. */
const entry = helperEntry();
const useHelper = !process.versions.electron && entry !== null;

function startHelper(): Helper {
  // The server's node options (heap sizes, its loader), but not a debugger's (its port is taken);
  // the source entry needs tsx, as the server that runs from source has it.
  const options = process.execArgv.filter((a) => !/^--(inspect|debug)/.test(a));
  if (entry!.endsWith('.ts') && !options.some((a) => a.includes('tsx'))) options.push('--import', 'tsx');
  const child = fork(entry!, [], { execArgv: options, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  const h: Helper = { child, pending: new Map() };
  child.on('message', (a: HelperAnswer) => {
    const job = h.pending.get(a.id);
    if (!job) return;
    h.pending.delete(a.id);
    if (a.ok) job.resolve(a.value);
    else job.reject(new Error(a.message));
    if (!h.pending.size) idle(h);
  });
  const ended = (why: string) => {
    if (helper === h) helper = null;
    for (const job of h.pending.values()) job.reject(new Error(`the image helper process ended (${why})`));
    h.pending.clear();
  };
  child.on('exit', (code, signal) => ended(signal ?? `exit code ${code}`));
  child.on('error', (err) => ended(err.message));
  return h;
}

/** No job left: the helper no longer keeps the server's process alive, and stops after HELPER_IDLE_MS. */
function idle(h: Helper) {
  h.child.unref();
  h.child.channel?.unref();
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (helper === h && !h.pending.size) {
      helper = null;
      // It ends on the disconnect (image-helper.ts).
      if (h.child.connected) h.child.disconnect();
    }
  }, HELPER_IDLE_MS);
  idleTimer.unref();
}

function inHelper<T>(job: Job): Promise<T> {
  if (idleTimer) {
    clearTimeout(idleTimer);
    idleTimer = null;
  }
  const h = (helper ??= startHelper());
  h.child.ref();
  h.child.channel?.ref();
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    h.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    h.child.send({ ...job, id } as HelperJob, (err) => {
      if (!err || !h.pending.has(id)) return;
      h.pending.delete(id);
      reject(err);
      if (!h.pending.size) idle(h);
    });
  });
}

/** Width and height as displayed (EXIF orientation 5-8 swaps them), or null when not an image. */
export async function probeImage(file: string): Promise<{ width: number; height: number; format: string } | null> {
  if (!useHelper) return here.probeImage(file);
  // A helper that ended on this file (a crashing decoder) read no image from it.
  return inHelper<{ width: number; height: number; format: string } | null>({ op: 'probe', file }).catch(() => null);
}

/** Render `source` to the new file `target` (removed again when rendering fails); returns the real size. */
export async function renderThumbnail(source: string, target: string, spec: ThumbSpec, format: ThumbFormat): Promise<{ width: number; height: number }> {
  if (!useHelper) return here.renderThumbnail(source, target, spec, format);
  try {
    return await inHelper<{ width: number; height: number }>({ op: 'render', source, target, spec, format });
  } catch (err) {
    // The helper removes a failed render's file; one that ended midway could not.
    await fs.promises.rm(target, { force: true });
    throw err;
  }
}

/** The helper's process id while it runs (for tests and the benchmark), else null. */
export function imageHelperPid(): number | null {
  return helper?.child.pid ?? null;
}
