// The terms family: categories, tags, geo tags and date items of objects. Its endpoints are the
// vocabularies (/model/categories, /model/tags); on objects it joins the read path and the write
// kernel as an extension (the legacy layout and the JSON API read and write the same data).
import type { AppContext } from '../../context.js';
import type { RouteDef } from '../../http/router.js';
import { registerObjectExtension } from '../objects/extensions.js';
import { termsExtension } from './extension.js';
import { vocabularyRoutes } from './vocabulary.js';

export function termsRoutes(ctx: AppContext): RouteDef[] {
  registerObjectExtension(ctx, termsExtension(ctx));
  return vocabularyRoutes(ctx);
}
