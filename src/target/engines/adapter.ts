import type { EngineFacts } from '../../engines/index.js';
import type { EngineAdapter } from '../types.js';

type Io = Pick<EngineAdapter, 'fingerprint' | 'discover' | 'preferredModel' | 'readSample'>;

// An adapter is the engine's facts (src/engines) and the I/O that reads a server: its fields come from the facts.
export function adapterOf(facts: EngineFacts, io: Io): EngineAdapter {
  return {
    facts,
    name: facts.name,
    ...(facts.repository ? { repository: facts.repository } : {}),
    ...(facts.reasoningField ? { reasoningField: facts.reasoningField } : {}),
    cachedTokensSource: facts.prefixCache.words,
    extensions: facts.extensions,
    metricNames: facts.metricNames,
    ownedBy: facts.ownedBy,
    fingerprintPaths: facts.fingerprintPaths,
    outputCapFields: (api) => facts.outputCapFields(api),
    ...io,
  };
}
