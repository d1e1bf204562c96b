// Every string that comes from a result passes through here before it reaches HTML or SVG.
const MAP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(text: string | number | null | undefined): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => MAP[c]!);
}

/** Safe id fragment: digits, letters and dashes only. */
export function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9-]+/g, '-');
}
