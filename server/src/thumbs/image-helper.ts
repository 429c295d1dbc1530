// The image helper process (sharp-pipeline.ts starts it): runs sharp's work for the server over
// IPC, one message per job, and ends when the server disconnects (the server does when it has
// been idle a few seconds, or when it ends). Nothing else runs here: no database, no storage, only
// the files the server names (its upload and thumbnail temp files).
import { probeImage, renderThumbnail, type ThumbFormat, type ThumbSpec } from './sharp-work.js';

export type HelperJob = { id: number; op: 'probe'; file: string } | { id: number; op: 'render'; source: string; target: string; spec: ThumbSpec; format: ThumbFormat };
export type HelperAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

const answer = (a: HelperAnswer) => process.send?.(a);

process.on('message', (job: HelperJob) => {
  const work = job.op === 'probe' ? probeImage(job.file) : renderThumbnail(job.source, job.target, job.spec, job.format);
  work.then(
    (value) => answer({ id: job.id, ok: true, value }),
    (err: unknown) => answer({ id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
