// JSON API form of a stream: attributes file_name and mime_type; size, hashes, image size and the
// download url in meta; the `object` relationship with its linked media object.
import type { Request } from 'express';
import { relationshipLinksAt, type Resource } from '../../http/jsonapi.js';
import { readContext, type ReadContext } from '../../http/read-context.js';
import type { StreamView } from './service.js';

export const downloadPath = (uuid: string) => `/streams/download/${uuid}`;

/** A stream as JSON API, for a request or a read context (a media object's `included`). */
export function serializeStream(reader: Request | ReadContext, s: StreamView): Resource {
  const base = 'viewer' in reader ? reader.base : readContext(reader).base;
  const path = `/streams/${s.uuid}`;
  const object = relationshipLinksAt(base, path, 'object');
  object.data = s.object_id !== null && s.object_type ? { id: String(s.object_id), type: s.object_type } : null;
  return {
    id: s.uuid,
    type: 'streams',
    attributes: { file_name: s.file_name, mime_type: s.mime_type, private_url: Boolean(s.private_url) },
    meta: {
      file_size: s.file_size,
      hash_md5: s.hash_md5,
      hash_sha1: s.hash_sha1,
      width: s.width,
      height: s.height,
      url: base + downloadPath(s.uuid),
      created: s.created,
      modified: s.modified,
    },
    links: { self: base + path },
    relationships: { object },
  };
}
