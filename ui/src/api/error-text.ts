// The one place where the server's JSON API errors become plain words: each rule's code (and the
// JSON Schema wording of `invalid_data`) is turned into a sentence an editor understands, objects
// are named by their titles instead of "(object 12)", and internals ("Operation 0: …") never show.
// Every toast and error note reads errors through `readableError` (by way of `errorMessage`).

/** What an error says, as the UI shows it; `field`: the attribute it is about, when one is. */
export interface ReadableError {
  title: string;
  detail: string;
  field?: string;
}

/** The parts of an API error this module reads (ApiError in client.ts has them all). */
export interface ErrorFacts {
  status: number;
  code: string;
  title: string;
  detail: string;
  meta: Record<string, unknown>;
  /** Titles of the objects the failed call named, by id (see `nameObjects` in client.ts). */
  names?: Map<string, string>;
}

/** A field's name as its form label shows it. */
export const fieldLabel = (name: string) => (name === 'uname' ? 'Unique name (uname)' : name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' '));

/** The server's verbs (permissions' refusals), as "you may not …" about one object and "… <type>" in general. */
const VERBS: Record<string, { one: (what: string) => string; all: (type: string) => string }> = {
  create: { one: (w) => `create ${w}`, all: (t) => `creating ${t}` },
  change: { one: (w) => `change ${w}`, all: (t) => `changing ${t}` },
  delete: { one: (w) => `move ${w} to the trash`, all: (t) => `moving ${t} to the trash` },
  'publish or unpublish': { one: (w) => `publish or unpublish ${w}`, all: (t) => `publishing ${t}` },
  restore: { one: (w) => `restore ${w}`, all: (t) => `restoring ${t}` },
  'delete for good': { one: (w) => `delete ${w} for good`, all: (t) => `deleting ${t} for good` },
};

const TAKEN: Record<string, string> = {
  username_taken: 'That username is already taken. Choose another one.',
  email_taken: 'That email address is already used by another account.',
  role_exists: 'A role with that name already exists. Choose another name.',
  relation_exists: 'A relation with that name already exists. Choose another name.',
  type_exists: 'An object type with that name already exists. Choose another name.',
  property_exists: 'That type already has a property with this name.',
  property_type_exists: 'A property type with that name already exists.',
  name_taken: 'That name is already taken. Choose another one.',
  config_exists: 'A configuration entry with that name already exists.',
  endpoint_exists: 'An endpoint with that name already exists.',
  translation_exists: 'This object already has a translation in that language.',
};

const PLAIN: Record<string, { title: string; detail: string }> = {
  wrong_password: { title: 'Wrong current password', detail: 'The current password you typed is not right.' },
  login_failed: { title: 'Sign-in failed', detail: 'The username or password is not right, or the account cannot sign in now.' },
  too_many_requests: { title: 'Too many attempts', detail: 'Wait a few minutes, then try again.' },
  empty_file: { title: 'Empty file', detail: 'The file is empty; choose another one.' },
  file_already_present: { title: 'Already uploaded', detail: 'The same file is already stored.' },
  tree_cycle: { title: 'Not possible', detail: 'A folder cannot go inside itself or one of its subfolders.' },
  last_admin: { title: 'Not possible', detail: 'This is the last administrator; make someone else an administrator first.' },
  unchangeable_role: { title: 'Not possible', detail: 'This role is built in and cannot be changed or deleted.' },
  locked_admin_only: { title: 'Not allowed', detail: 'Only administrators lock and unlock objects.' },
  perms_admin_only: { title: 'Not allowed', detail: 'Only administrators restrict objects to roles.' },
  network_error: { title: 'Network error', detail: 'The server cannot be reached. Check that Folio is running.' },
  busy: { title: 'The server is busy', detail: 'Try again in a moment.' },
};

const MB = 1024 * 1024;
/** A size in bytes as megabytes ("100 MB", "1.5 MB"). */
export function megabytes(bytes: number): string {
  const mb = bytes / MB;
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}

/** The JSON Schema wording of one field's problem, as a sentence about that field. */
function schemaSentence(field: string, message: string): string {
  const label = field === 'password' ? 'The password' : field === '(attributes)' ? 'The data' : `“${fieldLabel(field)}”`;
  let m: RegExpExecArray | null;
  if ((m = /must NOT have fewer than (\d+) characters?/.exec(message))) return `${label} must be at least ${m[1]} characters long.`;
  if ((m = /must NOT have more than (\d+) characters?/.exec(message))) return `${label} can be at most ${m[1]} characters long.`;
  if ((m = /must NOT have fewer than (\d+) items?/.exec(message))) return `${label} needs at least ${m[1]}.`;
  if (/is required/.test(message)) return `${label} is required.`;
  if ((m = /must match format "([^"]+)"/.exec(message))) {
    const what: Record<string, string> = { email: 'an email address, like name@example.com', uri: 'a web address starting with https://', url: 'a web address starting with https://', 'date-time': 'a date and time', date: 'a date' };
    return `${label} must be ${what[m[1]] ?? `in the format ${m[1]}`}.`;
  }
  if ((m = /allowed values: (.*)$/.exec(message))) return `${label} must be one of: ${m[1]}.`;
  if (/must match pattern/.test(message)) return `${label} contains characters that are not allowed there.`;
  if ((m = /must be (>=|<=|>|<) (-?[\d.]+)/.exec(message))) {
    const words: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };
    return `${label} must be ${words[m[1]]} ${m[2]}.`;
  }
  if ((m = /must be (integer|number|boolean|string|object|array|null)/.exec(message))) {
    const what: Record<string, string> = { integer: 'a whole number', number: 'a number', boolean: 'yes or no', string: 'text', object: 'a JSON object', array: 'a list', null: 'empty' };
    return `${label} must be ${what[m[1]]}.`;
  }
  return `${label} ${message.replace(/^"[^"]*"\s*/, '')}.`;
}

