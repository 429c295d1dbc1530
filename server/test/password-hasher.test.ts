// Password hashes run in a child process of the server (resources/auth/passwords.ts), which ends
// when it has been idle, taking scrypt's 16 MB per hash with it (glibc keeps what a thread freed
// in that thread's arena for the life of the process). The hasher is found among the server's
// child processes (this test process is the server's: startServer runs it in-process).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServer, type TestServer, ADMIN } from './helpers/server.js';

/** This process's children running the hasher (their command line names scrypt). */
function hashers(): number[] {
  const children = fs
    .readdirSync('/proc/self/task')
    .flatMap((task) => fs.readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  return children.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('scryptSync');
    } catch {
      return false;
    }
  });
}

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('password hashing in a process of its own', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  const login = (password: string) => s.request('POST', '/auth', { body: { username: ADMIN.username, password }, headers: { 'Content-Type': 'application/json' } });

  test('a login hashes in a child process, which ends once idle; the next login starts another', async () => {
    await until('no hasher is left from the first admin', () => hashers().length === 0);
    const ok = await login(ADMIN.password);
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.body.meta.jwt);
    const [first] = hashers();
    assert.ok(first, 'no hasher process after a login');
    // It gets none of the server's environment (database URL, mail passwords…).
    const environment = fs.readFileSync(`/proc/${first}/environ`, 'utf8');
    assert.ok(!/FOLIO_|PATH=/.test(environment), `the hasher sees the server's environment: ${environment.slice(0, 200)}`);
    // A wrong password is refused by the same hasher (it stays while logins come).
    const wrong = await login('not-the-password');
    assert.equal(wrong.status, 401);
    assert.deepEqual(hashers(), [first]);
    await until('the idle hasher ends', () => hashers().length === 0);
    const again = await login(ADMIN.password);
    assert.equal(again.status, 200, again.text);
    assert.ok(hashers().length === 1 && hashers()[0] !== first, 'the next login did not start a new hasher');
  });

  test('a hasher killed between logins costs nothing: the next login starts a new one', async () => {
    assert.equal((await login(ADMIN.password)).status, 200);
    const [pid] = hashers();
    assert.ok(pid);
    process.kill(pid, 'SIGKILL');
    await until('the killed hasher is gone', () => !hashers().includes(pid));
    const next = await login(ADMIN.password);
    assert.equal(next.status, 200, next.text);
    assert.equal((await login('still-wrong')).status, 401);
  });

  test('a hasher killed in the middle of a hash: the login is hashed again by a new one', async () => {
    // Hash after hash until one is caught under way (a hash takes ~40 ms here): the login still
    // answers, and a hasher other than the killed one exists right after it (the retry's).
    let retried = 0;
    for (let round = 0; round < 20 && !retried; round++) {
      const pending = login(round % 2 ? 'a-wrong-one' : ADMIN.password);
      let pid = 0;
      for (let i = 0; i < 400 && !pid; i++) {
        pid = hashers()[0] ?? 0;
        if (!pid) await new Promise((r) => setTimeout(r, 1));
      }
      if (pid) process.kill(pid, 'SIGKILL');
      const answer = await pending;
      assert.equal(answer.status, round % 2 ? 401 : 200, answer.text);
      if (pid && hashers().some((other) => other !== pid)) retried++;
      await until('the killed hasher is gone', () => !hashers().includes(pid));
    }
    assert.ok(retried > 0, 'no hash was caught under way in 20 tries');
    assert.equal((await login(ADMIN.password)).status, 200);
  });
});
