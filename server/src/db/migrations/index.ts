// Every migration, by name. Add a line per new file; names sort in the order they run.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';
import * as m0001 from './0001-core.js';
import * as m0010 from './0010-model.js';
import * as m0020 from './0020-accounts.js';
import * as m0030 from './0030-folder-tree.js';
import * as m0040 from './0040-streams.js';
import * as m0050 from './0050-legacy.js';
import * as m0060 from './0060-list-indexes.js';
import * as m0061 from './0061-title-index.js';
import * as m0070 from './0070-history.js';
import * as m0071 from './0071-webhooks.js';
import * as m0080 from './0080-permissions.js';
import * as m0090 from './0090-jobs.js';
import * as m0091 from './0091-search-function.js';
import * as m0092 from './0092-object-versions.js';
import * as m0093 from './0093-private-streams.js';
import * as m0094 from './0094-translations.js';
import * as m0095 from './0095-publish-window.js';
import * as m0100 from './0100-bedita-model.js';
import * as m0110 from './0110-terms-bedita.js';
import * as m0120 from './0120-otp-external-auth.js';
import * as m0121 from './0121-administration.js';
import * as m0122 from './0122-annotations.js';
import * as m0123 from './0123-application-last-used.js';
import * as m0124 from './0124-image-alt-text.js';
import * as m0125 from './0125-covering-list-indexes.js';
import * as m0126 from './0126-search-documents-given.js';
import * as m0127 from './0127-search-index-without-positions.js';
import * as m0128 from './0128-search-documents-staged.js';
import * as m0129 from './0129-search-hidden-fields.js';
import * as m0130 from './0130-drafts.js';
import * as m0131 from './0131-draft-translations.js';
import * as m0132 from './0132-core-type-fields.js';
import * as m0133 from './0133-async-jobs.js';
import * as m0134 from './0134-object-category-params.js';
import * as m0135 from './0135-tree-params.js';
import * as m0150 from './0150-location-coords.js';
import * as m0151 from './0151-property-label-position.js';
import * as m0152 from './0152-search-index-with-positions.js';
import * as m0153 from './0153-search-index-without-copy.js';
import * as m0154 from './0154-search-index-prefixes.js';
import * as m0155 from './0155-search-documents-inline.js';
import * as m0156 from './0156-search-word-statistics.js';

/** A migration: forward only, told the dialect for what the engines write differently. */
export interface FolioMigration {
  up(db: Kysely<any>, dialect: SqlDialect): Promise<void>;
}

export const migrations: Record<string, FolioMigration> = {
  '0001-core': m0001,
  '0010-model': m0010,
  '0020-accounts': m0020,
  '0030-folder-tree': m0030,
  '0040-streams': m0040,
  '0050-legacy': m0050,
  '0060-list-indexes': m0060,
  '0061-title-index': m0061,
  '0070-history': m0070,
  '0071-webhooks': m0071,
  '0080-permissions': m0080,
  '0090-jobs': m0090,
  '0091-search-function': m0091,
  '0092-object-versions': m0092,
  '0093-private-streams': m0093,
  '0094-translations': m0094,
  '0095-publish-window': m0095,
  '0100-bedita-model': m0100,
  '0110-terms-bedita': m0110,
  '0120-otp-external-auth': m0120,
  '0121-administration': m0121,
  '0122-annotations': m0122,
  '0123-application-last-used': m0123,
  '0124-image-alt-text': m0124,
  '0125-covering-list-indexes': m0125,
  '0126-search-documents-given': m0126,
  '0127-search-index-without-positions': m0127,
  '0128-search-documents-staged': m0128,
  '0129-search-hidden-fields': m0129,
  '0130-drafts': m0130,
  '0131-draft-translations': m0131,
  '0132-core-type-fields': m0132,
  '0133-async-jobs': m0133,
  '0134-object-category-params': m0134,
  '0135-tree-params': m0135,
  '0150-location-coords': m0150,
  '0151-property-label-position': m0151,
  '0152-search-index-with-positions': m0152,
  '0153-search-index-without-copy': m0153,
  '0154-search-index-prefixes': m0154,
  '0155-search-documents-inline': m0155,
  '0156-search-word-statistics': m0156,
};
