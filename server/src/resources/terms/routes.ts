// The terms family: categories, tags, geo tags and date items of objects. Its endpoints are the
// vocabularies (/model/categories, /model/tags); on objects it joins the read path and the write
// kernel as an extension (the legacy layout and the JSON API read and write the same data).
import { coordsObserver } from './coords.js';
import type { Family } from '../family.js';
import { termsExtension } from './extension.js';
import { vocabularyRoutes } from './vocabulary.js';

export const termsFamily: Family = {
  name: 'terms',
  kernel: (ctx) => ({ extensions: [termsExtension(ctx)], observers: [coordsObserver] }),
  routes: vocabularyRoutes,
};
