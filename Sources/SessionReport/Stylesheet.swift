/// The look every HTML page of workbench shares: system fonts, no external
/// resources; the colours, headings, fact lists, legends, chart axes and
/// tables. Public for the other pages that look like this one (EvaluationReport).
public enum ReportStyle {
  public static let common = """
    :root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --paper: #ffffff; --soft: #f6f8fa;
      --pass: #1a7f37; --fail: #cf222e; --error: #9a6700; --series: #0969da; --threshold: #bc4c00;
      --status: #8250df; --hint: #1b7c83; }
    * { box-sizing: border-box; }
    body { margin: 0 auto; padding: 24px 32px 48px; max-width: 1040px; color: var(--ink); background: var(--paper);
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif; }
    h1 { font-size: 24px; margin: 0; }
    h2 { font-size: 17px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
    h3 { font-size: 14px; margin: 0 0 6px; }
    code { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; }
    header.top { display: flex; justify-content: space-between; align-items: flex-start; gap: 24px; }
    .file { margin: 2px 0 0; color: var(--muted); font-family: ui-monospace, "DejaVu Sans Mono", monospace;
      font-size: 12px; }
    .facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 8px 16px;
      margin: 16px 0 0; padding: 12px 16px; background: var(--soft); border-radius: 8px; }
    .facts div { min-width: 0; } .facts dt { color: var(--muted); font-size: 12px; }
    .facts dd { margin: 0; overflow-wrap: anywhere; }
    .legend { color: var(--muted); font-size: 12px; margin: 0 0 8px; }
    .legend .key { display: inline-block; width: 14px; height: 10px; margin: 0 4px 0 12px; vertical-align: middle;
      border-radius: 2px; }
    .legend .key:first-child { margin-left: 0; }
    .chart svg { display: block; width: 100%; max-width: 960px; height: auto; }
    figure { margin: 0; }
    svg text { font-family: system-ui, "DejaVu Sans", sans-serif; }
    .area { fill: #fff; stroke: none; }
    .grid { stroke: #eaeef2; stroke-width: 1; }
    .axis, .tick { stroke: #8c959f; stroke-width: 1; }
    .tick-label, .axis-unit { font-size: 10px; fill: var(--muted); }
    .row-label { font-size: 11px; fill: var(--muted); }
    table { width: 100%; border-collapse: collapse; font-size: 13px; }
    th { text-align: left; font-weight: 600; color: var(--muted); background: var(--soft); }
    th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
    tbody tr:nth-child(even) td { background: #fbfcfd; }
    .empty { color: var(--muted); font-style: italic; }
    footer { margin-top: 40px; color: var(--muted); font-size: 12px; }

    """
}

extension PageBuilder {
  /// The page's only style: the common one and the session report's own.
  static let stylesheet = ReportStyle.common + sessionStylesheet

  private static let sessionStylesheet = """
    .badge { display: flex; flex-direction: column; align-items: flex-end; padding: 8px 16px; border-radius: 8px;
      color: #fff; min-width: 150px; }
    .badge .verdict { font-size: 20px; font-weight: 700; letter-spacing: .04em; }
    .badge .code { font-size: 12px; opacity: .95; }
    .badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); }
    .badge.error { background: var(--error); } .badge.unknown { background: var(--muted); }
    .message { font-size: 16px; margin: 12px 0 4px; }
    .message.passed { color: var(--pass); } .message.failed { color: var(--fail); }
    .message.error { color: var(--error); }
    .error-text { margin: 4px 0; color: var(--fail); }
    .key.passed { background: rgba(26,127,55,.25); } .key.failed { background: rgba(207,34,46,.3); }
    .key.open { background: rgba(89,99,110,.25); }
    .key.threshold { height: 0; border-top: 2px dashed var(--threshold); border-radius: 0; }
    .key.status { width: 2px; background: var(--status); } .key.hint { width: 8px; height: 8px; border-radius: 50%;
      background: var(--hint); }
    .plot-figure { margin: 14px 0 0; }
    .plot-figure figcaption { display: flex; gap: 12px; align-items: baseline; padding-left: 64px; }
    .series-name { font-weight: 600; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
    .range { color: var(--muted); font-size: 12px; }
    .band.passed { fill: rgba(26,127,55,.07); } .band.passed.alternate { fill: rgba(26,127,55,.13); }
    .band.failed { fill: rgba(207,34,46,.14); } .band.open { fill: rgba(89,99,110,.10); }
    .band.open.alternate { fill: rgba(89,99,110,.16); } .band.failed.alternate { fill: rgba(207,34,46,.2); }
    .band-label { font-size: 10px; fill: var(--pass); } .band-label.failed { fill: var(--fail); }
    .band-label.open { fill: var(--muted); }
    .step-bar { stroke: #fff; stroke-width: 1; } .step-bar.passed { fill: rgba(26,127,55,.22); }
    .step-bar.failed { fill: rgba(207,34,46,.3); } .step-bar.open { fill: rgba(89,99,110,.2); }
    .step-bar-label { font-size: 11px; fill: var(--ink); }
    .threshold line { stroke: var(--threshold); stroke-width: 1.2; stroke-dasharray: 6 4; }
    .threshold text { font-size: 10px; fill: var(--threshold); paint-order: stroke; stroke: #fff; stroke-width: 3px; }
    .series { fill: none; stroke: var(--series); stroke-width: 1.6; stroke-linejoin: round; stroke-linecap: round; }
    .point { fill: var(--series); }
    .status-mark line { stroke: var(--status); stroke-width: 1.4; }
    .status-mark text { font-size: 9px; fill: var(--status); paint-order: stroke; stroke: #fff; stroke-width: 3px; }
    .lane .status-mark text { font-size: 10px; }
    .hint-mark { fill: var(--hint); }
    .capture-mark path { fill: var(--ink); } .capture-mark text { font-size: 10px; fill: var(--ink); }
    .shots { display: flex; flex-direction: column; gap: 16px; }
    .capture { padding: 10px 12px; border: 1px solid var(--line); border-radius: 8px; }
    .capture.at-failure { border-color: var(--fail); }
    .capture .when { color: var(--muted); font-weight: 400; margin-left: 8px; font-size: 12px; }
    .capture .tag { color: #fff; background: var(--fail); border-radius: 4px; padding: 1px 6px; font-size: 11px;
      font-weight: 600; margin-left: 8px; }
    .shot { display: inline-block; margin: 0 12px 0 0; vertical-align: top; }
    .shot img { display: block; max-height: 200px; max-width: 320px; border-radius: 4px; background: var(--soft); }
    .shot figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
    .missing { width: 200px; height: 120px; display: flex; align-items: center; justify-content: center;
      background: var(--soft); color: var(--muted); border-radius: 4px; font-size: 12px; text-align: center; }
    .no-image { color: var(--muted); font-style: italic; }

    """
}
