// A location's coords as BEdita writes them: WKT `POINT(<longitude> <latitude>)`. The property type
// `coords` (migration 0150) refuses anything else with 400; the kernel observer below keeps each
// object's point in `object_coords`, inside the write's transaction, for filter[geo].
import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ObjectChange, ObjectObserver } from '../objects/changes.js';

const NUMBER = '-?(?:\\d+(?:\\.\\d*)?|\\.\\d+)';
/** The JSON Schema pattern of the `coords` property type. */
export const COORDS_PATTERN = `^\\s*POINT\\s*\\(\\s*${NUMBER}\\s+${NUMBER}\\s*\\)\\s*$`;
const POINT = new RegExp(`^\\s*POINT\\s*\\(\\s*(${NUMBER})\\s+(${NUMBER})\\s*\\)\\s*$`, 'i');

/** The point of a coords value, or null (none, or not on the globe). */
export function pointOf(value: unknown): { latitude: number; longitude: number } | null {
  const m = typeof value === 'string' ? POINT.exec(value) : null;
  if (!m) return null;
  const [longitude, latitude] = [Number(m[1]), Number(m[2])];
  if (!(Math.abs(latitude) <= 90) || !(longitude > -180 && longitude <= 180)) return null;
  return { latitude, longitude };
}

/** Keeps `object_coords` as the objects' coords are written (purges cascade). */
export const coordsObserver: ObjectObserver = {
  name: 'coords',
  async record(trx: Transaction<Database>, changes: ObjectChange[]) {
    for (const c of changes) {
      if ((c.action !== 'create' && c.action !== 'update') || !Object.hasOwn(c.changed, 'coords')) continue;
      await trx.deleteFrom('object_coords').where('object_id', '=', c.id).execute();
      const point = pointOf(c.changed.coords);
      if (point) await trx.insertInto('object_coords').values({ object_id: c.id, ...point }).execute();
    }
  },
};
