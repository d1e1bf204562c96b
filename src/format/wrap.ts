// Word wrap for terminal text (reports, the fit report), one home for every folder that prints prose.

/** Word-wraps prose to the width, indenting continuation lines; a word longer than a whole line is cut. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  const room = () => Math.max(8, width - (lines.length ? indent.length : 0));
  for (let w of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + w.length <= room()) {
      line = `${line} ${w}`;
      continue;
    }
    if (line) lines.push(line);
    for (let r = room(); w.length > r; r = room()) {
      lines.push(w.slice(0, r));
      w = w.slice(r);
    }
    line = w;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i ? indent + l : l));
}
