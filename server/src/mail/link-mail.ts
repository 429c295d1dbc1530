// The one shape of Folio's account mails: a greeting, a sentence, the link, a closing note — as
// plain text and as HTML (the link escaped, never built from unescaped input).
import { escapeHtml } from '../resources/accounts/flat-body.js';
import type { MailMessage } from './mailer.js';

export interface LinkMail {
  to: string;
  subject: string;
  name: string;
  intro: string;
  link: string;
  outro: string;
}

export function linkMail(m: LinkMail): MailMessage {
  const text = `Hello ${m.name},\n\n${m.intro}\n\n${m.link}\n\n${m.outro}\n`;
  const html =
    `<!doctype html><html><body style="font-family: sans-serif">` +
    `<p>Hello ${escapeHtml(m.name)},</p><p>${escapeHtml(m.intro)}</p>` +
    `<p><a href="${escapeHtml(m.link)}">${escapeHtml(m.link)}</a></p>` +
    `<p>${escapeHtml(m.outro)}</p></body></html>`;
  return { to: m.to, subject: m.subject, text, html };
}
