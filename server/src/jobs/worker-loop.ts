// The loop of a queue worker (jobs, webhook deliveries): drain what is due, sleep until the next
// due row or at most `pollMs` (rows of other instances, expired leases), and look again at once
// when woken (this instance queued something). One drain at a time; stop() waits for it.
export interface WorkerLoopOptions {
  name: string;
  log: (line: string) => void;
  pollMs: number;
  /** Claim and run due work until none is left or `stopping()` says so. */
  drain(stopping: () => boolean): Promise<void>;
  /** Milliseconds until the next look. */
  nextLook(): Promise<number>;
}

export interface WorkerLoop {
  /** Look at the queue now (after a commit that queued something). */
  wake(): void;
  start(): void;
  /** No new look; resolves when the drain under way (if any) returned. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

export function createWorkerLoop(opts: WorkerLoopOptions): WorkerLoop {
  let stopped = true;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  const stopping = () => stopped;

  async function drainAll(): Promise<void> {
    do {
      again = false;
      await opts.drain(stopping);
    } while (again && !stopped);
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(wake, ms);
    timer.unref?.();
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drainAll()
      .then(() => (stopped ? 0 : opts.nextLook()))
      .then((ms) => schedule(ms))
      .catch((err) => {
        if (!stopped) opts.log(`${opts.name}: ${(err as Error)?.stack ?? err}`);
        schedule(opts.pollMs);
      })
      .finally(() => {
        running = null;
      });
  }

  return {
    wake,
    get stopped() {
      return stopped;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      wake();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
