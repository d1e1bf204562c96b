// Colour and width decisions for terminal output: NO_COLOR and FORCE_COLOR (https://no-color.org,
// https://force-color.org) win over TTY detection.
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '')
    return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return !!stream.isTTY && env.TERM !== 'dumb';
}

export function terminalWidth(stream: { isTTY?: boolean; columns?: number }): number {
  return stream.isTTY && stream.columns ? Math.min(160, stream.columns) : 80;
}
