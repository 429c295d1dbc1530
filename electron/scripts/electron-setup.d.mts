// Types of electron-setup.mjs for the TypeScript tests that import it.
export declare const root: string;
export declare class SetupError extends Error {}
export declare function electronVersion(): string;
export declare function findElectronBinary(env?: Record<string, string | undefined>): string | null;
export declare function ensureElectronBinary(): string;
export declare function sqliteBindingPath(version?: string, platform?: string, arch?: string): string;
export declare function ensureSqliteBinding(options?: { version?: string; arch?: string }): Promise<string>;
export declare function newestMtime(dirs: string[], accept?: (name: string) => boolean): number;
export declare function npmRun(script: string): void;
export declare function buildIfNeeded(): void;
