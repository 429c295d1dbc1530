// Where log lines go when the embedder gives no `log` (npm start): standard output, written in
// batches. A console.log per request was a synchronous write(2) each (stdout to a file or a pipe
// is synchronous in Node on Linux): measured at ~8% of a cached read's CPU. Lines are queued and
// written together once per turn of the event loop, in order; close() writes what is left.
export interface LineLog {
  (line: string): void;
  /** Writes the lines still queued (the server is closing). */
  flush(): void;
}

export function batchedLineLog(write: (text: string) => void = (text) => process.stdout.write(text)): LineLog {
  let queued: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!queued.length) return;
    const text = queued.join('\n') + '\n';
    queued = [];
    write(text);
  };
  const log = ((line: string) => {
    queued.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }) as LineLog;
  log.flush = flush;
  return log;
}
