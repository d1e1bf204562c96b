// Over capacity (METHOD.md): N * (C + maxOutput) > KV capacity. Unknown capacity: run it, let the server decide.
export function isOverCapacity(
  contextTokens: number,
  concurrency: number,
  maxOutput: number,
  kvCapacityTokens: number | undefined,
): boolean {
  if (kvCapacityTokens === undefined) return false;
  return concurrency * (contextTokens + maxOutput) > kvCapacityTokens;
}

// Room a decode request needs inside maxModelLen: prompt + output cap (the server rejects more).
export function fitsModelLen(
  contextTokens: number,
  maxOutput: number,
  maxModelLen: number | undefined,
): boolean {
  return maxModelLen === undefined || contextTokens + maxOutput <= maxModelLen;
}
