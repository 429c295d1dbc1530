// JSON API form of a stream: attributes file_name and mime_type; size, hashes, image size and the
// download url in meta; the `object` relationship with its linked media object.
import type { Request } from 'express';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import type { StreamView } from './service.js';

export const downloadPath = (uuid: string) => `/streams/download/${uuid}`;

export function serializeStream(req: Request, s: StreamView): Resource {
  const path = `/streams/${s.uuid}`;
  const object = relationshipLinks(req, path, 'object');
  object.data = s.object_id !== null && s.object_type ? { id: String(s.object_id), type: s.object_type } : null;
  return {
    id: s.uuid,
    type: 'streams',
    attributes: { file_name: s.file_name, mime_type: s.mime_type },
    meta: {
      file_size: s.file_size,
      hash_md5: s.hash_md5,
      hash_sha1: s.hash_sha1,
      width: s.width,
      height: s.height,
      url: resourceUrl(req, downloadPath(s.uuid)),
      created: s.created,
      modified: s.modified,
    },
    links: { self: resourceUrl(req, path) },
    relationships: { object },
  };
}
