// The part of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests to make in all, shared out among the connections (the duration is then ignored). */
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<{ setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }>;
  }
  interface Result {
    requests: { total: number; average: number };
    latency: { p50: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  }
  /** The running benchmark: awaited for its result, stopped early with stop(). */
  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }
  export default function autocannon(options: Options): Instance;
}
