import { BenchError, type ErrorCode } from './errors.js';

// File system failures in words, with the next step; the errno code itself tells a user nothing.
const REASONS: Record<string, [reason: string, hint: string]> = {
  ENOENT: ['no such file or folder', 'Check the path.'],
  EISDIR: ['it is a folder, not a file', 'Give the path of a file.'],
  ENOTDIR: ['a part of the path is a file, not a folder', 'Check the path.'],
  EACCES: ['permission denied', 'Choose a path you can use, or change its permissions.'],
  EPERM: ['permission denied', 'Choose a path you can use, or change its permissions.'],
  ENOSPC: ['the disk is full', 'Free some space and try again.'],
  EROFS: ['the file system is read-only', 'Choose a path on a writable disk.'],
  EMFILE: ['too many open files', 'Close other programs or raise the open-file limit (ulimit -n).'],
};

export function fsReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return (code && REASONS[code]?.[0]) ?? (e instanceof Error ? e.message : 'unknown error');
}

// `cannot write results/x.json: the disk is full.` with its hint (or the caller's).
export function fsError(code: ErrorCode, what: string, e: unknown, hint?: string): BenchError {
  const errno = (e as NodeJS.ErrnoException | undefined)?.code;
  const known = errno ? REASONS[errno] : undefined;
  const next = hint ?? known?.[1];
  return new BenchError(code, `${what}: ${fsReason(e)}.`, next ? { hint: next } : undefined);
}
