// Outgoing mail with nodemailer: over SMTP when FOLIO_SMTP_URL is set, otherwise each message is
// built by nodemailer's stream transport and written as an .eml file to $FOLIO_DATA_DIR/outbox/.
// send() only queues: a request never waits for mail nor fails because of it. A transient failure
// is retried after each of config.mailRetryDelaysMs; a permanent one (SMTP 5xx) or the last retry
// is logged and dropped. close() gives every waiting message one last try.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Queue a message; never throws, never blocks. */
  send(message: MailMessage): void;
  /** Resolves when every queued message was delivered or given up. */
  idle(): Promise<void>;
  /** Stop waiting between retries, give each waiting message a last try, close the transport. */
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

export function createMailer(config: Config, log: (line: string) => void): Mailer {
  const outbox = path.join(config.dataDir, 'outbox');
  // nodemailer (about 15 MB resident) is loaded with the first message, not at start.
  let transport: Promise<Transport> | null = null;
  const openTransport = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      config.smtpUrl
        ? (nodemailer.createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }) as unknown as Transport)
        : (nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }) as unknown as Transport),
    ));

  const pending = new Set<Promise<void>>();
  const wakers = new Set<() => void>();
  let closing = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closing) return resolve();
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

  async function deliver(message: MailMessage): Promise<void> {
    const info = await (await openTransport()).sendMail({ from: config.mailFrom, ...message });
    if (!config.smtpUrl) await writeEml(outbox, info.message as Buffer);
  }

  async function deliverWithRetries(message: MailMessage): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const lastChance = closing;
      try {
        await deliver(message);
        return;
      } catch (err) {
        const delay = config.mailRetryDelaysMs[attempt];
        const what = `mail "${message.subject}" to ${message.to}`;
        if (isPermanent(err) || delay === undefined || lastChance) {
          log(`${what} not sent, giving up after ${attempt + 1} attempt(s): ${(err as Error).message}`);
          return;
        }
        log(`${what} failed (attempt ${attempt + 1}), retrying in ${delay} ms: ${(err as Error).message}`);
        await sleep(delay);
      }
    }
  }

  return {
    send(message) {
      const p: Promise<void> = deliverWithRetries(message)
        .catch((err) => log(`mail queue error: ${(err as Error)?.stack ?? err}`))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    async close() {
      closing = true;
      for (const wake of [...wakers]) wake();
      await this.idle();
      if (transport) (await transport).close();
    },
  };
}
