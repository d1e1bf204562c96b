import { legendGradient } from './color.js';

// One stylesheet for every HTML page (report and compare): light and dark themes, print rules.
const LIGHT = `--bg:#f6f7f9;--card:#ffffff;--ink:#111827;--muted:#5b6472;--line:#e3e6eb;--line2:#eef0f3;
--accent:#2563eb;--bar:#3b82f6;--bar2:#93c5fd;--warn:#b45309;--warnbg:#fef3c7;--err:#b91c1c;--errbg:#fee2e2;
--ok:#15803d;--over:#eceef2;--overink:#8a93a3;--code:#f1f3f6;--s1:#2563eb;--s2:#d97706;--s3:#059669;
--grad:linear-gradient(90deg, ${legendGradient('light')});--rgrad:linear-gradient(90deg, ${legendGradient('light', 'ratio')});`;
const DARK = `--bg:#0d1117;--card:#151b23;--ink:#e6edf3;--muted:#9aa5b4;--line:#2a323d;--line2:#1d242d;
--accent:#60a5fa;--bar:#60a5fa;--bar2:#1e3a5f;--warn:#fbbf24;--warnbg:#3a2a0a;--err:#f87171;--errbg:#3b1515;
--ok:#4ade80;--over:#1a2028;--overink:#6b7685;--code:#0f141a;--s1:#60a5fa;--s2:#fbbf24;--s3:#34d399;
--grad:linear-gradient(90deg, ${legendGradient('dark')});--rgrad:linear-gradient(90deg, ${legendGradient('dark', 'ratio')});`;
const DARK_CELLS = `.heatmap td[style]{background:var(--bg-d);color:var(--fg-d)}`;

