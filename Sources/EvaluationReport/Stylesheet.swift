extension EvaluationPage {
  /// The page's own style, after the one it shares with the session report
  /// (`ReportStyle.common`): bars, the sweep's marks, the DET curve, the
  /// decisions and the controls. `hidden` wins over a class's display, so
  /// that the controls stay hidden until the script shows them.
  static let stylesheet = """
    [hidden] { display: none !important; }
    .note { color: var(--muted); font-size: 12px; margin: 4px 0 8px; }
    .number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
    .rates .measure { font-weight: 600; }
    .rates .what { display: block; color: var(--muted); font-size: 12px; }
    .rates td.rate { font-weight: 600; }
    .tag { display: inline-block; color: #fff; border-radius: 4px; padding: 0 6px; margin-left: 6px; font-size: 11px;
      font-weight: 600; vertical-align: 1px; }
    .tag.chosen { background: var(--status); } .tag.front { background: var(--pass); }
    .tag.not-iso { background: var(--muted); }
    .at-point { color: var(--muted); font-weight: 400; font-size: 14px; }
    .bar { fill: var(--series); fill-opacity: .7; } .bar-row.highlighted .bar { fill: var(--fail); }
    .whisker line { stroke: var(--ink); stroke-width: 1.3; }
    .bar-label { font-size: 11px; fill: var(--ink); } .bar-value { font-size: 11px; fill: var(--muted); }
    .axis-title { font-size: 11px; fill: var(--muted); }
    .sweep-point { fill: var(--series); fill-opacity: .5; stroke: var(--series); stroke-width: 1; cursor: pointer; }
    .sweep-point.front-point { fill: var(--pass); fill-opacity: .85; stroke: var(--pass); }
    .sweep-point.selected { stroke: var(--ink); stroke-width: 2.5; }
    .front { fill: none; stroke: var(--pass); stroke-width: 1.6; stroke-linejoin: round; }
    .chosen-marker { fill: none; stroke: var(--status); stroke-width: 2.5; }
    .chosen-label { font-size: 11px; font-weight: 600; fill: var(--status); }
    .target line { stroke: var(--threshold); stroke-width: 1.2; stroke-dasharray: 6 4; }
    .target text { font-size: 10px; fill: var(--threshold); }
    .det-figure { display: flex; flex-wrap: wrap; gap: 16px 32px; align-items: flex-start; }
    .det-figure .chart { flex: 0 1 540px; }
    .det-figure .facts { flex: 1 1 240px; margin: 0; grid-template-columns: 1fr; }
    .det-curve { fill: none; stroke: var(--series); stroke-width: 1.8; stroke-linejoin: round; }
    .det-dot { fill: var(--series); }
    .diagonal { stroke: #afb8c1; stroke-width: 1; stroke-dasharray: 3 3; }
    .eer-marker circle { fill: var(--threshold); } .eer-marker text { fill: var(--threshold); }
    .operating-point circle { fill: var(--status); } .operating-point text { fill: var(--status); }
    .det-label { font-size: 10px; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
    .legend .key.bar { background: rgba(9,105,218,.7); } .legend .key.bar.highlighted { background: var(--fail); }
    .legend .key.whisker { height: 0; border-top: 2px solid var(--ink); border-radius: 0; }
    .legend .key.dot { width: 10px; height: 10px; border-radius: 50%; background: rgba(9,105,218,.5); }
    .legend .key.dot.front { background: var(--pass); }
    .legend .key.front-line { height: 0; border-top: 2px solid var(--pass); border-radius: 0; }
    .legend .key.chosen-ring { width: 12px; height: 12px; border-radius: 50%; border: 2px solid var(--status); }
    .legend .key.target { height: 0; border-top: 2px dashed var(--threshold); border-radius: 0; }
    .controls { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; margin: 8px 0; font-size: 13px; }
    .controls select { font: inherit; margin-left: 4px; }
    #points tbody tr { cursor: pointer; } #points tbody tr.selected td { background: #ddf4ff; }
    #session-table thead th { position: sticky; top: 0; }
    .decision.correct { color: var(--pass); } .decision.wrong { color: var(--fail); font-weight: 600; }
    .decision.no-response { color: var(--error); }
    .ids { margin: 0; padding-left: 20px; columns: 2 280px; overflow-wrap: anywhere; }

    """
}