/** "(object 12)", "Object 12", "object 12" in a detail, replaced by the object's title when known. */
function nameIn(detail: string, names?: Map<string, string>): { text: string; ids: string[] } {
  const ids: string[] = [];
  const text = detail.replace(/\s*\(object (\d+)\)|\b[Oo]bject (\d+)\b/g, (whole, inParens: string | undefined, bare: string | undefined) => {
    const id = inParens ?? bare!;
    ids.push(id);
    const title = names?.get(id);
    if (inParens !== undefined) return title ? ` “${title}”` : '';
    return title ? `“${title}”` : 'This object';
  });
  return { text, ids };
}

/** A sentence for the editor from an API error. */
export function readableError(e: ErrorFacts): ReadableError {
  // "Operation 3: …" is the position in a batch: which object it was is said by its title below.
  const detail = e.detail.replace(/^Operation \d+:\s*/, '');
  const named = nameIn(detail, e.names);
  const firstTitle = named.ids.map((id) => e.names?.get(id)).find(Boolean);
  if (e.code in TAKEN) return { title: 'Already taken', detail: TAKEN[e.code], field: e.code === 'username_taken' ? 'username' : e.code === 'email_taken' ? 'email' : 'name' };
  if (e.code in PLAIN) return PLAIN[e.code];
  if (e.code === 'invalid_data' || e.code === 'unknown_attribute') {
    const m = /^Invalid data: "([^"]+)" (.*)$/.exec(detail) ?? /^Invalid data: (.*)$/.exec(detail);
    if (e.code === 'unknown_attribute') {
      const name = /unknown attribute "([^"]+)"/.exec(detail)?.[1];
      return { title: 'Check the form', detail: name ? `This type has no field “${fieldLabel(name)}”.` : detail };
    }
    if (m && m.length === 3) return { title: 'Check the form', detail: schemaSentence(m[1], m[2]), field: m[1] };
    return { title: 'Check the form', detail: detail.replace(/^Invalid data:\s*/, '') };
  }
  if (e.code === 'payload_too_large') {
    const bytes = /(\d+) bytes/.exec(detail)?.[1];
    return { title: 'File too large', detail: bytes ? `The file is larger than the ${megabytes(Number(bytes))} the server accepts.` : 'What was sent is larger than the server accepts.' };
  }
  if (e.code === 'mime_type_not_accepted') {
    const m = /^(\S+) do not accept files of type (.+)$/.exec(detail);
    return { title: 'Wrong kind of file', detail: m ? `${fieldLabel(m[1])} do not take ${m[2]} files. Choose another type, or another file.` : detail };
  }
  if (e.code === 'UPLOAD_QUOTA_EXCEEDED') return { title: 'Storage full', detail: 'The upload quota is used up; delete files or ask an administrator.' };
  if (e.code === 'forbidden' || (e.status === 403 && /^You may not/.test(detail))) {
    const m = /^You may not (.+?) (\w+)(?: “.*”)?$/.exec(named.text) ?? /^You may not (.+?) (\w+)\b/.exec(detail);
    const verb = m ? VERBS[m[1]] : undefined;
    if (m && verb) {
      if (m[1] === 'create') return { title: 'Not allowed', detail: `Your roles do not allow ${verb.all(m[2])}.` };
      const one = m[2] === 'news' ? 'news item' : m[2].replace(/ies$/, 'y').replace(/s$/, '');
      const what = firstTitle ? `“${firstTitle}”` : `this ${one}`;
      return { title: 'Not allowed', detail: `You may not ${verb.one(what)}: your roles do not allow ${verb.all(m[2])}.` };
    }
    return { title: 'Not allowed', detail: named.text || 'Your roles do not allow this.' };
  }
  if (e.code === 'restricted') return { title: 'Not allowed', detail: `${firstTitle ? `“${firstTitle}”` : 'This object'} is restricted to other roles than yours.` };
  if (e.code === 'object_locked') return { title: 'Locked', detail: `${firstTitle ? `“${firstTitle}”` : 'This object'} is locked: its status and unique name cannot change and it cannot go to the trash. An administrator can unlock it.` };
  if (e.status === 404) return { title: 'Not found', detail: firstTitle ? `“${firstTitle}” no longer exists or you may not see it.` : 'It no longer exists (it may have been moved to the trash), or you may not see it.' };
  return { title: e.title, detail: named.text };
}
