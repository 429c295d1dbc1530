// Which media type an upload gets: the declared Content-Type checked against the sniffed bytes
// (file-type). A Content-Type that cannot name a file gives 415; a declared type the bytes
// contradict gives 400 `mime_type_mismatch`. Missing or octet-stream: the bytes decide, then the
// file name's extension.
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import mime from 'mime-types';
import { ApiError, badRequest } from '../../http/errors.js';

const OCTET = 'application/octet-stream';

const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'application/x-zip-compressed': 'application/zip',
  'application/x-pdf': 'application/pdf',
  'text/xml': 'application/xml',
};

const canonical = (type: string) => ALIASES[type] ?? type;

/** The declared media type without parameters, lower case; 415 when it cannot name a file. */
export function declaredMimeType(header: string | undefined, contentEncoding: string | undefined): string {
  if (contentEncoding && contentEncoding.toLowerCase() !== 'identity') {
    throw new ApiError(415, 'unsupported_media_type', `Content-Encoding ${contentEncoding} is not supported for uploads; send the file's bytes as they are`);
  }
  if (!header || !header.trim()) return OCTET;
  const type = header.split(';')[0].trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(type)) {
    throw new ApiError(415, 'unsupported_media_type', `Content-Type "${header}" is not a media type`);
  }
  if (type.startsWith('multipart/')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the file itself as the request body, not a multipart form');
  }
  return type;
}

/** Formats that are containers of others: the sniffer sees the container, the client names the content. */
function compatible(declared: string, sniffed: string): boolean {
  if (declared === sniffed) return true;
  const [dTop, dSub] = declared.split('/');
  const [sTop, sSub] = sniffed.split('/');
  if ((sniffed === 'application/zip' || sniffed === 'application/x-cfb') && dTop === 'application') return true;
  if (declared === 'application/zip' && (sniffed.endsWith('+zip') || /openxmlformats|opendocument|java-archive/.test(sniffed))) return true;
  if (sniffed === 'application/xml' && (declared.includes('xml') || declared === 'text/html')) return true;
  const av = new Set(['audio', 'video', 'application']);
  if (av.has(dTop) && av.has(sTop) && (dSub === sSub || /ogg|mp4|webm|quicktime|matroska|3gpp/.test(dSub) && /ogg|mp4|webm|quicktime|matroska|3gpp/.test(sSub))) return true;
  return false;
}

/** Binary formats the sniffer recognises: declaring one for bytes it does not recognise is a lie. */
function sniffable(type: string): boolean {
  return (supportedMimeTypes as ReadonlySet<string>).has(type) && !type.includes('xml') && !type.startsWith('text/');
}

/** The media type to store for an upload whose first bytes are `head`. */
export async function resolveMimeType(declared: string, head: Buffer, fileName: string): Promise<string> {
  const sniffed = head.length ? (await fileTypeFromBuffer(head))?.mime : undefined;
  if (declared === OCTET) {
    return sniffed ?? (mime.lookup(fileName) || OCTET);
  }
  const wanted = canonical(declared);
  if (sniffed ? !compatible(wanted, canonical(sniffed)) : sniffable(wanted)) {
    throw badRequest(
      `The file is declared as ${declared} but its content is ${sniffed ?? 'not of that type'}`,
      'mime_type_mismatch',
    );
  }
  return wanted;
}
