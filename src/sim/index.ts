// Public API of the simulated engine.
export { startSim, createSimContext } from './server.js';
export type { SimOptions, SimHandle } from './server.js';
export type { TruthRecord } from './truth.js';
export type { Flavor, Profile, ProfileInput } from './profile-schema.js';
export { FLAVORS, ProfileSchema } from './profile-schema.js';
export { loadProfile, listProfiles } from './profiles.js';
export { parseFaults, FAULT_NAMES } from './faults.js';
export { countTokens, countChatTokens } from './tokenizer.js';
export { simulateCell, simulatePrefill, overCapacity } from './what-if.js';
export type { CellPlan, CellFigures } from './what-if.js';
