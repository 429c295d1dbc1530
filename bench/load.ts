// The load generator, run as its own process so it does not share a CPU thread with the server:
// receives one scenario over IPC, drives it with autocannon (bounded in time, and with `once` by
// its paths: each asked for once) and sends back the figures.
import autocannon, { type Instance } from 'autocannon';
import type { LoadSpec, LoadFigures } from './lib/scenarios.js';

process.once('message', async (spec: LoadSpec) => {
  let n = 0;
  let w = 0;
  const { paths, writes, once } = spec;
  // `once`: exactly one request per path (autocannon's `amount`, shared out among the connections).
  // Stopping the instance when the last path was handed out let it go on for up to a second
  // (its stop is seen at its next tick): 1,800-11,800 requests more than paths, asking the first
  // paths again, answers a cache then holds. Still bounded by `seconds`.
  const limit = once && paths ? paths.length : undefined;
  let instance: Instance | undefined = undefined;
  const timer = limit === undefined ? undefined : setTimeout(() => instance?.stop(), spec.seconds * 1000);
  instance = autocannon({
    url: spec.url,
    connections: limit === undefined ? spec.connections : Math.min(spec.connections, limit),
    duration: spec.seconds,
    amount: limit,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    requests: paths
      ? [
          {
            setupRequest: (req: Record<string, unknown>) => {
              const i = n++;
              // One write every `writes.every` requests, in place of a read.
              if (writes && i % writes.every === writes.every - 1) {
                const write = writes.requests[w++ % writes.requests.length];
                return { ...req, method: writes.method, headers: writes.headers, path: write.path, body: write.body };
              }
              return { ...req, path: paths[i % paths.length] };
            },
          },
        ]
      : undefined,
  });
  const started = performance.now();
  const result = await instance;
  clearTimeout(timer);
  // autocannon's own duration is in whole seconds once `amount` ends the run.
  const elapsed = (performance.now() - started) / 1000;
  const figures: LoadFigures = {
    requests: result.requests.total,
    rps: result.requests.total / Math.max(elapsed, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    non2xx: result.non2xx,
    // What driving the load cost this process (the benchmark counts it as its own, not the machine's other work).
    cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  };
  process.send?.(figures, () => process.exit(0));
});
