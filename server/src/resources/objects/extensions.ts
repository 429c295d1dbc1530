// Extension points of the objects family. Other families (folders, media, legacy…) register an
// ObjectExtension at wiring time instead of editing the objects code: they add to serialised
// objects, answer extra list filters and take part in trash, restore and permanent delete.
import type { Request } from 'express';
import type { Expression, SqlBool, Transaction, ExpressionBuilder } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import type { Resource } from '../../http/jsonapi.js';

export interface SerializedObject {
  id: number;
  /** Concrete type name, e.g. 'images'. */
  type: string;
  resource: Resource;
}

export interface ObjectExtension {
  /** Name for logs and errors. */
  name: string;
  /**
   * Type names this extension applies to; abstract names cover their sub-types
   * ('objects' = every type, 'media' = images, files, audio, videos…).
   */
  types: string[];
  /**
   * Add meta, relationships or included resources to a batch of serialised objects (one call per
   * response, never one per object). `included` is the response's included array.
   */
  decorate?(req: Request, ctx: AppContext, items: SerializedObject[], included: Resource[]): Promise<void>;
  /**
   * Extra list filters owned by this extension, e.g. `parent` → filter[parent]=<id|uname>.
   * Return a condition on the `objects` table (alias `objects`).
   */
  filters?: Record<string, (values: string[], eb: ExpressionBuilder<Database, 'objects'>, ctx: AppContext) => Expression<SqlBool> | Promise<Expression<SqlBool>>>;
  /** Inside the transaction that moves objects to the trash. */
  onTrash?(trx: Transaction<Database>, ids: number[], ctx: AppContext): Promise<void>;
  /** Inside the transaction that restores objects from the trash. */
  onRestore?(trx: Transaction<Database>, ids: number[], ctx: AppContext): Promise<void>;
  /** Inside the permanent-delete transaction, before the objects' rows are removed. */
  onPurge?(trx: Transaction<Database>, ids: number[], ctx: AppContext): Promise<void>;
  /** After the permanent delete has committed (e.g. remove files from disk). */
  afterPurge?(ids: number[], ctx: AppContext): Promise<void>;
}

/** The registry lives on the context, so every server has its own. */
export function objectExtensions(ctx: AppContext): ObjectExtension[] {
  const services = ctx.services as { objectExtensions?: ObjectExtension[] };
  return (services.objectExtensions ??= []);
}

export function registerObjectExtension(ctx: AppContext, ext: ObjectExtension): void {
  objectExtensions(ctx).push(ext);
}
