import { describe, expectTypeOf, it } from 'vitest';
import type { DecodeCellSpec } from '../../src/bench/decode-cell.js';
import type { SendSpec, SenderConfig } from '../../src/bench/drive/sender.js';
import type { CliOnlyKey, RunInput, RunSettings } from '../../src/bench/settings.js';
import type { InitMessage } from '../../src/bench/drive/workers/protocol.js';
import type { DefaultedKey, OPTION_TABLE, OptionKey, Options } from '../../src/config/options.js';
import type { RunConfig, RunResult } from '../../src/results/schema.js';

// One declaration per run option (docs/architecture.md "Adding a run option"): the option table. These checks are
// types, so `npm run typecheck` fails on them before the tests run; an option added to the table that the result
// cannot store, or a spec that declares an option's type again, fails here.
type Table = typeof OPTION_TABLE;
type Run = Options<'run'>;
type RunKey = keyof Run;

// The type at a dotted path of the result ('target.kvCapacityTokens'); never when the path is not there. A union
// (config.load's models) is read member by member: the path's type in those that have it.
type At<T, P extends string> = T extends unknown
  ? P extends `${infer H}.${infer R}`
    ? H extends keyof T
      ? At<NonNullable<T[H]>, R>
      : never
    : P extends keyof T
      ? T[P]
      : never
  : never;
type StoredAs<K extends OptionKey> = Table[K] extends { result: 'config' }
  ? RunConfig[K & keyof RunConfig]
  : Table[K] extends { result: 'sampling' }
    ? RunConfig['sampling'][string]
    : Table[K] extends { result: infer P extends string }
      ? At<RunResult, P>
      : never;
type Stored = { [K in RunKey]: Table[K] extends { result: string } ? K : never }[RunKey];
// A run option whose value the result cannot hold where the table says it lands.
type Unfit = { [K in Stored]: [NonNullable<Run[K]>] extends [StoredAs<K>] ? never : K }[Stored];

describe('run options are declared once (the option table)', () => {
  it('reach the runner under their own names and types, all but what the CLI alone reads', () => {
    expectTypeOf<Exclude<RunKey, keyof RunSettings>>().toEqualTypeOf<CliOnlyKey>();
    expectTypeOf<Pick<RunSettings, Exclude<RunKey, CliOnlyKey>>>().toEqualTypeOf<Omit<Run, CliOnlyKey>>();
    // A program may leave out exactly what the table has a default for.
    expectTypeOf<RunSettings>().toExtend<RunInput>();
    expectTypeOf<Pick<RunInput, 'baseUrl'>>().toEqualTypeOf<Pick<RunSettings, 'baseUrl'>>();
    expectTypeOf<RunInput['maxOutput']>().toEqualTypeOf<RunSettings['maxOutput'] | undefined>();
    expectTypeOf<DefaultedKey<'run'>>().toExtend<RunKey>();
  });

  it('carry the table type through the cell, the slots, the worker message and the request', () => {
    expectTypeOf<DecodeCellSpec['maxOutput']>().toEqualTypeOf<Run['maxOutput']>();
    expectTypeOf<DecodeCellSpec['duration']>().toEqualTypeOf<Run['duration']>();
    expectTypeOf<DecodeCellSpec['rampTimeout']>().toEqualTypeOf<Run['rampTimeout']>();
    expectTypeOf<DecodeCellSpec['workers']>().toEqualTypeOf<Run['workers']>();
    expectTypeOf<InitMessage['spec']['level']['maxOutput']>().toEqualTypeOf<Run['maxOutput']>();
    expectTypeOf<SendSpec['maxOutput']>().toEqualTypeOf<Run['maxOutput']>();
    expectTypeOf<SenderConfig['api']>().toEqualTypeOf<Run['api']>();
    expectTypeOf<SenderConfig['ignoreEos']>().toEqualTypeOf<Run['ignoreEos']>();
    expectTypeOf<NonNullable<SenderConfig['httpClient']>>().toEqualTypeOf<Run['httpClient']>();
  });

  it('land in the result where the table says, with a type it holds, or are named here as not stored', () => {
    expectTypeOf<Unfit>().toEqualTypeOf<never>();
    // Secrets, the output folder and per-invocation switches; a new run option is stored (for --resume and
    // the report) or joins this list on purpose. The agents' addresses, token and patience are the deployment's,
    // not the measurement's (the count of agents is stored).
    expectTypeOf<Exclude<RunKey, Stored>>().toEqualTypeOf<
      | 'apiKey'
      | 'apiKeyFile'
      | 'config'
      | 'out'
      | 'quiet'
      | 'resume'
      | 'agentIndex'
      | 'coordinator'
      | 'local'
      | 'agentTimeout'
      | 'agentWait'
      | 'agentTokenFile'
    >();
  });
});
