/**
 * The style sheet inlined into `report.html` (no external fonts or files).
 *
 * @module
 */

/** CSS of the HTML audit report. */
export const REPORT_CSS = [
  "body{font:16px/1.5 system-ui,sans-serif;color:#24292f;background:#fff;margin:0}",
  "main{max-width:62rem;margin:0 auto;padding:1rem}",
  "code{font-family:ui-monospace,monospace;overflow-wrap:anywhere}",
  "p.verdict{font-size:1.15rem;border-left:5px solid #57606a;padding:.25rem .75rem}",
  "p.verdict.PASSED{border-color:#1a7f37}p.verdict.FAILED{border-color:#cf222e}",
  "p.verdict.INCONCLUSIVE{border-color:#bf8700}",
  "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0}",
  "figure{margin:1rem 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.9rem;color:#57606a}",
  "table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}caption{text-align:left;font-weight:600}",
  "th,td{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}",
  "td:nth-child(-n+2),th:nth-child(-n+2){overflow-wrap:normal;white-space:nowrap}",
].join("\n");
