import fs, { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeFolders } from '../../src/core/files.js';

describe('makeFolders (mkdir -p)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-folders-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the missing folders, and leaves one that exists as it is', () => {
    const deep = join(dir, 'a', 'b', 'c');
    makeFolders(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    writeFileSync(join(deep, 'kept'), 'x');
    makeFolders(deep);
    makeFolders(join(dir, 'a'));
    expect(statSync(join(deep, 'kept')).isFile()).toBe(true);
  });

  it('refuses a path through a file, or a file where the folder goes', () => {
    writeFileSync(join(dir, 'file'), 'x');
    expect(() => makeFolders(join(dir, 'file', 'sub'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(() => makeFolders(join(dir, 'file'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  });

  it('takes a folder another process makes while it looks as made', () => {
    const target = join(dir, 'x.duckdb.spool');
    // The other process makes the folder just after makeFolders' first look finds none.
    const realStat = fs.statSync;
    const patched = fs as { statSync: unknown };
    let armed = true;
    patched.statSync = (path: string, ...rest: unknown[]): unknown => {
      try {
        return (realStat as (...a: unknown[]) => unknown)(path, ...rest);
      } catch (error) {
        if (armed && path === target) {
          armed = false;
          mkdirSync(target);
        }
        throw error;
      }
    };
    syncBuiltinESMExports();
    try {
      makeFolders(target);
    } finally {
      patched.statSync = realStat;
      syncBuiltinESMExports();
    }
    expect(armed).toBe(false);
    expect(statSync(target).isDirectory()).toBe(true);
  });

  it('reads .. and symbolic links as the system does, folder by folder (as mkdir -p)', () => {
    mkdirSync(join(dir, 'elsewhere', 'target'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere', 'target'), join(dir, 'link'));
    makeFolders(`${dir}/link/../beside`); // not join(), which would read the .. away
    expect(existsSync(join(dir, 'elsewhere', 'beside'))).toBe(true);
    expect(existsSync(join(dir, 'beside'))).toBe(false);
    makeFolders(`${dir}/new/../x`);
    expect(statSync(join(dir, 'new')).isDirectory()).toBe(true);
    expect(statSync(join(dir, 'x')).isDirectory()).toBe(true);
    // A symbolic link that leads nowhere is no folder: its own error (EEXIST), not a stat's.
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
    expect(() => makeFolders(join(dir, 'dangling', 'a'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  });

  it.runIf(process.platform === 'linux')('throws where a folder takes no new folder (/proc), where mkdirSync(recursive) spins for ever', () => {
    expect(() => makeFolders('/proc/docpipe-test/a')).toThrow(expect.objectContaining({ code: 'ENOENT', syscall: 'mkdir' }));
  });
});
