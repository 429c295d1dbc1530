// A RunningServer as the embedded server reports it, for menu-model tests (fields overridable).
import type { RunningServer } from '../../embedded-server.js';

export const runningServer = (over: Partial<RunningServer> = {}): RunningServer => ({
  port: 8090,
  preferredPort: 8090,
  host: '127.0.0.1',
  lanSharing: false,
  localUrl: 'http://127.0.0.1:8090',
  adminUrl: 'http://127.0.0.1:8090/admin',
  lanUrls: [],
  ...over,
});
