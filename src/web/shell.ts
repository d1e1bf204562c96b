import { esc } from '../report/html/escape.js';
import { htmlPage, type PageOptions } from '../report/html/page.js';

// The results browser's pages share the report's stylesheet and shell; they differ in a CSP that lets forms
// submit to the app itself and in a bar of links back. Nothing is fetched from anywhere but the app.
export const APP_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'";
// The header adds frame-ancestors, which a browser ignores (and logs an error for) in a <meta> CSP.
export const APP_CSP_HEADER = `${APP_CSP}; frame-ancestors 'none'`;

export const WEB_CSS = `
nav.app-nav{display:flex;flex-wrap:wrap;gap:4px 18px;font-size:13.5px;margin:-8px 0 14px}
nav.app-nav a{color:var(--accent);text-decoration:none}
nav.app-nav a:hover{text-decoration:underline}
form.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:10px 12px;align-items:end}
form.filters label{display:flex;flex-direction:column;gap:3px;font-size:12px;color:var(--muted);min-width:0}
form.filters input,form.filters select,.pick select,.btn{font:inherit;font-size:14px;color:var(--ink);background:var(--card);border:1px solid var(--line);border-radius:7px;padding:6px 8px;min-width:0;width:100%}
.btn{cursor:pointer;width:auto;background:var(--accent);color:#fff;border-color:var(--accent);font-weight:600}
.btn[disabled]{opacity:.5;cursor:default}
.actions{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;margin:10px 0}
.actions a{color:var(--accent)}
.count{color:var(--muted);font-size:13.5px}
table.runs{border-collapse:collapse;width:100%;font-size:13.5px}
table.runs th{text-align:left;font-size:12px;color:var(--muted);font-weight:600;border-bottom:1px solid var(--line);padding:6px 8px}
table.runs td{padding:7px 8px;border-bottom:1px solid var(--line2);vertical-align:top;overflow-wrap:anywhere}
table.runs td.status{white-space:nowrap}
svg.chart .iv{stroke:var(--muted);stroke-width:1.5;fill:none}
table.runs td.num{text-align:right;white-space:nowrap}
table.runs td.answer .ans{display:block;white-space:nowrap}
table.runs a{color:var(--accent);font-weight:600;text-decoration:none}
table.runs .sub{display:block;color:var(--muted);font-size:12px;font-weight:400}
table.runs tr.st-failed td.status,table.runs tr.st-interrupted td.status{color:var(--warn);font-weight:600}
.pick{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:10px 12px;align-items:end}
.pick label{display:flex;flex-direction:column;gap:3px;font-size:12px;color:var(--muted)}
ul.problems{font-size:13px;color:var(--muted);padding-left:18px;overflow-wrap:anywhere}
.pager{display:flex;gap:14px;margin-top:12px;font-size:13.5px}
.pager a{color:var(--accent)}
table.data.history td:nth-child(2){text-align:left}
@media (max-width:640px){
table.runs thead{display:none}
table.runs tr{display:grid;grid-template-columns:28px 1fr auto;gap:0 8px;padding:8px 0;border-bottom:1px solid var(--line2)}
table.runs td{border:0;padding:1px 0}
table.runs td.pick-cell{grid-row:span 5}
table.runs td.run-cell{grid-column:2 / 4}
table.runs td.status{white-space:nowrap}
svg.chart .iv{stroke:var(--muted);stroke-width:1.5;fill:none}
table.runs td.num{text-align:left}
table.runs td[data-label]::before{content:attr(data-label) " ";color:var(--muted);font-size:12px}
}
`;

export function nav(links: Array<[href: string, label: string]> = []): string {
  return `<nav class="app-nav"><a href="/">All runs</a>${links
    .map(([h, l]) => `<a href="${esc(h)}">${esc(l)}</a>`)
    .join('')}</nav>`;
}

export const appPageOptions = (links: Array<[string, string]> = []): PageOptions => ({
  csp: APP_CSP,
  nav: nav(links),
  css: WEB_CSS,
});

export function appPage(title: string, body: string, links: Array<[string, string]> = []): string {
  return htmlPage(title, body, appPageOptions(links));
}

/** A URL of the app with its query; values are encoded, so any model or folder name is safe in it. */
export function href(path: string, params: URLSearchParams | Array<[string, string]>): string {
  const q = (params instanceof URLSearchParams ? params : new URLSearchParams(params)).toString();
  return q ? `${path}?${q}` : path;
}
