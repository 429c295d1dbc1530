// /backups (admins only): make a backup of the whole site (POST, no body needed), list them with the
// progress of the one being made, read one, download its file, delete it.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { resourceUrl, sendList, sendNoContent, sendResource, type Resource } from '../../http/jsonapi.js';
import { parseListQuery, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { sendLocalFile } from '../../http/send-stored.js';
import { BackupService, type BackupInfo } from './service.js';

const LIST: ListSpec = { fields: {}, sortable: ['created', 'size', 'file_name'], defaultSort: '-created' };

function serializeBackup(req: Request, b: BackupInfo): Resource {
  const self = resourceUrl(req, `/backups/${b.id}`);
  return {
    id: b.id,
    type: 'backups',
    attributes: { file_name: b.file_name, size: b.size, created: b.created },
    meta: { kind: b.kind, counts: b.counts, ...(b.missing_files.length ? { missing_files: b.missing_files } : {}) },
    links: { self, download: `${self}/download` },
  };
}

export function backupsRoutes(ctx: AppContext): RouteDef[] {
  const backups = new BackupService(ctx);
  ctx.onClose.push(() => backups.close());
  backups.sweep().catch((err) => ctx.log(`backups: could not remove old leftovers: ${(err as Error)?.message ?? err}`));
  backups.startSchedule();
  return [
    {
      method: 'get',
      path: '/backups',
      guard: 'admin',
      handler: async (req, res) => {
        const q = parseListQuery(req, LIST);
        const all = await backups.list();
        for (const { field, desc } of [...q.sort].reverse()) {
          const key = field as 'created' | 'size' | 'file_name';
          all.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * (desc ? -1 : 1));
        }
        const page = all.slice(q.offset, q.offset + q.pageSize).map((b) => serializeBackup(req, b));
        sendList(req, res, page, { count: all.length, page: q.page, pageSize: q.pageSize }, { meta: { running: backups.current() } });
      },
    },
    {
      method: 'post',
      path: '/backups',
      writes: [],
      guard: 'admin',
      handler: async (req, res) => {
        const b = await backups.create('manual');
        const resource = serializeBackup(req, b);
        sendResource(req, res, resource, { status: 201, headers: { Location: resource.links!.self! }, meta: { counts: b.counts } });
      },
    },
    {
      method: 'get',
      path: '/backups/:id',
      guard: 'admin',
      handler: async (req, res) => sendResource(req, res, serializeBackup(req, await backups.get(String(req.params.id)))),
    },
    {
      method: 'get',
      path: '/backups/:id/download',
      guard: 'admin',
      produces: 'any',
      handler: async (req, res) => {
        const { file, info } = await backups.filePath(String(req.params.id));
        res.attachment(info.file_name);
        res.setHeader('Content-Type', 'application/gzip');
        res.setHeader('Cache-Control', 'private, no-store');
        await sendLocalFile(res, file);
      },
    },
    {
      method: 'delete',
      path: '/backups/:id',
      writes: [],
      guard: 'admin',
      handler: async (req, res) => {
        await backups.remove(String(req.params.id));
        sendNoContent(res);
      },
    },
  ];
}
