// The terms family: categories, tags, geo tags and date items of objects. No endpoints of its own
// (the legacy layout writes them, the JSON API shows them): it joins the read path as an extension.
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { registerObjectExtension } from '../objects/extensions.js';
import { termsExtension } from './extension.js';

export function termsRoutes(ctx: AppContext): RouteDef[] {
  registerObjectExtension(ctx, termsExtension(ctx));
  return [];
}
