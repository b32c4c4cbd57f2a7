"""The one style sheet of every HTML page the kit writes: the conformance matrix
(``eventproof run --html``, ``eventproof report``) and the audit's page (``eventproof audit
--html``). An outcome is shown the same way everywhere: a pill of its colour with white text.
A light module: the pages import it without the rest of the renderers."""

from __future__ import annotations

import re

__all__ = ["OUTCOME_COLOURS", "STATUS_COLOURS", "STYLE", "slug"]

#: The colour of each outcome's pill and bar. Every outcome of :data:`OUTCOMES` has one (the
#: page's CSS is made from this table; tests/unit/test_matrix.py walks OUTCOMES against it).
OUTCOME_COLOURS: dict[str, str] = {
    "pass": "#1a7f37", "fail": "#cf222e", "error": "#bc4c00", "crash": "#82071e",
    "timeout": "#8250df", "untested": "#0a3069", "skip": "#6e7781", "xfail": "#9a6700",
    "xpass": "#bf3989", "unstable": "#953800"}
#: The colour of each verdict headline and profile status.
STATUS_COLOURS: dict[str, str] = {
    "conforms": "#1a7f37", "does not conform": "#cf222e", "interrupted": "#8250df",
    "terminated": "#8250df", "could not be checked": "#57606a", "partly declared": "#9a6700",
    "not declared": "#6e7781", "not checked": "#8c959f", "checked only": "#9a6700",
    "checked only part": "#9a6700", "stale expectations": "#bf3989"}


def slug(text: str) -> str:
    """A verdict headline or status as the tail of a class name (``does-not-conform``)."""
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")


def _colour_css() -> str:
    """The style of every outcome (pills and bars) and of every verdict headline and profile
    status, made from the colour tables."""
    outcomes = "".join(f".o-{outcome}{{background:{colour}}}"
                       for outcome, colour in OUTCOME_COLOURS.items())
    statuses = "".join(f".s-{slug(status)}{{border-color:{colour};color:{colour}}}"
                       for status, colour in STATUS_COLOURS.items())
    return outcomes + "\n" + statuses + "\n"


