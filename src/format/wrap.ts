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

/**
 * A printed text fitted to a terminal's width line by line: a prose line longer than the width wraps at its words
 * (continuation lines indented two spaces); indented lines (commands to paste) and table rows (columns two spaces
 * apart or more) stay whole, to be copied and read as printed.
 */
export function wrapProse(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((l) => (l.length <= width || /^\s/.test(l) || /\S {2,}\S/.test(l) ? [l] : wrap(l, width, '  ')))
    .join('\n');
}
