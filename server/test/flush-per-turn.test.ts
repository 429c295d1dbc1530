// Answers finished in the same turn of the event loop are written to their sockets together at
// its end (http/flush-per-turn.ts), and nothing about them changes: each arrives whole, in order
// on a pipelined connection, with `Connection: close` before the close. The holding is observed
// on the server's own sockets through node's `http.server.request.start` diagnostics channel:
// when a request starts, every answer already ended in that turn still holds its bytes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import type http from 'node:http';
import { startServer, type TestServer } from './helpers/server.js';

const onPostgres = process.env.FOLIO_TEST_DB === 'postgres';

/**
 * Raw HTTP/1.1 answers read off one socket until `count` have arrived (Content-Length framed;
 * the answers to HEAD requests, `heads` of them by position, and 304s carry no body).
 */
function readAnswers(socket: net.Socket, count: number, heads: number[] = []): Promise<{ status: number; headers: Record<string, string>; body: string }[]> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const answers: { status: number; headers: Record<string, string>; body: string }[] = [];
    const parse = () => {
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const at = line.indexOf(':');
          headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
        }
        const status = Number(head[0].split(' ')[1]);
        const length = heads.includes(answers.length) || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
        if (buffered.length < end + 4 + length) return;
        answers.push({ status, headers, body: buffered.subarray(end + 4, end + 4 + length).toString('utf8') });
        buffered = buffered.subarray(end + 4 + length);
        if (answers.length === count) {
          socket.off('data', onData);
          resolve(answers);
          return;
        }
      }
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      parse();
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => {
      if (answers.length < count) reject(new Error(`connection closed after ${answers.length} of ${count} answers`));
    });
  });
}

const connect = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

/** A raw request (the Host the test helper's fetch sends: the links, and so the ETags, match). */
const ask = (method: string, path: string, extra = '') => `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/vnd.api+json\r\n${extra}\r\n`;
const get = (path: string, extra = '') => ask('GET', path, extra);
let host = '';

describe('answers leave once per turn of the event loop', () => {
  let s: TestServer;
  let port: number;
  const ids: string[] = [];

  before(async () => {
    s = await startServer();
    port = Number(new URL(s.url).port);
    host = new URL(s.url).host;
    const admin = await s.adminToken();
    for (const title of ['Low tide', 'High tide', 'Neap tide', 'Spring tide']) {
      const r = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title, status: 'on', body: `<p>${title} at dawn</p>` } } } });
      assert.equal(r.status, 201, r.text);
      ids.push(String(r.body.data.id));
    }
  });
  after(() => s.close());

  test('answers ended in one turn hold their bytes until its end, then arrive whole', async () => {
    const sockets = await Promise.all(ids.map(() => connect(port)));
    // A first round on each connection: the server has taken them all in and reads them.
    const warm = sockets.map((socket) => readAnswers(socket, 1));
    sockets.forEach((socket) => socket.write(get('/home')));
    for (const [answer] of await Promise.all(warm)) assert.equal(answer.status, 200);
    // Every answer ended before a request starts, with its socket's buffered bytes at that moment.
    const ended: { response: http.ServerResponse; socket: net.Socket }[] = [];
    const seen: { held: number; ended: boolean }[] = [];
    const onStart = (message: unknown) => {
      const { response, socket } = message as { response: http.ServerResponse; socket: net.Socket };
      for (const r of ended) seen.push({ held: r.socket.writableLength, ended: r.response.writableEnded });
      response.once('prefinish', () => ended.push({ response, socket }));
    };
    diagnostics.subscribe('http.server.request.start', onStart);
    try {
      const answers = sockets.map((socket) => readAnswers(socket, 1).then(([a]) => a));
      // Written in one go: the server's next poll finds all of them, and (SQLite's reads being
      // synchronous) answers them one after the other in that same turn.
      sockets.forEach((socket, i) => socket.write(get(`/documents/${ids[i]}`)));
      const got = await Promise.all(answers);
      got.forEach((a, i) => {
        assert.equal(a.status, 200);
        const doc = JSON.parse(a.body);
        assert.equal(doc.data.id, ids[i]);
        assert.match(doc.data.attributes.body, /tide at dawn/);
        assert.equal(Number(a.headers['content-length']), Buffer.byteLength(a.body));
      });
    } finally {
      diagnostics.unsubscribe('http.server.request.start', onStart);
      for (const socket of sockets) socket.destroy();
    }
    // Node writes a small answer to the kernel at once when not held back: a held answer shows
    // as bytes still in its socket's buffer after `res.end()`.
    for (const o of seen) assert.ok(o.held > 0, `an answer ended earlier in the turn had already left (${JSON.stringify(seen)})`);
    // On SQLite the reads finish within the turn their requests arrived in; on PostgreSQL they
    // wait for the database, so answers may end in different turns (nothing is then observed).
    if (!onPostgres) assert.ok(seen.length > 0, 'no answer ended while others were still being handled in the same turn');
  });

  test('pipelined requests on one connection are answered in order and whole', async () => {
    const socket = await connect(port);
    try {
      const answers = readAnswers(socket, ids.length + 1);
      socket.write(ids.map((id) => get(`/documents/${id}`)).join('') + get('/documents/999999999'));
      const got = await answers;
      got.slice(0, ids.length).forEach((a, i) => {
        assert.equal(a.status, 200);
        assert.equal(JSON.parse(a.body).data.id, ids[i]);
      });
      assert.equal(got[ids.length].status, 404);
      assert.equal(JSON.parse(got[ids.length].body).error.status, '404');
    } finally {
      socket.destroy();
    }
  });

  test('an answer with Connection: close arrives before the server closes the connection', async () => {
    const socket = await connect(port);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const answers = readAnswers(socket, 1);
    socket.write(get(`/documents/${ids[0]}`, 'Connection: close\r\n'));
    const [a] = await answers;
    assert.equal(a.status, 200);
    assert.equal(a.headers.connection, 'close');
    assert.equal(JSON.parse(a.body).data.id, ids[0]);
    await closed;
  });

  test('a HEAD and a conditional GET among them keep their answers', async () => {
    const first = await s.request('GET', `/documents/${ids[1]}`);
    const etag = first.headers.get('etag')!;
    const socket = await connect(port);
    try {
      const answers = readAnswers(socket, 3, [0]);
      socket.write(
        ask('HEAD', `/documents/${ids[1]}`) +
          get(`/documents/${ids[1]}`, `If-None-Match: ${etag}\r\n`) +
          get(`/documents/${ids[2]}`),
      );
      const [head, conditional, plain] = await answers;
      assert.equal(head.status, 200);
      assert.equal(head.headers.etag, etag);
      assert.equal(Number(head.headers['content-length']), Buffer.byteLength(first.text));
      assert.equal(conditional.status, 304);
      assert.equal(plain.status, 200);
      assert.equal(JSON.parse(plain.body).data.id, ids[2]);
    } finally {
      socket.destroy();
    }
  });
});
