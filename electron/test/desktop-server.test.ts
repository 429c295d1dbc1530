// The embedded server of the desktop app, for real: first start in a fresh user-data folder, port
// fallback, the LAN toggle's restart on 0.0.0.0 and back, and a stop that finishes requests in
// flight and closes the database.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { desktopPaths, readInitialAdminPassword } from '../desktop-paths.js';
import { createEmbeddedServer, lanAddresses, type EmbeddedServer } from '../embedded-server.js';
import { defaultSettings, type DesktopSettings } from '../settings.js';
import { freePort } from './helpers/free-port.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-desktop-server-'));
const paths = desktopPaths(path.join(tmp, 'user-data'));
const uiDir = path.join(tmp, 'ui');
fs.mkdirSync(uiDir);
fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>Folio admin</title><p>Sign in</p>');

/** Status of a GET on a fresh connection (fetch's pool may hold sockets of the stopped server). */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

/** Whether something accepts TCP connections at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('embedded server', () => {
  let server: EmbeddedServer;
  let settings: DesktopSettings;
  const lines: string[] = [];

  before(async () => {
    settings = { ...defaultSettings, port: await freePort() };
    server = createEmbeddedServer({ dataDir: paths.dataDir, uiDir, log: (l) => lines.push(l) });
  });
  after(async () => {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('the first start creates the admin, whose generated password logs in', async () => {
    const running = await server.start(settings);
    assert.deepEqual(running, {
      port: settings.port,
      preferredPort: settings.port,
      host: '127.0.0.1',
      lanSharing: false,
      localUrl: `http://127.0.0.1:${settings.port}`,
      adminUrl: `http://127.0.0.1:${settings.port}/admin`,
      lanUrls: [],
    });
    assert.deepEqual(server.initialAdmin(), { created: true, username: 'admin', passwordFile: paths.initialPasswordFile });
    const password = readInitialAdminPassword(paths);
    assert.ok(password && password.length >= 12);
    const login = await fetch(`${running.localUrl}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    assert.equal(login.status, 200);
    assert.equal(typeof (await login.json()).meta.jwt, 'string');
    const admin = await fetch(running.adminUrl);
    assert.equal(admin.status, 200);
    assert.match(await admin.text(), /Folio admin/);
  });

  test('LAN sharing restarts the server on every interface and lists the LAN URLs; off binds loopback again', async (t) => {
    const shared = await server.restart({ ...settings, lanSharing: true });
    assert.equal(shared.host, '0.0.0.0');
    assert.equal(shared.lanSharing, true);
    assert.equal(shared.port, settings.port);
    assert.deepEqual(shared.lanUrls, lanAddresses().map((a) => `http://${a}:${settings.port}`));
    assert.equal(await statusOf(`${shared.localUrl}/status`), 200);
    assert.equal(server.initialAdmin()?.created, true, 'the first-start admin is still reported after a restart');
    // 127.0.0.2 is another loopback address on Linux: it reaches 0.0.0.0 but not 127.0.0.1.
    const linux = process.platform === 'linux';
    if (linux) assert.equal(await accepts('127.0.0.2', shared.port), true);

    const local = await server.restart(settings);
    assert.equal(local.host, '127.0.0.1');
    assert.deepEqual(local.lanUrls, []);
    assert.equal(await statusOf(`${local.localUrl}/status`), 200);
    if (linux) assert.equal(await accepts('127.0.0.2', local.port), false);
    else t.diagnostic('127.0.0.2 checks only run on Linux');
  });

  test('a taken port makes the server use the next free one and report both', async () => {
    await server.stop();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(settings.port, '127.0.0.1', r));
    try {
      const running = await server.start(settings);
      assert.equal(running.preferredPort, settings.port);
      assert.ok(running.port > settings.port && running.port < settings.port + 20, `port ${running.port}`);
      assert.equal(await statusOf(`${running.localUrl}/status`), 200);
      assert.ok(lines.some((l) => l.includes(`port ${settings.port} was taken`)));
    } finally {
      blocker.close();
    }
  });

  test('a bad setting stops the start with the reason, and nothing is left listening', async () => {
    const before = server.current();
    assert.ok(before);
    await assert.rejects(server.restart({ ...settings, mailFrom: null, smtpUrl: 'http://not-smtp' }), /FOLIO_SMTP_URL/);
    assert.equal(server.current(), null);
    assert.equal(await accepts('127.0.0.1', before.port), false);
  });

  test('stop finishes a request in flight, then closes the database cleanly', async () => {
    const running = await server.start(settings);
    const body = JSON.stringify({ username: 'admin', password: 'wrong-password' });
    // Send the headers and half the body, stop, then send the rest: the answer still arrives.
    const answer = new Promise<number>((resolve, reject) => {
      const req = http.request(`${running.localUrl}/auth`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      // The server runs in this process: once the headers are flushed, one timer later it has
      // read them, so the request is in flight (not an idle connection) when stop() is called.
      req.write(body.slice(0, 10), () => {
        setTimeout(() => {
          stopped = server.stop();
          setTimeout(() => req.end(body.slice(10)), 100);
        }, 50);
      });
    });
    let stopped: Promise<void> | null = null;
    assert.equal(await answer, 401);
    await stopped;
    assert.equal(server.current(), null);
    assert.equal(await accepts('127.0.0.1', running.port), false);
    // A clean close checkpoints the write-ahead log and removes it.
    assert.equal(fs.existsSync(path.join(paths.dataDir, 'folio.sqlite-wal')), false);
    assert.ok(lines.includes('Folio server stopped'));
    await server.stop(); // stopping twice is harmless
  });
});
