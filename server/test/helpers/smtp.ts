// A real SMTP server on loopback (smtp-server) that keeps what it receives, parsed by mailparser,
// and can refuse messages to exercise retries. Also reads .eml files of the outbox.
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitUntil } from './wait.js';

export interface TestSmtp {
  url: string;
  received: ParsedMail[];
  /** Answers for the next DATA commands: an SMTP code to refuse with, or null to accept. */
  refuseNext: number[];
  /** How many messages were offered (accepted or refused). */
  attempts: number;
  /** Messages whose answer is held back now (see hold). */
  held: number;
  /** Held messages whose sender went away meanwhile (counted when it does; never received). */
  dropped: number;
  /** Hold back the answer to every message until the returned function is called. */
  hold(): () => void;
  /** Resolves with the first received message matching (see wait.ts for the time limit). */
  waitFor(match: (m: ParsedMail) => boolean): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const state: TestSmtp = {
    url: '',
    received: [],
    refuseNext: [],
    attempts: 0,
    held: 0,
    dropped: 0,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
    waitFor: (match) => waitUntil(() => state.received.find(match), 'a mail'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  let gate: Promise<void> | null = null;
  const held = new Set<string>();
  const gone = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    onClose(session) {
      if (!held.has(session.id)) return;
      gone.add(session.id);
      state.dropped++;
    },
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        if (gate) {
          state.held++;
          held.add(session.id);
          await gate;
          held.delete(session.id);
          state.held--;
          if (gone.has(session.id)) return;
        }
        state.attempts++;
        const code = state.refuseNext.shift();
        if (code) {
          const err = Object.assign(new Error(`refused for the test (${code})`), { responseCode: code });
          return callback(err);
        }
        state.received.push(await simpleParser(Buffer.concat(chunks)));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return state;
}

/** The recipients of a parsed mail as one string ("a@x, b@y"). */
export function recipients(mail: ParsedMail): string {
  const to = mail.to;
  if (!to) return '';
  return (Array.isArray(to) ? to : [to]).map((a) => a.text).join(', ');
}

/** Every .eml of `$dataDir/outbox`, parsed, oldest first. */
export async function readOutbox(dataDir: string): Promise<ParsedMail[]> {
  const dir = path.join(dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  return Promise.all(files.map((f) => simpleParser(fs.readFileSync(path.join(dir, f)))));
}

/** The first http(s) link of the plain-text part. */
export function linkIn(mail: ParsedMail): URL {
  const m = /https?:\/\/\S+/.exec(mail.text ?? '');
  if (!m) throw new Error(`no link in mail: ${mail.text}`);
  return new URL(m[0]);
}
