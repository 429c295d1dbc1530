// Answers leave for the network once per turn of the event loop, all together.
//
// Node writes each answer to its socket as soon as `res.end()` is called. On a busy server every
// one of those writes lands while the client waits in its poll and wakes it (on loopback, in the
// server's own system time); the client then sends its next request alone, and the server's poll
// wakes for it alone. Measured at 10 connections on 2 cores: a quarter of Folio's CPU per uncached
// read went to those wake-ups and the single-request polls they bring.
//
// Node already holds a socket's writes back while it is corked and writes them in one go when it
// is uncorked (`res.end()` uncorks fully). Here that last uncork is moved to the end of the current
// turn of the event loop (`setImmediate`, which runs right after the poll phase that delivered the
// requests): every answer finished in the same turn is written back to back. Nothing is held
// longer than the turn that produced it, and an idle server answers one request exactly as before.
// What node does with the socket is unchanged: `res.end()` still finishes the answer at once
// (`headersSent`, `writableEnded`), 'finish' still follows the write, and a socket destroyed in
// between drops what it held, as it would have with a write still in flight.
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

const uncorkNow = Duplex.prototype.uncork;
let waiting: Socket[] = [];

function flush(): void {
  const sockets = waiting;
  waiting = [];
  for (const socket of sockets) uncorkNow.call(socket);
}

function uncorkAtEndOfTurn(this: Socket): void {
  if (!waiting.length) setImmediate(flush);
  waiting.push(this);
}

/** From now on, `socket`'s uncorks (and so node's writes of answers) wait for the end of the turn. */
export function flushOncePerTurn(socket: Socket): void {
  socket.uncork = uncorkAtEndOfTurn;
}
