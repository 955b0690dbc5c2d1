import { chmodSync, existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';

/** The SQLite store's files hold keys' digests and ciphertexts: their owner's alone, whatever the umask. */
const modeOf = (path: string) => statSync(path).mode & 0o777;
const fresh = () => mkdtempSync(join(tmpdir(), 'marketplace-modes-'));

describe('the SQLite store files', () => {
  it('are made 0600, -wal and -shm included, and the default directory 0700', async () => {
    const dir = join(fresh(), 'data');
    const path = join(dir, 'marketplace.db');
    const store = await openStore({ kind: 'sqlite', path }, { createDirectory: true });
    try {
      // A write, so that SQLite has made its -wal and -shm files.
      await store.setAccountStatus('nobody', 'active');
      expect(modeOf(dir)).toBe(0o700);
      expect([path, `${path}-wal`, `${path}-shm`].map(modeOf)).toEqual([0o600, 0o600, 0o600]);
    } finally {
      await store.close();
    }
  });

  it('are tightened when they were open to others', async () => {
    const dir = fresh();
    const path = join(dir, 'store.db');
    await (await openStore({ kind: 'sqlite', path })).close();
    writeFileSync(`${path}-wal`, '');
    chmodSync(path, 0o644);
    chmodSync(`${path}-wal`, 0o664);
    const store = await openStore({ kind: 'sqlite', path });
    try {
      expect([modeOf(path), modeOf(`${path}-wal`)]).toEqual([0o600, 0o600]);
    } finally {
      await store.close();
    }
  });

  it('are refused in a directory that does not exist, which is not made', async () => {
    const missing = join(fresh(), 'no-such-dir');
    await expect(openStore({ kind: 'sqlite', path: join(missing, 'x.db') })).rejects.toThrow(
      `DATABASE_URL: the directory ${missing} of the SQLite store does not exist: create it (mkdir -m 700) or name another path`,
    );
    expect(existsSync(missing)).toBe(false);
  });

  it('are refused in an existing directory group or others may write to, which is left as it is', async () => {
    const dir = fresh();
    chmodSync(dir, 0o775);
    await expect(openStore({ kind: 'sqlite', path: join(dir, 'x.db') })).rejects.toThrow(
      `DATABASE_URL: the directory ${dir} of the SQLite store may be written by group (mode 0775)`,
    );
    expect(modeOf(dir)).toBe(0o775);
    expect(existsSync(join(dir, 'x.db'))).toBe(false);
    chmodSync(dir, 0o755);
    await (await openStore({ kind: 'sqlite', path: join(dir, 'x.db') })).close();
  });
});
