import { BenchError } from './errors.js';
import { suggest } from './suggest.js';

// A JavaScript caller's options are checked by name: a key the function does not read would be ignored in
// silence (buildRequestBody's old `maxTokens` sent no output cap at all, so the server's default of 16 tokens).
// A renamed key says its new name; CHANGELOG.md lists every rename (docs/api.md "Options are checked").

/** Every key of T, once: the compiler fails when a field of T is missing here or one is not T's. */
export type KeyList<T> = { readonly [K in keyof Required<T>]: true };

export const keysOf = <T>(list: KeyList<T>): readonly string[] => Object.keys(list);

/** Throws USAGE naming each key of `given` that `fn` does not take, with its new name where it was renamed. */
export function checkOptions(
  fn: string,
  given: unknown,
  known: readonly string[],
  renamed: Readonly<Record<string, string>> = {},
): void {
  if (given === undefined) return;
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    throw new BenchError('USAGE', `${fn}: its options must be an object, not ${describe(given)}.`);
  const unknown = Object.keys(given).filter((k) => !known.includes(k));
  if (unknown.length === 0) return;
  const said = unknown.map((k) => {
    if (renamed[k]) return `${k} (renamed: it is now ${renamed[k]})`;
    const s = suggest(k, known);
    return s ? `${k} (did you mean ${s}?)` : k;
  });
  throw new BenchError('USAGE', `${fn}: unknown option${unknown.length > 1 ? 's' : ''} ${said.join(', ')}.`, {
    hint: `${fn} takes ${known.join(', ')}; CHANGELOG.md names every renamed option.`,
  });
}

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
