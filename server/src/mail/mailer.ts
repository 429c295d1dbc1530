// Outgoing mail with nodemailer: over SMTP when FOLIO_SMTP_URL is set, otherwise each message is
// built by nodemailer's stream transport and written as an .eml file to $FOLIO_DATA_DIR/outbox/.
// send() only queues — a `mail` job in the database (jobs/queue.ts), inside the caller's
// transaction when there is one, so a rolled-back signup sends nothing — and any instance's
// worker delivers it. A transient failure is retried after each of config.mailRetryDelaysMs; a
// permanent one (SMTP 5xx) or the last retry is logged and given up.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transaction } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/tables.js';
import type { JobHandler, JobQueue } from '../jobs/queue.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Queue a message: in `trx` when given (then it goes out only if that commits). Never waits for delivery. */
  send(message: MailMessage, trx?: Transaction<Database>): Promise<void>;
  /**
   * Declare a job kind that works out a mail in the background (looks up its recipient, writes
   * a token, then send()s), so a request that may or may not lead to a mail answers before any
   * of that work. Retried as mail is; idle() waits for these jobs too.
   */
  compose<P>(kind: string, handler: Pick<JobHandler<P>, 'run' | 'describe'>): void;
  /** Resolves when no mail is queued any more, nor any job that may lead to one (each done or given up), on any instance. */
  idle(): Promise<void>;
  /** Close the transport (after the job queue stopped). */
  close(): Promise<void>;
}

interface Transport {
  sendMail(mail: Record<string, unknown>): Promise<{ message?: unknown; messageId?: string }>;
  close(): void;
}

function isPermanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500;
}

/** Write atomically (temp file, then rename) so a reader never sees half a message. */
async function writeEml(outbox: string, content: Buffer): Promise<string> {
  await fs.mkdir(outbox, { recursive: true });
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(4).toString('hex')}.eml`;
  const tmp = path.join(outbox, `.${name}.tmp`);
  await fs.writeFile(tmp, content, { mode: 0o600 });
  await fs.rename(tmp, path.join(outbox, name));
  return name;
}

/** The `mail` job kind. */
export const MAIL_JOB = 'mail';

export function createMailer(config: Config, jobs: JobQueue): Mailer {
  const outbox = path.join(config.dataDir, 'outbox');
  // nodemailer (about 15 MB resident) is loaded with the first message, not at start.
  let transport: Promise<Transport> | null = null;
  const openTransport = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      config.smtpUrl
        ? (nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }) as unknown as Transport)
        : (nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }) as unknown as Transport),
    ));

  /** Kinds idle() waits for: mail and the jobs that compose it. */
  const mailKinds = [MAIL_JOB];
  jobs.define<MailMessage>(MAIL_JOB, {
    retryDelaysMs: config.mailRetryDelaysMs,
    isPermanent,
    describe: (m) => `mail "${m.subject}" to ${m.to}`,
    async run(message) {
      const info = await (await openTransport()).sendMail({ from: config.mailFrom, ...message });
      if (!config.smtpUrl) await writeEml(outbox, info.message as Buffer);
    },
  });

  return {
    async send(message, trx) {
      const { to, subject, text, html } = message;
      await jobs.enqueue(MAIL_JOB, { to, subject, text, html }, { trx });
    },
    compose(kind, handler) {
      jobs.define(kind, { retryDelaysMs: config.mailRetryDelaysMs, ...handler });
      mailKinds.push(kind);
    },
    // One count over every kind: a composing job is deleted only after the mail it queued exists.
    idle: () => jobs.idle(mailKinds),
    async close() {
      if (transport) (await transport).close();
      transport = null;
    },
  };
}
