// The load generator, run as its own process so it does not share a CPU thread with the server:
// receives one scenario over IPC, drives it with autocannon (bounded in time, and with `once` by
// its paths: each asked for once) and sends back the figures.
import autocannon, { type Instance } from 'autocannon';
import type { LoadSpec, LoadFigures } from './lib/scenarios.js';

process.once('message', async (spec: LoadSpec) => {
  let n = 0;
  let w = 0;
  const { paths, writes, once } = spec;
  const limit = once && paths ? paths.length : Infinity;
  let instance: Instance | undefined = undefined;
  instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    requests: paths
      ? [
          {
            setupRequest: (req: Record<string, unknown>) => {
              const i = n++;
              if (i + 1 >= limit) instance?.stop();
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
  const result = await instance;
  const figures: LoadFigures = {
    requests: result.requests.total,
    rps: result.requests.total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    non2xx: result.non2xx,
    // What driving the load cost this process (the benchmark counts it as its own, not the machine's other work).
    cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  };
  process.send?.(figures, () => process.exit(0));
});
