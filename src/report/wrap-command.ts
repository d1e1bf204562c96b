// A launch command wrapped for a terminal: a flag stays on the line of its value, and a word longer than the
// line (a JSON config, a path) breaks after a comma, a slash or a colon rather than in the middle of a name.

function breakLong(word: string, room: number): string[] {
  const parts: string[] = [];
  let rest = word;
  while (rest.length > room) {
    const head = rest.slice(0, room);
    const cut = Math.max(head.lastIndexOf(','), head.lastIndexOf('/'), head.lastIndexOf(':'));
    const at = cut > room / 3 ? cut + 1 : room;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  if (rest) parts.push(rest);
  return parts;
}

export function wrapCommand(cmd: string, width: number, indent: string): string[] {
  const words = cmd.split(/\s+/).filter(Boolean);
  const units: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const next = words[i + 1];
    // "--port 8000" as one unit when it fits a line.
    if (
      w.startsWith('-') &&
      next !== undefined &&
      !next.startsWith('-') &&
      w.length + 1 + next.length <= width - indent.length
    ) {
      units.push(`${w} ${next}`);
      i++;
    } else units.push(w);
  }
  const lines: string[] = [];
  let line = '';
  for (const u of units) {
    const room = width - (lines.length || line ? indent.length : 0);
    const pieces = u.length > room ? breakLong(u, width - indent.length) : [u];
    for (const [j, p] of pieces.entries()) {
      const glue = j === 0 ? ' ' : '';
      const candidate = line ? `${line}${glue}${p}` : p;
      const limit = width - (lines.length ? indent.length : 0);
      if (candidate.length > limit && line) {
        lines.push(line);
        line = p;
      } else line = candidate;
    }
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i ? indent + l : l));
}
