import { isBenchError } from '../../src/errors.js';
import type { ParamSet } from '../../src/sweep/params.js';

// "CODE: message" of the BenchError a call throws, or 'no error'.
export function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isBenchError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

// A configuration as the params file gives it, named as expandParams names an unnamed one.
export const paramSet = (params: ParamSet['params'], env: ParamSet['env'] = {}, name?: string): ParamSet => ({
  name:
    name ??
    Object.entries(params)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' '),
  params,
  env,
});
