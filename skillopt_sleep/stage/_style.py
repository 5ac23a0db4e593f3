"""The HTML report's stylesheet, inlined into the page (no external fonts or files).

System font stacks only, colours as custom properties so a dark palette can swap them (the
SVG charts are styled by the same classes), and one breakpoint for phones. Free text wraps
anywhere rather than widening the page: a 390px phone must never scroll sideways. Elements
holding user- or model-written text take their direction from it (``unicode-bidi: plaintext``),
so a Hebrew or Arabic request reads right to left without reordering the report's own words.
"""

from __future__ import annotations

CSS = """
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--accent:#0969da;
--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--add:#dafbe1;--del:#ffebe9;--hunk:#ddf4ff;
--train:#8c959f;--current:#0969da;--before:#8c959f;--after:#0969da;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;
--line:#3d444d;--card:#151b23;--accent:#4493f8;--good:#3fb950;--bad:#f85149;--warn:#d29922;
--add:#12261e;--del:#25171c;--hunk:#121d2f;--train:#9198a1;--current:#4493f8;--before:#9198a1;
--after:#4493f8}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1040px;margin:0 auto;padding:8px 24px 64px}
.toc{position:sticky;top:0;z-index:1;display:flex;gap:4px 14px;flex-wrap:wrap;justify-content:center;
padding:8px 12px;background:var(--card);border-bottom:1px solid var(--line);font-size:.85rem}
.toc a{color:var(--accent);text-decoration:none}
h1{font-size:1.6rem;margin:0 0 6px;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:36px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:18px 0 8px}
section{scroll-margin-top:48px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:.88em}
code{overflow-wrap:anywhere}
:not(pre)>code,q,b[title],.badge,td.path,figcaption span{unicode-bidi:plaintext}
pre:not(.diff){unicode-bidi:plaintext}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0 10px;padding:10px 12px;
background:var(--card);border:1px solid var(--line);border-radius:6px}
.kicker{margin:20px 0 2px;color:var(--muted);font-size:.85rem;text-transform:uppercase;
letter-spacing:.06em}
.meta{display:flex;flex-wrap:wrap;gap:4px 18px;color:var(--muted);margin:0;font-size:.9rem}
.muted{color:var(--muted)}
.good{color:var(--good)}.bad{color:var(--bad)}.warn{color:var(--warn)}.neutral{color:var(--muted)}
.decision{margin-top:20px;padding:4px 18px 16px;border:1px solid var(--line);
border-left:5px solid var(--accent);border-radius:8px;background:var(--card)}
.decision h2{border:0;margin:12px 0 4px}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:10px;margin:12px 0}
.stat{padding:8px 12px;border:1px solid var(--line);border-radius:8px;background:var(--bg)}
.stat span{display:block;font-size:.8rem;color:var(--muted)}
.stat b{display:block;font-size:1.2rem;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.stat.good b{color:var(--good)}.stat.bad b{color:var(--bad)}
.badge{display:inline-block;padding:0 8px;border:1px solid currentColor;border-radius:999px;
font-size:.78rem;font-weight:600;line-height:1.6;overflow-wrap:anywhere;max-width:100%}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;color:var(--muted);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.path{overflow-wrap:anywhere;min-width:9em}
tr.has-note td{border-bottom:0;padding-bottom:0}
tr.note td{padding-top:2px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,440px),1fr));gap:16px}
.chart-box{margin:0;padding:12px;border:1px solid var(--line);border-radius:8px;min-width:0}
.chart-box figcaption{font-weight:600;margin-bottom:6px;overflow-wrap:anywhere}
svg.chart{display:block;width:100%;height:auto}
svg.chart .plot{fill:none}
svg.chart .grid{stroke:var(--line);stroke-width:1}
svg.chart text{fill:var(--muted);font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;
font-size:12px}
svg.chart text.strong{fill:var(--fg);font-weight:700}
svg.chart text.empty{font-size:15px}
svg.chart .line{fill:none;stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round}
svg.chart .dot{stroke-width:2}
.s-train{stroke:var(--train);fill:var(--train)}
svg.chart .line.s-train{stroke-dasharray:6 4;fill:none}
.s-current{stroke:var(--current);fill:var(--current)}
.s-before{stroke:var(--before);fill:var(--before)}
svg.chart .line.s-before{stroke-dasharray:6 4;fill:none}
.s-after{stroke:var(--after);fill:var(--after)}
.s-cand.accepted{stroke:var(--good);fill:var(--good)}
.s-cand.rejected{stroke:var(--bad);fill:var(--bg)}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;margin:8px 0 0;padding:0;
font-size:.82rem;color:var(--muted)}
.legend li{display:flex;align-items:center;gap:6px}
.key{display:inline-block;width:18px;height:0;border-top:3px solid}
.key.s-train,.key.s-before{border-top-style:dashed}
.key.s-train{border-color:var(--train)}.key.s-current{border-color:var(--current)}
.key.s-before{border-color:var(--before)}.key.s-after{border-color:var(--after)}
.key.s-cand{width:11px;height:11px;border:2px solid;border-radius:50%}
.key.s-cand.accepted{border-color:var(--good);background:var(--good)}
.key.s-cand.rejected{border-color:var(--bad)}
details{margin-top:8px}
summary{cursor:pointer;color:var(--accent);font-size:.88rem}
.card{margin:0 0 12px;padding:10px 14px;border:1px solid var(--line);border-radius:8px}
.card h3{margin:4px 0 6px;overflow-wrap:anywhere}
.card ul{margin:2px 0 8px;padding-left:20px}
.card li{overflow-wrap:anywhere}
.facts{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;margin:4px 0 8px;
overflow-wrap:anywhere}
.label{margin:8px 0 2px;font-size:.78rem;font-weight:600;color:var(--muted);
text-transform:uppercase;letter-spacing:.05em}
.edit.accepted{border-left:4px solid var(--good)}
.edit.harmful{border-left:4px solid var(--bad)}
.edit.rejected{border-left:4px solid var(--line)}
.why{margin:6px 0 2px;overflow-wrap:anywhere}
pre.diff{padding:0;overflow-x:auto}
pre.diff code{display:block;padding:8px 0;font-size:.84rem}
pre.diff span{display:block;padding:0 12px;min-height:1.4em}
pre.diff .add{background:var(--add)}
pre.diff .del{background:var(--del)}
pre.diff .hunk{background:var(--hunk);color:var(--muted)}
pre.diff .file{font-weight:700}
@media (max-width:600px){body{font-size:14px}main{padding:4px 12px 48px}h1{font-size:1.3rem}
.stats{grid-template-columns:repeat(2,minmax(0,1fr))}
th,td{padding:5px 6px}.chart-box{padding:8px}svg.chart text{font-size:15px}
svg.chart text.empty{font-size:17px}}
"""
