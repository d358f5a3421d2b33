extension EvaluationPage {
  /// The page's only script: the sessions' filters and, with a sweep, the
  /// point shown. The page reads without it (the controls stay hidden and
  /// the chosen point, or the first, is shown), so it adds and never fixes.
  /// Every row is touched once per change: a run of 10⁴ sessions filters
  /// at once.
  static let script = """
    (function () {
      'use strict';
      var table = document.getElementById('session-table');
      var rows = table ? table.tBodies[0].rows : [];
      var filters = document.getElementById('session-filters');
      var selects = filters ? Array.prototype.slice.call(filters.querySelectorAll('select')) : [];
      var count = document.getElementById('session-count');

      function applyFilters() {
        var wanted = selects.map(function (select) { return ['data-' + select.name, select.value]; });
        var shown = 0;
        for (var i = 0; i < rows.length; i++) {
          var row = rows[i];
          var visible = wanted.every(function (filter) {
            return filter[1] === '' || row.getAttribute(filter[0]) === filter[1];
          });
          row.hidden = !visible;
          if (visible) shown++;
        }
        if (count) count.textContent = shown + ' of ' + rows.length + ' sessions shown';
      }
      if (filters) {
        filters.hidden = false;
        filters.addEventListener('submit', function (event) { event.preventDefault(); });
        selects.forEach(function (select) { select.addEventListener('change', applyFilters); });
        applyFilters();
      }

      var pointSelect = document.getElementById('point-select');
      if (!pointSelect) return;
      var data = document.getElementById('point-sessions');
      var outcomes = data ? JSON.parse(data.textContent) : null;
      var caption = document.getElementById('sessions-point');

      function verdict(label, decision) {
        if ((label === 'bona_fide' && decision === 'accepted') || (label === 'attack' && decision === 'rejected')) {
          return 'correct';
        }
        if ((label === 'bona_fide' && decision === 'rejected') || (label === 'attack' && decision === 'accepted')) {
          return 'wrong';
        }
        return decision === 'none' ? 'no-response' : '';
      }

      function showPoint(point) {
        var key = String(point);
        pointSelect.value = key;
        document.querySelectorAll('.point-detail').forEach(function (detail) {
          detail.hidden = detail.getAttribute('data-point') !== key;
        });
        document.querySelectorAll('#points tbody tr, .sweep-point').forEach(function (mark) {
          mark.classList.toggle('selected', mark.getAttribute('data-point') === key);
        });
        if (caption) caption.textContent = 'at point ' + key;
        var list = outcomes && outcomes[point];
        if (list) {
          for (var i = 0; i < rows.length; i++) {
            var row = rows[i], cells = row.cells, outcome = list[i];
            var decision = outcome ? outcome[0] : '';
            row.setAttribute('data-decision', decision);
            cells[3].textContent = outcome ? decision : 'no record';
            cells[3].className = 'decision ' + verdict(row.getAttribute('data-label'), decision);
            cells[4].textContent = outcome ? outcome[1] : '';
            if (outcome && outcome[5]) cells[4].title = outcome[5]; else cells[4].removeAttribute('title');
            cells[5].textContent = outcome ? outcome[2] : '';
            cells[6].textContent = outcome ? outcome[3] : '';
            cells[7].textContent = outcome ? outcome[4] : '';
          }
        }
        applyFilters();
      }

      document.getElementById('point-controls').hidden = false;
      pointSelect.addEventListener('change', function () { showPoint(Number(pointSelect.value)); });
      document.querySelectorAll('#points tbody tr, .sweep-point').forEach(function (mark) {
        mark.addEventListener('click', function () { showPoint(Number(mark.getAttribute('data-point'))); });
      });
    })();

    """
}
