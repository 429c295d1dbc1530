// JSON:API Atomic Operations (https://jsonapi.org/ext/atomic/) at POST /operations: many object
// writes in one request and one transaction, all or nothing: importers and LAN clients that sync
// create hundreds of objects without a round trip (and a commit) each.
//
//   {"atomic:operations": [
//     {"op": "add", "data": {"type": "documents", "lid": "a", "attributes": {...}}},
//     {"op": "update", "data": {"type": "documents", "id": "12", "attributes": {...}}},
//     {"op": "remove", "ref": {"type": "documents", "id": "13"}},
//     {"op": "add", "ref": {"type": "documents", "lid": "a", "relationship": "see_also"},
//      "data": [{"type": "documents", "id": "12"}]}
//   ]}
//   → 200 {"atomic:results": [{"data": {…}}, {"data": {…}}, {}, {"data": [...]}]}
//
// Each operation does what its single endpoint does (POST /{type}, PATCH /{type}/{id}, DELETE
// /{type}/{id}, POST|PATCH|DELETE /{type}/{id}/relationships/{relation}), with the same checks and
// errors. The first failing operation rolls back the whole request; its error says which one in
// `source.pointer` (`/atomic:operations/3/...`). `lid` names an object added earlier in the same
// request; `href` may stand for `ref` (`/{type}`, `/{type}/{id}`, `/{type}/{id}/relationships/{r}`). Users and folders keep their own endpoints (their writes carry more than an object).
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError, badRequest, MAX_IDENTIFIERS, tooManyIdentifiers } from '../../http/errors.js';
import { identifiersOf, isPlainObject, resourceOf, sendLinks, type Resource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { endpointType, typeByName } from '../objects/model.js';
import { asBEditaInput } from '../objects/schema.js';
import { rightsOn } from '../permissions/rules.js';
import { getObjectsByIds } from '../objects/read.js';
import { type ObjectRow } from '../objects/rows.js';
import { serializeObjects } from '../objects/serialize.js';
import { apply, CreateBatch, type BatchedCreate, type SearchDocuments } from '../objects/kernel.js';
import { inTransaction } from '../objects/pipeline.js';
import { readContext } from '../../http/read-context.js';

export const ATOMIC_EXT = 'https://jsonapi.org/ext/atomic';
/** Operations one request may carry (the body limit bounds their size as well). */
export const MAX_OPERATIONS = 1000;

type Op = 'add' | 'update' | 'remove';
interface Target {
  id: number;
  type: string;
}
/** What an operation leaves to answer with: an object to serialise, identifiers, or nothing. */
type Outcome = { objectId: number; type: string } | { identifiers: Array<{ id: string; type: string }> } | null;
/** A create's outcome before its row is written (staged in the request's CreateBatch). */
type Pending = { created: BatchedCreate; type: string };

/** An error of operation `index`, pointing at it (and at the member named, when there is one). */
function atOperation(err: unknown, index: number, member = ''): unknown {
  if (!(err instanceof ApiError)) return err;
  const pointer = `/atomic:operations/${index}${member}`;
  return new ApiError(err.status, err.code, `Operation ${index}: ${err.detail}`, err.title, { ...(err.extraMeta ?? {}), operation: index }, err.headers, { pointer });
}

function operationsOf(body: unknown): Array<Record<string, unknown>> {
  if (!isPlainObject(body) || !Array.isArray(body['atomic:operations'])) {
    throw badRequest('The request body must be an object with an "atomic:operations" array', 'invalid_body');
  }
  const ops = body['atomic:operations'] as unknown[];
  if (!ops.length) throw badRequest('"atomic:operations" is empty', 'invalid_body');
  if (ops.length > MAX_OPERATIONS) throw new ApiError(413, 'too_many_operations', `At most ${MAX_OPERATIONS} operations per request (${ops.length} sent)`);
  // Every identifier the operations name, together, stays under the one limit of a request.
  const named = ops.reduce<number>((n, op) => n + (isPlainObject(op) && Array.isArray(op.data) ? op.data.length : 1), 0);
  if (named > MAX_IDENTIFIERS) throw tooManyIdentifiers();
  return ops.map((op, i) => {
    if (!isPlainObject(op)) throw atOperation(badRequest('an operation must be an object', 'invalid_body'), i);
    return op;
  });
}

/**
 * The target an operation's `href` names, as a `ref`: `/{type}` (a collection), `/{type}/{id}` or
 * `/{type}/{id}/relationships/{relation}`, relative or absolute (under the server's base URL).
 */
function hrefTarget(req: Request, href: unknown): { type: string; id?: string; relationship?: string } {
  const invalid = () => badRequest('"href" must be /{type}, /{type}/{id} or /{type}/{id}/relationships/{relation}', 'invalid_href');
  if (typeof href !== 'string' || !href) throw invalid();
  let parts: string[];
  try {
    const base = baseUrl(req);
    let pathname = new URL(href, `${base}/`).pathname;
    const prefix = new URL(base).pathname.replace(/\/$/, '');
    if (prefix && pathname.startsWith(`${prefix}/`)) pathname = pathname.slice(prefix.length);
    parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw invalid();
  }
  if (parts.length === 1) return { type: parts[0] };
  if (parts.length === 2) return { type: parts[0], id: parts[1] };
  if (parts.length === 4 && parts[2] === 'relationships') return { type: parts[0], id: parts[1], relationship: parts[3] };
  throw invalid();
}

export function operationsRoutes(ctx: AppContext): RouteDef[] {
  /** An object type these operations may write (404 otherwise, as its endpoint would). */
  function writableType(name: unknown, member: string) {
    if (typeof name !== 'string' || !name) throw badRequest(`"${member}.type" is required`, 'invalid_body');
    const type = endpointType(ctx, name);
    if (!type) throw new ApiError(404, 'unknown_type', `Unknown object type "${name}"`);
    if (type.name === 'folders') throw badRequest('Folders are written through /folders, not atomic operations', 'unsupported_type');
    return type;
  }

  async function run(req: Request, ops: Array<Record<string, unknown>>): Promise<Outcome[]> {
    // Before the unit of work (and its write lock): the search documents of what is added, only
    // of the types this user may create (no tokenizing for a request the write guards refuse).
    const mayCreate = (name: unknown) => {
      const type = typeof name === 'string' ? endpointType(ctx, name) : undefined;
      return !!type && !type.isAbstract && (req.auth.isAdmin || rightsOn(req.auth.permissions, type).create !== null);
    };
    const added = new Map(ops.flatMap((op, i) => (op.op === 'add' && isPlainObject(op.data) && mayCreate(op.data.type) ? [[i, op.data.attributes] as const] : [])));
    const documents = added.size > 1 ? await CreateBatch.searchDocuments(ctx, added) : undefined;
    try {
      return await unitOfWork(req, ops, documents);
    } finally {
      // Left behind only if this fails: the next start drops what is over an hour old.
      await documents?.drop().catch((err) => ctx.log(`operations: could not drop staged search documents: ${(err as Error)?.message ?? err}`));
    }
  }

  async function unitOfWork(req: Request, ops: Array<Record<string, unknown>>, documents: SearchDocuments | undefined): Promise<Outcome[]> {
    return inTransaction(ctx, undefined, async (trx) => {
      const lids = new Map<string, Target>();
      /** The object added earlier under `lid`; `member` names where the lid was sent. */
      const added = (lid: string, member: string): Target => {
        const known = lids.get(lid);
        if (!known) throw badRequest(`"${member}" ${JSON.stringify(lid)} names no object added before it`, 'unknown_lid');
        return known;
      };
      /** `{type, id}` or `{type, lid}` of `member` as the object it names. */
      const resolve = (ident: Record<string, unknown>, member: string): Target => {
        const type = writableType(ident.type, member);
        if (typeof ident.lid === 'string' && ident.id === undefined) {
          const known = added(ident.lid, `${member}.lid`);
          if (known.type !== type.name) throw new ApiError(409, 'type_mismatch', `"${member}.lid" ${ident.lid} is a ${known.type}, not a ${type.name}`);
          return known;
        }
        if ((typeof ident.id !== 'string' && typeof ident.id !== 'number') || !/^\d{1,15}$/.test(String(ident.id))) {
          throw badRequest(`"${member}.id" (an object id) or "${member}.lid" is required`, 'invalid_body');
        }
        return { id: Number(ident.id), type: type.name };
      };
      // Plain creates are staged and inserted together, before any other kind of operation runs
      // (which may name them by lid) and at the end; an error of one names its operation.
      const creates = new CreateBatch(ctx, trx, (i, err) => atOperation(err, i, err instanceof ApiError && err.status === 400 ? '/data' : ''), documents);
      const outcomes: Array<Outcome | Pending> = [];
      for (const [i, op] of ops.entries()) {
        if (!(op.op === 'add' && op.ref === undefined && op.href === undefined)) await creates.flush();
        let member = '';
        try {
          const kind = op.op as Op;
          if (kind !== 'add' && kind !== 'update' && kind !== 'remove') throw badRequest('"op" must be "add", "update" or "remove"', 'invalid_op');
          if (op.ref !== undefined && !isPlainObject(op.ref)) throw badRequest('"ref" must be an object', 'invalid_body');
          let ref = op.ref as Record<string, unknown> | undefined;
          const refMember = op.href !== undefined ? '/href' : '/ref';
          if (op.href !== undefined) {
            member = '/href';
            if (ref !== undefined) throw badRequest('An operation names its target with "ref" or "href", not both', 'invalid_op');
            const target = hrefTarget(req, op.href);
            if (target.id === undefined) {
              // A collection: where a new object goes.
              if (kind !== 'add' || (isPlainObject(op.data) && op.data.type !== target.type)) {
                throw new ApiError(409, 'type_mismatch', `"href" ${JSON.stringify(op.href)} names the ${target.type} collection: only an "add" of a ${target.type} goes there`);
              }
            } else ref = target;
          }

          if (ref && ref.relationship !== undefined) {
            // A relationship write: ref names the object and the relation, data the identifiers.
            member = refMember;
            if (typeof ref.relationship !== 'string' || !ref.relationship) throw badRequest('"ref.relationship" must be a relation name', 'invalid_body');
            const target = resolve(ref, 'ref');
            member = '/data';
            const items = identifiersOf(op.data, true).map(({ id, lid, type, meta }, k) => ({
              id: lid === undefined ? id : String(added(lid, `data[${k}].lid`).id),
              type,
              meta,
            }));
            const mode = kind === 'add' ? 'add' : kind === 'update' ? 'replace' : 'remove';
            const relation = { name: ref.relationship, items, mode } as const;
            const { written } = await apply(ctx, { action: 'update', target: { key: target.id, type: target.type }, actor: req.auth, changes: { relations: [relation] } }, trx);
            outcomes.push({ identifiers: written ?? [] });
            continue;
          }

          if (kind === 'remove') {
            member = refMember;
            if (!ref) throw badRequest('"remove" needs "ref" naming the object', 'invalid_body');
            const target = resolve(ref, 'ref');
            await apply(ctx, { action: 'trash', target: { key: target.id, type: target.type }, actor: req.auth }, trx);
            outcomes.push(null);
            continue;
          }

          member = '/data';
          const data = op.data;
          if (!isPlainObject(data)) throw badRequest('"data" must be a resource object', 'invalid_body');
          if (kind === 'add') {
            if (ref) throw badRequest('"add" of an object takes no "ref"', 'invalid_body');
            if (data.id !== undefined) throw new ApiError(403, 'client_id', 'Object ids are given by the server: send "lid" to refer to a new object');
            const type = writableType(data.type, 'data');
            const input = asBEditaInput(ctx, req, type, resourceOf(data, type.name));
            if (data.lid !== undefined && (typeof data.lid !== 'string' || !data.lid)) throw badRequest('"data.lid" must be a non-empty string', 'invalid_body');
            if (typeof data.lid === 'string' && lids.has(data.lid)) throw badRequest(`"data.lid" ${JSON.stringify(data.lid)} is used twice`, 'duplicate_lid');
            const created = await creates.create({ action: 'create', type: type.name, actor: req.auth, changes: input }, i);
            // Read once the create is written: every operation that resolves a lid flushes first.
            if (typeof data.lid === 'string') lids.set(data.lid, { get id() { return created.row!.id; }, type: type.name });
            outcomes.push({ created, type: type.name });
            continue;
          }
          // update
          const target = resolve(data, 'data');
          const input = asBEditaInput(ctx, req, typeByName(ctx, target.type)!, resourceOf(data, target.type));
          if (ref) {
            const named = resolve(ref, 'ref');
            if (named.id !== target.id || named.type !== target.type) throw new ApiError(409, 'id_mismatch', '"ref" and "data" name different objects');
          }
          await apply(ctx, { action: 'update', target: { key: target.id, type: target.type }, actor: req.auth, changes: input }, trx);
          outcomes.push({ objectId: target.id, type: target.type });
        } catch (err) {
          throw creates.reports(err) ? err : atOperation(err, i, err instanceof ApiError && err.status === 400 ? member : '');
        }
      }
      await creates.flush();
      return outcomes.map((o) => (o && 'created' in o ? { objectId: o.created.row!.id, type: o.type } : o));
    });
  }

  return [
    {
      method: 'post',
      path: '/operations',
      writes: ['objects'],
      guard: 'user',
      produces: 'atomic',
      handler: async (req, res) => {
        const ops = operationsOf(req.body);
        const outcomes = await run(req, ops);
        // The objects as they stand after the commit, serialised together (one pass of each
        // decoration for the whole answer); an object removed later in the same request is
        // answered as it was left, trashed.
        const ids = outcomes.flatMap((o) => (o && 'objectId' in o ? [o.objectId] : []));
        // As the caller reads them: an object it may not read (a draft it created without `read`)
        // is answered by its identifier alone.
        const rows = await getObjectsByIds(ctx, ids, { trashed: req.auth.isAdmin ? 'any' : false, viewer: req.auth });
        const { data } = await serializeObjects(readContext(req), ctx, rows);
        const byId = new Map<number, Resource>(rows.map((r: ObjectRow, k) => [r.id, data[k]]));
        const results = outcomes.map((o) => (o === null ? {} : 'objectId' in o ? { data: byId.get(o.objectId) ?? { type: o.type, id: String(o.objectId) } } : { data: o.identifiers }));
        sendLinks(req, res, 200, { 'atomic:results': results });
      },
    },
  ];
}