export const CSS = `
:root{${LIGHT}color-scheme:light}
@media screen and (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK}color-scheme:dark}
:root:not([data-theme=light]) ${DARK_CELLS}}
@media screen{:root[data-theme=dark]{${DARK}color-scheme:dark}
:root[data-theme=dark] ${DARK_CELLS}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
font-feature-settings:"tnum" 1;-webkit-font-smoothing:antialiased}
main{max-width:1180px;margin:0 auto;padding:28px 24px 56px}
h1,h2,h3,h4{line-height:1.25;margin:0}
h1{font-size:13px;letter-spacing:.08em;text-transform:uppercase;color:var(--muted);font-weight:600}
.title{font-size:28px;font-weight:700;margin:6px 0 6px;letter-spacing:-.01em}
.subtitle{color:var(--muted);margin:0}
h2{font-size:19px;font-weight:650;margin-bottom:4px}
h3{font-size:15px;font-weight:650}
h4{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:14px 0 6px;font-weight:600}
.muted{color:var(--muted)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
header.top{display:flex;justify-content:space-between;align-items:flex-start;gap:16px;margin-bottom:18px}
.theme-toggle{border:1px solid var(--line);background:var(--card);color:var(--ink);border-radius:8px;padding:6px 12px;font:inherit;font-size:13px;cursor:pointer;white-space:nowrap}
.theme-toggle:hover{border-color:var(--accent)}
section.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:20px 22px;margin:16px 0;box-shadow:0 1px 2px rgb(0 0 0 / .04)}
.sec-head{display:flex;justify-content:space-between;align-items:baseline;gap:12px;flex-wrap:wrap;margin-bottom:12px}
.sec-head p{margin:0;color:var(--muted);font-size:13.5px}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px;margin:18px 0}
.kpi{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px 16px}
.kpi .k{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.kpi .v{font-size:24px;font-weight:700;margin-top:2px}
.kpi .v small{font-size:13px;font-weight:500;color:var(--muted)}
.kpi .d{font-size:13px;color:var(--muted)}
.kpi.warn .v{color:var(--warn)}
.answer .answer-slo{margin:0 0 4px;font-weight:600}
.answer .answer-one{margin:0 0 10px}
table.data.answer{white-space:normal;font-size:13.5px}
table.data.answer td,table.data.answer tbody th{vertical-align:top;text-align:left;padding:7px 8px;border-bottom:1px solid var(--line2)}
table.data.answer tbody th{color:var(--ink);font-size:13.5px}
#answer-table td:nth-child(3){text-align:right;white-space:nowrap}
#answer-table td:nth-child(2){white-space:nowrap}
table.data.answer thead th{text-align:left}
@media (max-width:640px){table.data.answer thead{display:none}
table.data.answer tr{display:block;padding:8px 0;border-bottom:1px solid var(--line2)}
table.data.answer td,table.data.answer tbody th{display:block;border:0;padding:1px 0;text-align:left;white-space:normal}
#answer-table td:nth-child(3){text-align:left}
table.data.answer td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-size:12px}}
.meta{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px;align-items:start}
.meta .card{margin:0}
dl.kv+dl.kv{margin-top:10px;padding-top:10px;border-top:1px dashed var(--line)}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:5px 16px;margin:0;font-size:14px}
dl.kv dt{color:var(--muted)}
dl.kv dd{margin:0;overflow-wrap:break-word;min-width:0}
/* A narrow metadata card (two side by side at 800 px) stacks each name over its value, so a value such as
   "vllm:cache_config_info kv_cache_size_tokens" gets the card's whole width instead of a sliver of it. */
.meta>.card{container-type:inline-size}
@container (max-width:460px){dl.kv{grid-template-columns:minmax(0,1fr);gap:0}dl.kv dt{font-size:12.5px;margin-top:6px}}
pre.cmd{background:var(--code);border:1px solid var(--line);border-radius:8px;padding:12px 14px;margin:0;white-space:pre-wrap;word-break:break-word;line-height:1.5}
svg.chart{width:100%;height:auto;display:block;font-size:12px}
svg.chart .grid{stroke:var(--line2);stroke-width:1}
svg.chart .axis{stroke:var(--line);stroke-width:1.2}
svg.chart .tick,svg.chart .sub{fill:var(--muted)}
svg.chart .sub{font-size:11px}
svg.chart .xl{fill:var(--ink);font-weight:600}
svg.chart .axl{fill:var(--muted);font-size:12px}
svg.chart .val{fill:var(--ink);font-weight:600}
svg.chart .val-out,svg.chart .fail{fill:var(--warn)}
svg.chart .fail{fill:var(--err);font-weight:600}
svg.chart .bar{fill:var(--bar)}
svg.chart .bar-only{fill:var(--bar);opacity:.45}
svg.chart .bar-out{fill:var(--warn)}
svg.chart .mark{fill:#fff;font-weight:800;font-size:13px}
svg.chart .pl{fill:var(--ink);font-size:11px;paint-order:stroke;stroke:var(--card);stroke-width:3px;stroke-linejoin:round}
svg.chart .pt circle{transition:r .1s}
svg.chart .pt:hover circle:not(.ring){r:6.5}
.series-legend{list-style:none;display:flex;flex-wrap:wrap;gap:6px 16px;padding:0;margin:8px 0 0;font-size:13px;color:var(--muted)}
.series-legend li{display:flex;align-items:center;gap:6px}
table.heatmap{border-collapse:separate;border-spacing:3px;width:100%;table-layout:fixed}
.heatmap th{font-size:12.5px;color:var(--muted);font-weight:600;padding:4px}
.heatmap thead th{text-align:center}
/* The context labels stay in view while a wide matrix scrolls sideways. */
.heatmap tbody th,.heatmap th.corner{position:sticky;left:0;z-index:2;background:var(--card)}
.heatmap tbody th{text-align:right;padding-right:10px;color:var(--ink);width:70px}
.heatmap th.corner{width:70px;text-align:left;font-weight:500;font-size:10.5px;line-height:1.2}
.heatmap th.corner span{display:block}
.heatmap td{height:70px;border-radius:7px;text-align:center;vertical-align:middle;position:relative;padding:14px 2px 4px;font-size:12px}
.heatmap td[style]{background:var(--bg-l);color:var(--fg-l)}
.hm-cell{cursor:pointer;outline:none;transition:transform .08s,box-shadow .08s}
.hm-cell:hover,.hm-cell:focus-visible{box-shadow:0 0 0 2px var(--accent);z-index:1}
.hm-cell.selected{box-shadow:0 0 0 3px var(--accent)}
.hm-v{display:block;font-size:15px;font-weight:700;letter-spacing:-.01em}
.hm-t{display:block;font-size:11.5px;opacity:.88}
.hm-g{display:block;font-size:10.5px;opacity:.7}
.hm-empty{color:var(--muted);font-size:11px;border:1px dashed var(--line)}
td.st-over{background:repeating-linear-gradient(135deg,var(--over) 0 6px,transparent 6px 12px);color:var(--overink);border:1px solid var(--line2)}
.hm-over{font-size:10.5px;line-height:1.2}
td.st-failed{background:var(--errbg);color:var(--err);border:1.5px solid var(--err)}
td.st-queued{box-shadow:inset 0 0 0 2.5px var(--warn)}
td.st-queued:hover,td.st-queued:focus-visible{box-shadow:inset 0 0 0 2.5px var(--warn),0 0 0 2px var(--accent)}
.hm-badge{position:absolute;left:4px;top:3px;font-size:9px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;background:var(--warn);color:#fff;border-radius:3px;padding:0 3px;line-height:13px}
.hm-flag{position:absolute;right:4px;top:3px;width:14px;height:14px;border-radius:50%;background:var(--warn);color:#fff;font-size:10px;font-weight:800;line-height:14px}
.hm-marks{position:absolute;left:4px;right:4px;top:3px;display:flex;gap:2px;pointer-events:none}
.hm-marks .hm-badge{position:static;min-width:0;overflow:hidden;white-space:nowrap}
.hm-marks .hm-flag{position:static;flex:none;margin-left:auto}
.hm-short{display:none}
/* A cell measures itself (a table cell cannot be a size container, so its content box is): in a narrow one (a
   phone, compare's side-by-side matrices) the figure shrinks to keep clear of the edges and the badge shortens
   to Q, so neither is clipped nor covered by the "!". */
.heatmap td.hm-box{padding:0}
/* The top band (18 px, 14 in the side-by-side matrices) is the marks': the figures start below it. */
.hm-in{container-type:inline-size;position:relative;min-height:70px;padding:18px 2px 4px;display:flex;flex-direction:column;justify-content:center}
.heatmap.static .hm-in{min-height:48px;padding:14px 1px 3px}
.heatmap.static .hm-marks{top:2px}
.heatmap.static .hm-flag{width:12px;height:12px;line-height:12px;font-size:9px}
.heatmap.static .hm-badge{line-height:12px;font-size:8.5px}
@container (max-width:76px){table.heatmap .hm-in .hm-v{font-size:13px}table.heatmap .hm-in .hm-t{font-size:10.5px}
.hm-long{display:none}.hm-short{display:inline}}
@container (max-width:58px){table.heatmap .hm-in .hm-v{font-size:11px}table.heatmap .hm-in .hm-t{font-size:9.5px}table.heatmap .hm-in .hm-g{font-size:9px}}
.legend{display:flex;flex-wrap:wrap;gap:10px 28px;align-items:center;margin:12px 0 4px;font-size:13px}
.lg-scale{display:flex;align-items:center;gap:8px;color:var(--muted)}
.lg-grad{display:inline-block;width:160px;height:10px;border-radius:5px;background:var(--grad)}
.lg-rgrad{display:inline-block;width:160px;height:10px;border-radius:5px;background:var(--rgrad)}
.lg-status{list-style:none;display:flex;flex-wrap:wrap;gap:6px 18px;margin:0;padding:0}
.lg-status li{display:flex;align-items:center;gap:6px}
.lg-chip{display:inline-block;width:18px;height:14px;border-radius:4px;background:var(--bar)}
.lg-chip.st-queued{background:var(--bar);box-shadow:inset 0 0 0 2.5px var(--warn)}
.lg-chip.st-over{background:repeating-linear-gradient(135deg,var(--overink) 0 3px,transparent 3px 6px);border:1px solid var(--line)}
.lg-chip.st-failed{background:var(--errbg);border:1.5px solid var(--err)}
.lg-chip.lg-flag{width:15px;height:15px;border-radius:50%;background:var(--warn);color:#fff;font-size:10px;font-weight:800;text-align:center;line-height:15px}
.notes{font-size:13px;color:var(--muted);margin:8px 0 0;padding-left:18px}
.notes li{margin:2px 0}
.detail-host{margin-top:14px}
.detail-hint{font-size:13px;color:var(--muted);margin:8px 0 0}
.cell-detail{border:1px solid var(--line);border-radius:10px;padding:14px 16px;background:var(--bg)}
.cell-detail header{display:flex;align-items:center;gap:10px}
.cell-detail header .close{margin-left:auto;border:0;background:transparent;color:var(--muted);font-size:20px;cursor:pointer;line-height:1}
.detail-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:8px 24px}
.detail-grid p{margin:0;font-size:13.5px}
.pill{font-size:11.5px;font-weight:600;border-radius:999px;padding:1px 9px;border:1px solid var(--line)}
.pill.st-valid{color:var(--ok)}
.pill.st-queued{color:var(--warn);background:var(--warnbg);border-color:transparent}
.pill.st-failed{color:var(--err);background:var(--errbg);border-color:transparent}
.pill.st-over{color:var(--overink)}
table.quant,table.errs{border-collapse:collapse;font-size:13px}
table.quant th,table.quant td,table.errs th,table.errs td{padding:3px 10px 3px 0;text-align:right;white-space:nowrap}
table.quant th[scope=row],table.errs th{text-align:left;font-weight:500;color:var(--muted)}
.err-msg{color:var(--err);margin:8px 0 0}
ul.flags{margin:8px 0 0;padding-left:18px;font-size:13.5px}
figure{margin:0}
figure.samples svg{width:100%;max-width:420px;height:auto;display:block}
figure.samples .frame{fill:var(--card);stroke:var(--line)}
figure.samples .s1{stroke:var(--s1)}figure.samples .s2{stroke:var(--s2)}figure.samples .s3{stroke:var(--s3)}
figure.samples figcaption{font-size:12px}
figure.samples ul{list-style:none;display:flex;flex-wrap:wrap;gap:2px 12px;padding:0;margin:4px 0}
figure.samples li{white-space:nowrap}
figure.samples i{display:inline-block;width:10px;height:3px;margin-right:4px;vertical-align:middle}
figure.samples i.s1{background:var(--s1)}figure.samples i.s2{background:var(--s2)}figure.samples i.s3{background:var(--s3)}
ol.anomalies{list-style:none;padding:0;margin:0;display:grid;gap:8px}
ol.anomalies li{border-left:3px solid var(--line);padding:8px 12px;border-radius:0 8px 8px 0;background:var(--bg);font-size:14px}
ol.anomalies li.sev-warn{border-color:var(--warn)}
ol.anomalies li.sev-error{border-color:var(--err);background:var(--errbg)}
ol.anomalies li .tag{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin-right:8px}
ol.anomalies a{color:inherit}
/* Edge shadows where a table continues beyond its card (the "local" covers hide them at either end). */
.tbl-wrap,.hm-wrap{overflow-x:auto;background:linear-gradient(to right,var(--card) 40%,transparent) left/28px 100% no-repeat local,
linear-gradient(to left,var(--card) 40%,transparent) right/28px 100% no-repeat local,
radial-gradient(farthest-side at 0 50%,rgb(0 0 0 / .22),transparent) left/12px 100% no-repeat scroll,
radial-gradient(farthest-side at 100% 50%,rgb(0 0 0 / .22),transparent) right/12px 100% no-repeat scroll}
.scroll-cue{margin:6px 0 0;font-size:12.5px;color:var(--muted);text-align:right}
.scroll-cue[hidden]{display:none}
.id{display:inline-block;max-width:100%;overflow-wrap:anywhere;text-indent:0}
table.data{border-collapse:collapse;width:100%;font-size:13px;white-space:nowrap}
table.data th{position:sticky;top:0;background:var(--card);text-align:right;font-weight:600;color:var(--muted);border-bottom:1px solid var(--line);padding:7px 6px;font-size:12px;white-space:normal;vertical-align:bottom;line-height:1.25}
table.data td{text-align:right;padding:5px 6px;border-bottom:1px solid var(--line2)}
table.data th:nth-child(-n+4),table.data td:nth-child(-n+4){text-align:left}
table.prefill-ratio th,table.prefill-ratio td{text-align:right!important}
table.prefill-ratio th:first-child,table.prefill-ratio td:first-child{text-align:left!important}
table.data tr.st-over td{color:var(--overink)}
table.data tr.st-queued td:nth-child(4){color:var(--warn);font-weight:600}
table.data tr.st-failed td:nth-child(4){color:var(--err);font-weight:600}
table.data tbody tr:hover td{background:var(--line2)}
table.data td.flag{color:var(--warn);font-weight:600}
table.verdict-list td.bad{color:var(--err);font-weight:600}
table.verdict-list td.good{color:var(--ok);font-weight:600}
details.all summary{cursor:pointer;font-weight:650;font-size:19px;list-style-position:outside}
footer{color:var(--muted);font-size:12.5px;text-align:center;margin-top:28px}
.ratio td[style]{font-weight:600}
table.heatmap.static{min-width:0;border-spacing:2px}
.heatmap.static td{height:48px;padding:12px 1px 3px}
.heatmap.static .hm-v{font-size:12.5px}
.heatmap.static .hm-t{font-size:10px}
.heatmap.static tbody th,.heatmap.static th.corner{width:48px;font-size:11px}
.heatmap.static th.corner span:last-child{display:none}
.side{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(520px,100%),1fr));gap:16px}
.side>div{min-width:0}
.side h3{margin-bottom:8px;overflow-wrap:anywhere}
table.diff{border-collapse:collapse;width:100%;font-size:13.5px}
table.diff th,table.diff td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line2);vertical-align:top;overflow-wrap:anywhere}
table.diff th{color:var(--muted);font-weight:600}
table.diff th[scope=row]{white-space:nowrap;width:1%}
table.diff td{width:auto}
/* Charts drawn twice, wide and narrow: an 880-unit chart squeezed into a phone would shrink its text to 4 px. */
.chart-n{display:none}
@media screen and (max-width:600px){.chart-w{display:none}.chart-n{display:block}}
@media (min-width:1000px){.meta{grid-template-columns:1fr 1fr 1.5fr}}
@media (max-width:700px){main{padding:16px 12px}.title{font-size:22px}}
/* A "stack" table on a phone: each row a short block, its first cell leading, the others "name value" side by
   side and wrapping, so no value column is left off-screen. */
@media (max-width:640px){table.stack{white-space:normal}table.stack thead{display:none}
table.stack tr{display:flex;flex-wrap:wrap;gap:0 14px;padding:6px 0;border-bottom:1px solid var(--line2)}
table.stack td{display:block;border:0;padding:1px 0;text-align:left!important}
table.stack td:first-child,table.stack td.lead{order:-1;flex-basis:100%;font-weight:600}
table.stack td[data-label]::before{content:attr(data-label) " ";color:var(--muted);font-size:12px;font-weight:400}
table.stack tbody tr:hover td{background:none}}
@media (max-width:600px){section.card{padding:14px 12px}
dl.kv{grid-template-columns:minmax(0,1fr);gap:0}dl.kv dt{font-size:12.5px;margin-top:6px}
.lg-status li{display:block}.lg-status .lg-chip{vertical-align:-2px;margin-right:4px}
table.diff thead{display:none}table.diff tr{display:block;border-bottom:1px solid var(--line2);padding:6px 0}
table.diff th[scope=row],table.diff td{display:block;border:0;padding:2px 0;width:auto;white-space:normal}
table.diff td[data-label]::before{content:attr(data-label) "  ";color:var(--muted);font-weight:600}
.heatmap tbody th,.heatmap th.corner{width:52px;padding-right:6px}.heatmap th.corner span:last-child{display:none}}
@media print{
.hm-v{font-size:12.5px}.hm-t{font-size:9px}.hm-g{font-size:8.5px}.heatmap td{height:60px;padding-top:15px}
.heatmap td.hm-box{padding:0}.hm-in{min-height:60px;padding-top:18px}
body{background:#fff;font-size:11.5px}
main{max-width:none;padding:0}
.theme-toggle,.detail-host,.detail-hint,.cell-detail{display:none!important}
section.card,.kpi{box-shadow:none;break-inside:avoid;border-color:#ccc}
section.card.allm{break-inside:auto}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
table.data th{position:static}
.hm-wrap,.tbl-wrap{overflow:visible}
table.heatmap{min-width:0!important}
}
`;