STYLE = _colour_css() + """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--card:#fff;--accent:#0969da;
--pass:#1a7f37;--fail:#cf222e;--none:#afb8c1}
*{box-sizing:border-box}
.disagrees{color:var(--fail);font-weight:600}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,
sans-serif;color:var(--fg);background:var(--bg)}
code,pre,.cmd{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",
monospace;font-size:12.5px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
.top{background:#24292f;color:#fff;padding:18px 28px}
.top h1{margin:0;font-size:20px;font-weight:600}.top p{margin:4px 0 0;color:#c9d1d9;font-size:13px}
main{padding:20px 28px 40px;max-width:1500px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:14px;
margin-bottom:18px}
.card{background:var(--card);border:1px solid var(--line);border-top:4px solid var(--pass);
border-radius:8px;padding:12px 14px}
.card.bad{border-top-color:var(--fail)}
.card h3{margin:0;font-size:16px}.card .ver{color:var(--muted);font-weight:400}
.verdict{margin:4px 0 8px;font-weight:600}.card.ok .verdict{color:var(--pass)}
.card.bad .verdict{color:var(--fail)}
.bar{display:flex;height:8px;border-radius:4px;overflow:hidden;background:var(--line)}
.bar span{display:block;min-width:3px}
.counts{margin:8px 0 4px;display:flex;flex-wrap:wrap;gap:8px}
.meta{margin:2px 0;color:var(--muted);font-size:12.5px}
.toolbar{display:flex;flex-wrap:wrap;align-items:center;gap:8px 14px;background:var(--card);
border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin-bottom:12px}
.toolbar .lbl{font-weight:600;color:var(--muted)}
.filter{display:inline-flex;align-items:center;gap:5px;cursor:pointer;user-select:none}
.filter .n{color:var(--muted);font-size:12px}
.toolbar input[type=search]{padding:5px 9px;border:1px solid var(--line);
border-radius:6px;width:250px;font:inherit}
.shown{color:var(--muted);font-size:12.5px}
.wrap{overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
table.matrix{border-collapse:separate;border-spacing:0;width:100%}
.matrix thead th{position:sticky;top:0;background:#eef1f4;z-index:2;text-align:center;
padding:8px 10px;border-bottom:1px solid var(--line);font-weight:600;vertical-align:bottom}
.matrix thead th:first-child{text-align:left}
.matrix .impl{min-width:130px;border-bottom:3px solid var(--pass)}
.matrix .impl.bad{border-bottom-color:var(--fail)}
.impl-name{display:block}.impl-ver{display:block;color:var(--muted);font-weight:400;font-size:12px}
.matrix tr.head th{background:#f6f8fa;text-align:left;padding:10px 12px 6px;font-weight:600;
border-top:1px solid var(--line);font-size:13px}
.profile{display:inline-block;background:#ddf4ff;color:#0550ae;border-radius:10px;
padding:0 8px;font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;margin-right:6px}
.matrix tr.rule th,.matrix tr.rule td{padding:6px 12px;border-top:1px solid #eaeef2}
.matrix tr.rule:hover{background:#f6f8fa}
.rule-id{text-align:left;font-weight:400;min-width:380px}
.rule-id code{font-weight:600}
.rule-title{display:block;color:var(--muted);font-size:12.5px;max-width:620px}
.sec{font-size:11.5px;color:var(--muted)}
.should{font-size:10.5px;background:#fff8c5;color:#7d4e00;border-radius:8px;padding:0 6px}
td.cell{text-align:center;white-space:nowrap}
.pill{display:inline-block;min-width:56px;padding:1px 9px;border-radius:11px;font-size:12px;
font-weight:600;color:#fff;text-align:center;line-height:19px}
a.pill{cursor:pointer;box-shadow:0 0 0 2px transparent;transition:box-shadow .1s}
a.pill:hover{text-decoration:none;box-shadow:0 0 0 3px rgba(9,105,218,.35)}
a.pill::after{content:" ›";font-weight:700}
.status{display:inline-block;padding:0 8px;border:1px solid;border-radius:11px;font-size:12px;
font-weight:600;background:#fff;line-height:19px;white-space:nowrap}
.card .exit{color:var(--muted);font-weight:400;font-size:12px}
.card .line{margin:0 0 8px;font-size:12.5px}
.card ul{margin:6px 0;padding-left:18px}.card ul.profiles{list-style:none;padding:0}
.card ul.profiles li{margin:2px 0}
.card pre.error{max-height:12em}
.card.h-could-not-be-checked{border-top-color:#57606a}
.card.h-interrupted,.card.h-terminated{border-top-color:#8250df}
.matrix tr.profile-row th,.matrix tr.profile-row td{padding:6px 12px;border-top:1px solid #eaeef2;
background:#fbfcfd}
.matrix tr.profile-row th{text-align:left;font-weight:400}
.pill.o-none{background:transparent;color:var(--none);border:1px dashed var(--none);
font-weight:400}
.cov{display:block;color:var(--muted);font-size:11px;margin-top:2px}
dialog.cx{border:0;padding:0;background:transparent;max-width:none;max-height:none}
dialog.cx::backdrop{background:rgba(31,35,40,.5)}
dialog.cx[open]{position:fixed;inset:0;width:100%;height:100%;display:flex;
align-items:flex-start;justify-content:center;padding:4vh 2vw}
html:not(.js) dialog.cx:target{display:flex;position:fixed;inset:0;width:100%;height:100%;
align-items:flex-start;justify-content:center;padding:4vh 2vw;background:rgba(31,35,40,.5);
z-index:10}
.backdrop{position:absolute;inset:0}
.panel{position:relative;background:var(--card);border-radius:10px;width:min(980px,100%);
max-height:92vh;overflow:auto;padding:18px 22px 20px;box-shadow:0 12px 40px rgba(0,0,0,.3)}
.panel header{display:flex;justify-content:space-between;gap:14px;border-bottom:1px solid
var(--line);padding-bottom:10px;margin-bottom:10px}
.panel h2{margin:0;font-size:17px;display:flex;gap:10px;align-items:center}
.panel .sub{margin:4px 0 0;color:var(--muted)}.panel .title{margin:4px 0 0}
.close{font-size:26px;line-height:1;color:var(--muted);padding:0 4px}
.close:hover{color:var(--fg);text-decoration:none}
.message{background:#fff1e5;border-left:4px solid var(--error);padding:8px 12px;
border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere}
.note{background:#f6f8fa;border-left:4px solid var(--skip);padding:8px 12px;border-radius:4px;
white-space:pre-wrap}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
pre{background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:10px 12px;
overflow:auto;max-height:46vh;margin:6px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
pre.diff span{display:block;min-height:1.2em}.d-del{background:#ffebe9;color:#82071e}
.d-add{background:#dafbe1;color:#116329}.d-hunk{color:#8250df}.d-ctx{color:var(--fg)}
.seed{margin:10px 0 4px}
.replay{display:flex;align-items:center;gap:8px;flex-wrap:wrap;margin-top:6px}
.replay .cmd{background:#24292f;color:#f6f8fa;padding:6px 10px;border-radius:6px;
overflow-wrap:anywhere;flex:1}
.copy{font:inherit;font-size:12px;padding:4px 10px;border:1px solid var(--line);
border-radius:6px;background:#f6f8fa;cursor:pointer}
table.coverage{border-collapse:collapse;margin-top:10px}
table.coverage caption{text-align:left;font-weight:600;margin-bottom:4px}
table.coverage th,table.coverage td{border:1px solid var(--line);padding:3px 8px;
text-align:left;font-weight:400}
footer{color:var(--muted);font-size:12px;margin-top:14px}
[hidden]{display:none !important}
/* the audit's page: bytes along a log, its tables and findings */
.plot{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;
margin:0 0 16px}.plot h3{margin:0 0 6px;font-size:14px}
.legend{display:flex;flex-wrap:wrap;gap:6px 14px;margin:6px 0 0;font-size:12.5px}
.legend label{cursor:pointer}.legend i{display:inline-block;width:10px;height:10px;
border-radius:2px;margin-right:4px;vertical-align:-1px}
table.t{border-collapse:collapse;background:var(--card);margin:0 0 16px;font-size:13px}
table.t th,table.t td{border:1px solid var(--line);padding:4px 8px;text-align:left}
table.t td.n{text-align:right;font-variant-numeric:tabular-nums}
.finding{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--fail);
border-radius:6px;padding:8px 12px;margin:0 0 10px}
.finding.should{border-left-color:var(--xfail)}
.finding pre{white-space:pre-wrap;word-break:break-all;margin:4px 0;background:var(--bg);
padding:4px 6px;border-radius:4px}
"""
