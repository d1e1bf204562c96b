// Sequential colour scales for the heatmaps: one per theme so low values sit near the page background.
type Rgb = [number, number, number];

const hex = (h: string): Rgb => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
const toHex = (c: Rgb) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

function ramp(stops: string[], t: number): Rgb {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const a = hex(stops[i]!);
  const b = hex(stops[i + 1]!);
  const f = x - i;
  return [0, 1, 2].map((k) => a[k]! + (b[k]! - a[k]!) * f) as Rgb;
}

// ColorBrewer Blues for light; a navy→cyan ramp for dark (bright = more).
const LIGHT = ['#eaf2fb', '#c6dbef', '#9ecae1', '#6baed6', '#3d8cc4', '#1f66a8', '#0b3f7a'];
const DARK = ['#16263a', '#1b3a5c', '#1f5284', '#2a6fae', '#3f93d1', '#6cb8ea', '#a8dcff'];
// Diverging for ratios (compare): red below 1, neutral at 1, green above.
const DIV_LIGHT = ['#c23b3b', '#e8a0a0', '#f4f4f4', '#9fd3a8', '#2e8b47'];
const DIV_DARK = ['#b24545', '#6a3434', '#2a2f36', '#2f5e3c', '#4fbf6b'];

const luminance = (c: Rgb) => {
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ink = (c: Rgb) => (luminance(c) > 0.32 ? '#0d1b2a' : '#ffffff');

export interface CellColors {
  bgLight: string;
  fgLight: string;
  bgDark: string;
  fgDark: string;
}

function pair(stopsL: string[], stopsD: string[], t: number): CellColors {
  const l = ramp(stopsL, t);
  const d = ramp(stopsD, t);
  return { bgLight: toHex(l), fgLight: ink(l), bgDark: toHex(d), fgDark: ink(d) };
}

/** Log scale between min and max (throughput spans orders of magnitude across a matrix). */
export function seqColor(v: number, min: number, max: number): CellColors {
  const t = max > min ? Math.log(v / min) / Math.log(max / min) : 1;
  return pair(LIGHT, DARK, t);
}

/** Ratio colour: log2 scale clamped to [1/4, 4]. */
export function ratioColor(ratio: number): CellColors {
  const t = 0.5 + Math.max(-1, Math.min(1, Math.log2(ratio) / 2)) / 2;
  return pair(DIV_LIGHT, DIV_DARK, t);
}

export function cssVars(c: CellColors): string {
  return `--bg-l:${c.bgLight};--fg-l:${c.fgLight};--bg-d:${c.bgDark};--fg-d:${c.fgDark}`;
}

/** Legend gradient stops for CSS linear-gradient(). */
export function legendGradient(theme: 'light' | 'dark', kind: 'seq' | 'ratio' = 'seq'): string {
  const stops =
    kind === 'seq' ? (theme === 'light' ? LIGHT : DARK) : theme === 'light' ? DIV_LIGHT : DIV_DARK;
  return stops.join(', ');
}

/** Categorical series colours that read on both backgrounds. */
export const SERIES = [
  '#3b82f6',
  '#f59e0b',
  '#10b981',
  '#ef4444',
  '#8b5cf6',
  '#06b6d4',
  '#ec4899',
  '#84cc16',
  '#f97316',
  '#64748b',
];
