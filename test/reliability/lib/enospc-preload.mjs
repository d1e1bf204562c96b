// Loaded with `node --import` into the CLI under test: writes into ENOSPC_DIR fail with ENOSPC once
// ENOSPC_AFTER_BYTES bytes were written there, like a disk that fills up mid-run (the write seam is node:fs).
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const dir = process.env.ENOSPC_DIR;
const limit = Number(process.env.ENOSPC_AFTER_BYTES ?? 'NaN');
if (dir && Number.isFinite(limit)) {
  let written = 0;
  const fdPaths = new Map();
  // ENOSPC_SKIP: paths containing it are not charged (requests.jsonl grows with timing-dependent chunk counts,
  // which would make the moment the disk fills differ between machines and Node versions).
  const skip = process.env.ENOSPC_SKIP;
  const inDir = (p) => typeof p === 'string' && p.startsWith(dir) && !(skip && p.includes(skip));
  const charge = (n) => {
    written += n;
    if (written > limit) {
      const e = new Error('ENOSPC: no space left on device, write');
      e.code = 'ENOSPC';
      e.errno = -28;
      throw e;
    }
  };
  const size = (data) => (typeof data === 'string' ? Buffer.byteLength(data) : (data?.byteLength ?? 0));
  const { openSync, writeSync, appendFileSync, writeFileSync, closeSync } = fs;
  fs.openSync = (p, ...rest) => {
    const fd = openSync(p, ...rest);
    if (inDir(p)) fdPaths.set(fd, p);
    return fd;
  };
  fs.closeSync = (fd) => {
    fdPaths.delete(fd);
    return closeSync(fd);
  };
  fs.writeSync = (fd, data, ...rest) => {
    if (fdPaths.has(fd)) charge(size(data));
    return writeSync(fd, data, ...rest);
  };
  fs.appendFileSync = (p, data, ...rest) => {
    if (inDir(p)) charge(size(data));
    return appendFileSync(p, data, ...rest);
  };
  fs.writeFileSync = (p, data, ...rest) => {
    if (inDir(p)) charge(size(data));
    return writeFileSync(p, data, ...rest);
  };
  syncBuiltinESMExports();
}
