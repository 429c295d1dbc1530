// The load generator, run as its own process so it does not share a CPU thread with the server:
// receives one scenario over IPC, drives it with autocannon (10 connections, bounded in time)
// and sends back the figures.
import autocannon from 'autocannon';
import type { LoadSpec, LoadFigures } from './lib/scenarios.js';

process.once('message', async (spec: LoadSpec) => {
  let n = 0;
  const paths = spec.paths;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    method: spec.method,
    headers: spec.headers,
    body: spec.body,
    requests: paths
      ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: paths[n++ % paths.length] }) }]
      : undefined,
  });
  const figures: LoadFigures = {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    non2xx: result.non2xx,
  };
  process.send?.(figures, () => process.exit(0));
});
