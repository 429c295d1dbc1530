// Types of ui-entry-size.mjs, for the e2e test that imports it.
export declare const BUDGET_BYTES: number;
export declare function entrySize(dist?: string): { sizes: Array<{ file: string; gzip: number }>; total: number };
