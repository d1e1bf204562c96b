/// <reference lib="dom" />
import type { Page } from 'playwright-core';

// What a reader sees broken at a width, measured in the page (docs/report.md "Formats"). Each problem is one line naming
// the element; an empty list is a clean page.
//  - a badge clipped by its cell or covered by the "!" beside it; a badge or "!" over a figure of its cell; a
//    heatmap figure touching its cell's edges;
//  - chart point labels that overlap each other, a point or a line;
//  - a table wider than its card with no sign of it (a scroll box and a visible "scroll sideways" line), or
//    sticking out of its card; the page itself scrolling sideways;
//  - an identifier (a flag, a metric name, a run id) broken across lines although a line could hold it.
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const visible = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    const name = (e: Element) => {
      const id = e.closest('[id]')?.id ?? '';
      return `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}${id ? ` in #${id}` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    };
    type Box = { left: number; right: number; top: number; bottom: number };
    const textBox = (e: Element) => {
      const range = document.createRange();
      range.selectNodeContents(e);
      return range.getBoundingClientRect();
    };
    const meets = (a: Box, b: Box, gap = 0) =>
      a.left < b.right - gap && b.left < a.right - gap && a.top < b.bottom - gap && b.top < a.bottom - gap;

    const vw = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > vw + 1)
      out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${vw}`);

    // Heatmap cells: the badge whole and clear of the "!", the figure clear of the cell's edges.
    for (const cell of document.querySelectorAll('td.hm-cell')) {
      if (!visible(cell)) continue;
      const c = cell.getBoundingClientRect();
      const badge = cell.querySelector('.hm-badge');
      const flag = cell.querySelector('.hm-flag');
      if (badge && visible(badge)) {
        const b = badge.getBoundingClientRect();
        if (badge.scrollWidth > badge.clientWidth + 0.5) out.push(`clipped badge: ${name(badge)}`);
        if (b.left < c.left - 0.5 || b.right > c.right + 0.5)
          out.push(`badge outside its cell: ${name(badge)}`);
        if (flag && meets(b, flag.getBoundingClientRect())) out.push(`"!" covers the badge: ${name(badge)}`);
      }
      const v = cell.querySelector('.hm-v');
      if (v && visible(v)) {
        const t = textBox(v);
        if (t.left < c.left + 2 || t.right > c.right - 2)
          out.push(`figure touches its cell's edge: ${name(v)}`);
      }
      // The glyphs' boxes, not the line boxes: a mark in the leading above a figure covers nothing.
      const marks = [badge, flag].filter((m): m is Element => !!m && visible(m));
      for (const fig of cell.querySelectorAll('.hm-v, .hm-t, .hm-g')) {
        if (!visible(fig)) continue;
        const t = textBox(fig);
        for (const m of marks)
          if (meets(m.getBoundingClientRect(), t))
            out.push(
              `${m.classList.contains('hm-flag') ? '"!"' : 'badge'} covers a figure: ${name(fig)} in ${name(cell)}`,
            );
      }
    }

    // Chart text inside its drawing; point labels apart from each other and from every point of their chart.
    for (const svg of document.querySelectorAll('svg.chart')) {
      if (!visible(svg)) continue;
      const frame = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll('text')) {
        const b = t.getBoundingClientRect();
        if (
          b.width > 0 &&
          (b.left < frame.left - 1 ||
            b.right > frame.right + 1 ||
            b.top < frame.top - 1 ||
            b.bottom > frame.bottom + 1)
        )
          out.push(`chart text cut by its frame: "${t.textContent}" in ${name(svg)}`);
      }
      const labels = [...svg.querySelectorAll('text.pl')].filter(visible);
      const boxes = labels.map((l) => l.getBoundingClientRect());
      const dots = [...svg.querySelectorAll('circle')].map((d) => d.getBoundingClientRect());
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++)
          if (meets(boxes[i]!, boxes[j]!, 0.5))
            out.push(`chart labels overlap: "${labels[i]!.textContent}" and "${labels[j]!.textContent}"`);
        if (dots.some((d) => meets(boxes[i]!, d, 0.5)))
          out.push(`chart label on a point: "${labels[i]!.textContent}" in ${name(svg)}`);
      }
      // The series' lines, sampled every unit of their length, in page coordinates.
      const lines = [...svg.querySelectorAll<SVGPathElement>('g.series path')].flatMap((path) => {
        const ctm = path.getScreenCTM();
        if (!ctm) return [];
        const len = path.getTotalLength();
        return Array.from({ length: Math.ceil(len) + 1 }, (_, k) =>
          path.getPointAtLength(Math.min(k, len)).matrixTransform(ctm),
        );
      });
      labels.forEach((l, i) => {
        const b = boxes[i]!;
        if (
          lines.some(
            (p) => p.x > b.left + 0.5 && p.x < b.right - 0.5 && p.y > b.top + 0.5 && p.y < b.bottom - 0.5,
          )
        )
          out.push(`chart label on a line: "${l.textContent}" in ${name(svg)}`);
      });
    }

    // Tables: within their card, or scrolling inside it with a visible cue.
    for (const table of document.querySelectorAll('table')) {
      if (!visible(table)) continue;
      const card = table.closest('section.card') ?? document.querySelector('main')!;
      const cs = getComputedStyle(card);
      const inner = card.getBoundingClientRect();
      const right = inner.right - parseFloat(cs.paddingRight) - parseFloat(cs.borderRightWidth);
      const wrap = table.closest('.tbl-wrap, .hm-wrap');
      const shown = (wrap ?? table).getBoundingClientRect();
      if (shown.right > right + 1)
        out.push(`table sticks out of its card by ${Math.round(shown.right - right)} px: ${name(table)}`);
      if (wrap && wrap.scrollWidth > wrap.clientWidth + 1) {
        const cue = wrap.nextElementSibling;
        if (!cue?.classList.contains('scroll-cue') || !visible(cue))
          out.push(
            `table wider than its card (${wrap.scrollWidth} px in ${wrap.clientWidth}) with no cue: ${name(table)}`,
          );
      }
    }

    // Identifiers in any text (flags, names with ':' or '_', paths, ids with digits): on one line when their
    // line could hold them whole. The same rule as src/report/html/escape.ts, written again here.
    const ident = /[([]?(?:--[A-Za-z][\w-]*|[A-Za-z0-9][\w.]*(?:[-:/_][\w.]+)+)/g;
    const isIdent = (t: string) =>
      t.includes('--') ||
      /[:_]/.test(t) ||
      (t.includes('/') && t.length >= 8) ||
      (t.includes('-') && /\d/.test(t));
    const walker = document.createTreeWalker(
      document.querySelector('main') ?? document.body,
      NodeFilter.SHOW_TEXT,
    );
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('pre, svg, script, style, code') || !visible(el)) continue;
      for (const m of (n.textContent ?? '').matchAll(ident)) {
        if (!isIdent(m[0])) continue;
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const tops = new Set(rects.map((r) => Math.round(r.top)));
        const width = rects.reduce((t, r) => t + r.width, 0); // the token laid out on one line
        const box = el.closest('td, th, dd, li, p, div') ?? el;
        const pad = getComputedStyle(box);
        const room = box.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight);
        if (tops.size > 1 && width < room - 4)
          out.push(`identifier broken across lines: "${m[0]}" in ${name(el)}`);
      }
    }
    return out;
  });
}
