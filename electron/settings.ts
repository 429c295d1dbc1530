// The desktop app's settings: a small JSON file in the user-data folder (port, LAN sharing, SMTP
// URL, sender). A missing or damaged file never stops the app: bad values fall back to defaults
// and are reported; saving validates first and replaces the file atomically.
import fs from 'node:fs';
import path from 'node:path';

export interface DesktopSettings {
  /** Preferred TCP port; when taken, the next free one is used (and shown). */
  port: number;
  /** Bind 0.0.0.0 instead of 127.0.0.1 so other machines on the network can connect. */
  lanSharing: boolean;
  /** `smtp://user:pass@host:port` or `smtps://…`; null writes mails to the outbox folder. */
  smtpUrl: string | null;
  /** Sender address of the mails; null keeps the server's default. */
  mailFrom: string | null;
}

export const defaultSettings: Readonly<DesktopSettings> = Object.freeze({ port: 8090, lanSharing: false, smtpUrl: null, mailFrom: null });

export class SettingsError extends Error {
  constructor(readonly field: keyof DesktopSettings | null, message: string) {
    super(message);
  }
}

type Checker<K extends keyof DesktopSettings> = (value: unknown) => DesktopSettings[K];

const emptyToNull = (v: unknown) => (v === undefined || v === null || (typeof v === 'string' && v.trim() === '') ? null : v);

const checkers: { [K in keyof DesktopSettings]: Checker<K> } = {
  port(v) {
    const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) {
      throw new SettingsError('port', 'port must be a whole number between 1 and 65535');
    }
    return n;
  },
  lanSharing(v) {
    if (typeof v !== 'boolean') throw new SettingsError('lanSharing', 'lanSharing must be true or false');
    return v;
  },
  smtpUrl(v) {
    const s = emptyToNull(v);
    if (s === null) return null;
    let url: URL | null = null;
    try {
      url = typeof s === 'string' ? new URL(s.trim()) : null;
    } catch {
      url = null;
    }
    if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || !url.hostname) {
      throw new SettingsError('smtpUrl', 'the SMTP URL must look like smtp://user:password@host:port (or smtps://)');
    }
    return (s as string).trim();
  },
  mailFrom(v) {
    const s = emptyToNull(v);
    if (s === null) return null;
    // A bare address or `Name <address>`, as nodemailer takes it.
    if (typeof s !== 'string' || !/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(s.trim())) {
      throw new SettingsError('mailFrom', 'the sender must be an email address, e.g. folio@example.org or Folio <folio@example.org>');
    }
    return s.trim();
  },
};

const fields = Object.keys(checkers) as Array<keyof DesktopSettings>;

/** Validate a complete or partial settings object over `base`; throws SettingsError naming the field. */
export function validateSettings(input: unknown, base: DesktopSettings = defaultSettings): DesktopSettings {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new SettingsError(null, 'settings must be a JSON object');
  const out: DesktopSettings = { ...base };
  for (const [key, value] of Object.entries(input)) {
    if (!(fields as string[]).includes(key)) throw new SettingsError(null, `unknown setting "${key}"`);
    const field = key as keyof DesktopSettings;
    (out as unknown as Record<string, unknown>)[field] = (checkers[field] as Checker<typeof field>)(value);
  }
  return out;
}

export interface LoadedSettings {
  settings: DesktopSettings;
  /** What was wrong with the file (each bad value was replaced by its default). */
  problems: string[];
}

/** Read the settings file; a missing file gives the defaults, a damaged one the defaults plus problems. */
export function loadSettings(file: string): LoadedSettings {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { settings: { ...defaultSettings }, problems: [] };
    return { settings: { ...defaultSettings }, problems: [`cannot read ${file}: ${(err as Error).message}`] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { settings: { ...defaultSettings }, problems: [`${file} is not valid JSON; the defaults are used`] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { settings: { ...defaultSettings }, problems: [`${file} does not hold a JSON object; the defaults are used`] };
  }
  const settings: DesktopSettings = { ...defaultSettings };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    try {
      Object.assign(settings, validateSettings({ [key]: value }, settings));
    } catch (err) {
      problems.push(`${(err as Error).message}; ${fields.includes(key as keyof DesktopSettings) ? 'the default is used' : 'it is ignored'}`);
    }
  }
  return { settings, problems };
}

/**
 * Validate `changes` over the current settings and write the result (mode 0600: the SMTP URL may
 * hold a password) through a temporary file, so a crash never leaves half a file.
 */
export function saveSettings(file: string, current: DesktopSettings, changes: unknown): DesktopSettings {
  const next = validateSettings(changes, current);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
  return next;
}
