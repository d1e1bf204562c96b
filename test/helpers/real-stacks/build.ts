// The compiled fixtures (cpp-httplib in C++, Go's net/http), built once per content hash of their source and
// compiler and cached: later test runs and parallel test files reuse the binary. Offline: Go builds a
// standard-library-only main.go with no module download (GOPROXY=off, GO111MODULE=off).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const CACHE = process.env.REAL_STACKS_CACHE ?? join(tmpdir(), 'llmib-real-stacks');

function cached(name: string, source: string, toolVersion: string, build: (out: string) => void): string {
  const hash = createHash('sha256')
    .update(readFileSync(source))
    .update(toolVersion)
    .digest('hex')
    .slice(0, 16);
  const bin = join(CACHE, `${name}-${hash}`);
  if (existsSync(bin)) return bin;
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  try {
    build(tmp);
    renameSync(tmp, bin); // atomic: a parallel build of the same hash wins or loses whole
  } finally {
    rmSync(tmp, { force: true });
  }
  return bin;
}

/** The cpp-httplib SSE server, linked against Debian's libcpp-httplib (0.11.4). */
export function cppHttplibBinary(): string {
  const src = join(FIXTURES, 'sse_server.cc');
  const version =
    execFileSync('g++', ['--version'], { encoding: 'utf8' }) + readFileSync('/usr/include/httplib.h');
  return cached('sse-cpp-httplib', src, version, (out) =>
    execFileSync('g++', ['-O1', '-std=c++17', '-o', out, src, '-lcpp-httplib', '-lpthread'], {
      stdio: 'pipe',
    }),
  );
}

/** The Go net/http SSE server. */
export function goBinary(): string {
  const src = join(FIXTURES, 'sse_server.go');
  const env = {
    ...process.env,
    GOCACHE: join(CACHE, 'gocache'),
    GOPATH: join(CACHE, 'gopath'),
    GOPROXY: 'off',
    GOFLAGS: '',
    GO111MODULE: 'off',
  };
  const version = execFileSync('go', ['version'], { encoding: 'utf8', env });
  return cached('sse-go', src, version, (out) =>
    execFileSync('go', ['build', '-o', out, src], { stdio: 'pipe', env, cwd: FIXTURES }),
  );
}
