/** Small questions about the file system that several layers ask. */
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Whether this process may write `path` (a file, or a folder to make files in). */
export function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `mkdir -p`: makes `path` and the folders above it that are missing. Node's own
 * (`mkdirSync(path, { recursive: true })`) spins for ever where a folder exists but making one
 * in it answers ENOENT (`/proc`); this one throws that error.
 */
export function makeFolders(path: string): void {
  // A file where the folder goes: as mkdir -p says it.
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), { code: 'EEXIST', syscall: 'mkdir', path });
  }
  const missing: string[] = [];
  for (let at = resolve(path); !existsSync(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process is made; a file there is not a folder.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(folder).isDirectory()) throw error;
    }
  }
}
