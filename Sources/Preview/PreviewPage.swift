/// The preview page: one document, no files beside it, nothing from the
/// network. It asks the server for the newest state and frame as fast as it
/// can draw them, so a slow browser simply asks less often.
enum PreviewPage {
  static let html = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>workbench preview</title>
    <style>
    :root { --ink: #1d2433; --muted: #6b7385; --line: #d8dce5; --ok: #1f8a4c; --bad: #c0392b; --run: #2563eb; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--ink); background: #f5f6f9; }
    header { display: flex; gap: 12px; align-items: center; padding: 8px 16px; background: #fff; border-bottom: 1px solid var(--line); }
    header h1 { font-size: 16px; margin: 0; }
    #status { padding: 2px 10px; border-radius: 10px; background: var(--run); color: #fff; font-weight: 600; }
    #status.paused { background: #b7791f; } #status.ended, #status.closed { background: var(--muted); }
    #status.passed { background: var(--ok); } #status.failed { background: var(--bad); }
    main { display: grid; grid-template-columns: minmax(320px, 3fr) minmax(280px, 2fr); gap: 16px; padding: 16px; }
    .panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
    #view { position: relative; }
    #canvas { width: 100%; background: #222; border-radius: 6px; display: block; }
    #hint { margin-top: 10px; font-size: 22px; font-weight: 600; min-height: 1.5em; text-align: center; }
    #error { display: none; white-space: pre-wrap; background: #fdecea; color: var(--bad); border: 1px solid #f5c2bd;
      border-radius: 6px; padding: 8px; margin-bottom: 10px; font-family: ui-monospace, monospace; font-size: 13px; }
    #error.shown { display: block; }
    #steps { list-style: none; padding: 0; margin: 0; }
    #steps li { display: grid; grid-template-columns: 1fr auto; gap: 4px; padding: 4px 0; border-bottom: 1px solid #eef0f4; }
    #steps li .bar { grid-column: 1 / 3; height: 4px; background: #eef0f4; border-radius: 2px; overflow: hidden; }
    #steps li .bar span { display: block; height: 100%; background: var(--run); width: 0; }
    #steps li.passed .state { color: var(--ok); } #steps li.failed .state { color: var(--bad); }
    #steps li.running { font-weight: 600; }
    .controls { display: flex; flex-wrap: wrap; gap: 6px; margin: 10px 0; }
    button { font: inherit; padding: 4px 10px; border: 1px solid var(--line); background: #fff; border-radius: 6px; cursor: pointer; }
    button:hover { background: #eef2ff; }
    #settings-form { display: flex; gap: 6px; } #settings-form input { flex: 1; font: inherit; padding: 3px 6px; }
    #reply { color: var(--muted); min-height: 1.4em; white-space: pre-wrap; }
    .plot { width: 100%; height: 90px; display: block; margin-top: 6px; }
    .plot-title { font-size: 12px; color: var(--muted); margin-top: 8px; }
    #counters { color: var(--muted); font-size: 12px; }
    kbd { border: 1px solid var(--line); border-radius: 3px; padding: 0 4px; font-size: 12px; }
    </style>
    </head>
    <body>
    <header><h1 id="flow">workbench preview</h1><span id="status">connecting</span>
    <span id="counters">frame <span id="frame-counter">0</span> · t <span id="time">0</span> s</span></header>
    <main>
    <section class="panel" id="view">
    <div id="error"></div>
    <canvas id="canvas" width="1280" height="720"></canvas>
    <div id="hint"></div>
    </section>
    <section class="panel">
    <ol id="steps"></ol>
    <div class="controls">
    <button id="pause" title="space">Pause</button><button id="resume" title="space">Resume</button>
    <button id="restart" title="r">Restart</button><button id="best-shot" title="b">Best shot now</button>
    <button id="close" title="q">Close</button>
    </div>
    <form id="settings-form"><input id="settings" placeholder="key=value (while paused)" autocomplete="off">
    <button type="submit">Set</button></form>
    <div id="reply"></div>
    <div id="statuses"></div>
    <div id="plots"></div>
    <p id="counters-detail" class="plot-title"></p>
    <p class="plot-title">Keys: <kbd>space</kbd> pause/resume · <kbd>r</kbd> restart · <kbd>b</kbd> best shot · <kbd>q</kbd> close</p>
    </section>
    </main>
    <script>
    'use strict';
    const $ = (id) => document.getElementById(id);
    const canvas = $('canvas'), g = canvas.getContext('2d');
    const history = new Map();
    let state = null, version = null, lastFrame = null, framesShown = 0, measurements = {}, connected = true;
    window.preview = { framesShown: 0, state: null };

    function get(object, path) {
      let value = object;
      for (const key of path.split('.')) {
        if (value == null) return undefined;
        value = Array.isArray(value) ? value[Number(key) - 1] : value[key];
      }
      return value;
    }

    async function post(action, body) {
      const options = { method: 'POST', headers: { 'X-Workbench-Source': 'page' } };
      if (body !== undefined) { options.headers['Content-Type'] = 'application/json'; options.body = JSON.stringify(body); }
      try {
        const answer = await (await fetch('/api/' + action, options)).json();
        $('reply').textContent = answer.message;
        if (answer.state) show(answer.state);
      } catch (error) { $('reply').textContent = 'the run has ended (' + error + ')'; }
    }

    for (const action of ['pause', 'resume', 'restart', 'best-shot', 'close']) $(action).onclick = () => post(action);
    $('settings-form').onsubmit = (event) => {
      event.preventDefault();
      const text = $('settings').value, equals = text.indexOf('=');
      if (equals < 1) { $('reply').textContent = 'write key=value'; return; }
      const raw = text.slice(equals + 1).trim();
      let value = raw;
      try { value = JSON.parse(raw); } catch (_) {}
      post('settings', { [text.slice(0, equals).trim()]: value });
    };
    document.addEventListener('keydown', (event) => {
      // Ctrl-R is the browser's reload, not a restart; a held key is pressed once.
      if (event.target.tagName === 'INPUT' || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if (event.key === ' ') { event.preventDefault(); post(state && state.paused ? 'resume' : 'pause'); }
      else if (event.key === 'r') post('restart');
      else if (event.key === 'b') post('best-shot');
      else if (event.key === 'q') post('close');
    });

    function thresholdsNow() {
      const list = [];
      if (state && state.step && state.step.thresholds) for (const t of state.step.thresholds) list.push(Object.assign({ step: state.step.name }, t));
      if (state && state.watch_thresholds) for (const t of state.watch_thresholds) list.push(Object.assign({ step: 'watch' }, t));
      return list;
    }

    function label(t) {
      const parts = [];
      if (t.min != null && t.max != null) parts.push('between ' + t.min + ' and ' + t.max);
      else if (t.min != null) parts.push('at least ' + t.min);
      else if (t.max != null) parts.push('at most ' + t.max);
      if (t.above != null) parts.push('above ' + t.above);
      if (t.below != null) parts.push('below ' + t.below);
      return t.step + ': ' + parts.join(', then ');
    }

    function show(next) {
      state = next;
      window.preview.state = next;
      $('flow').textContent = next.flow ? next.flow + ' — ' + next.file : 'workbench preview';
      $('frame-counter').textContent = next.frame;
      $('time').textContent = next.t.toFixed(2);
      let status = next.status;
      if (next.result) status = next.result.success ? 'passed' : 'failed';
      const badge = $('status');
      badge.textContent = next.result ? status + ' (' + next.result.reason + ')' : status;
      badge.className = status;
      $('hint').textContent = next.hint ? next.hint.text : '';
      $('hint').lang = next.hint ? next.hint.lang : next.lang;
      const error = next.reload_error;
      $('error').textContent = error ? 'The changed flow does not load; the previous one goes on.\\n' + error.error : '';
      $('error').className = error ? 'shown' : '';
      const steps = $('steps');
      steps.textContent = '';
      for (const step of next.steps) {
        const item = document.createElement('li');
        item.className = step.state;
        const name = document.createElement('span'); name.textContent = step.name;
        const mark = document.createElement('span'); mark.className = 'state'; mark.textContent = step.state;
        const bar = document.createElement('div'); bar.className = 'bar';
        const fill = document.createElement('span'); bar.appendChild(fill);
        if (step.state === 'running' && next.step && next.step.timeout) {
          const left = Math.max(0, next.step.timeout - (next.t - next.step.started_at));
          fill.style.width = (100 * left / next.step.timeout).toFixed(1) + '%';
          mark.textContent = left.toFixed(1) + ' s left';
        } else if (step.state === 'passed') fill.style.width = '100%';
        item.append(name, mark, bar);
        steps.appendChild(item);
      }
      $('statuses').textContent = next.statuses.length ? 'status: ' + next.statuses.map((s) => s.status).join(' → ') : '';
      const p = next.preview;
      $('counters-detail').textContent = 'frames processed ' + p.frames_processed + ', sent to this page ' +
        p.frames_sent + ', not sent ' + p.frames_not_sent + ', dropped by the camera ' + next.frames_dropped;
    }

    function drawShapes(shapes, scale) {
      g.fillStyle = 'rgba(255, 60, 60, 0.45)';
      for (const q of shapes['card.glare'] || []) {
        g.beginPath();
        g.moveTo(q[0] * scale, q[1] * scale);
        for (let i = 2; i < 8; i += 2) g.lineTo(q[i] * scale, q[i + 1] * scale);
        g.closePath(); g.fill();
      }
      g.fillStyle = 'rgba(56, 217, 122, 0.8)';
      for (const mesh of shapes['face.landmarks'] || []) {
        for (let i = 0; i + 1 < mesh.length; i += 2) g.fillRect(mesh[i] * scale - 1, mesh[i + 1] * scale - 1, 2, 2);
      }
    }

    function drawOverlays(width, height, shapes) {
      const scale = canvas.width / width;
      drawShapes(shapes || {}, scale);
      g.lineWidth = 3;
      const faces = get(measurements, 'face.faces') || (get(measurements, 'face.box') ? [{ box: get(measurements, 'face.box') }] : []);
      for (const face of faces) {
        if (!face || !face.box) continue;
        g.strokeStyle = '#38d97a';
        g.strokeRect(face.box.x * scale, face.box.y * scale, face.box.w * scale, face.box.h * scale);
        if (face.yaw != null && face.pitch != null) {
          g.fillStyle = '#38d97a'; g.font = '20px system-ui';
          g.fillText('yaw ' + face.yaw.toFixed(0) + '° pitch ' + face.pitch.toFixed(0) + '°', face.box.x * scale, face.box.y * scale - 6);
        }
      }
      const corners = get(measurements, 'card.corners');
      if (get(measurements, 'card.found') && corners && corners.length === 4 && corners.every((c) => c)) {
        g.strokeStyle = '#4aa3ff';
        g.beginPath();
        corners.forEach((c, i) => (i ? g.lineTo(c.x * scale, c.y * scale) : g.moveTo(c.x * scale, c.y * scale)));
        g.closePath(); g.stroke();
        const mid = (a, b) => ({ x: (a.x + b.x) / 2 * scale, y: (a.y + b.y) / 2 * scale });
        const axes = [[mid(corners[3], corners[0]), mid(corners[1], corners[2]), '#ff5a5a'], [mid(corners[0], corners[1]), mid(corners[2], corners[3]), '#ffd84a']];
        for (const [a, b, colour] of axes) { g.strokeStyle = colour; g.beginPath(); g.moveTo(a.x, a.y); g.lineTo(b.x, b.y); g.stroke(); }
        const tx = get(measurements, 'card.tilt_x'), ty = get(measurements, 'card.tilt_y'), glare = get(measurements, 'card.glare');
        g.fillStyle = '#4aa3ff'; g.font = '20px system-ui';
        g.fillText('tilt x ' + (tx == null ? '–' : tx.toFixed(0)) + '° y ' + (ty == null ? '–' : ty.toFixed(0)) + '°' +
          (glare == null ? '' : ' glare ' + glare.toFixed(2)), corners[0].x * scale, corners[0].y * scale - 8);
      }
    }

    function drawFrame(frame, image) {
      const width = get(measurements, 'image.width') || (image ? image.naturalWidth : 1280);
      const height = get(measurements, 'image.height') || (image ? image.naturalHeight : 720);
      if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
      if (image) g.drawImage(image, 0, 0, width, height); else { g.fillStyle = '#333'; g.fillRect(0, 0, width, height); }
      drawOverlays(width, height, frame.overlays);
      framesShown += 1;
      window.preview.framesShown = framesShown;
    }

    function record(frame) {
      for (const t of thresholdsNow()) {
        const value = get(frame.measurements, t.field);
        if (typeof value !== 'number') continue;
        if (!history.has(t.field)) history.set(t.field, []);
        const points = history.get(t.field);
        points.push([frame.t, value]);
        while (points.length && points[0][0] < frame.t - 10) points.shift();
      }
      drawPlots(frame.t);
    }

    function drawPlots(now) {
      const wanted = thresholdsNow(), box = $('plots');
      const fields = [...new Set(wanted.map((t) => t.field))];
      if (box.dataset.fields !== fields.join(',')) {
        box.dataset.fields = fields.join(',');
        box.textContent = '';
        for (const field of fields) {
          const title = document.createElement('div'); title.className = 'plot-title';
          title.textContent = field + ' — ' + wanted.filter((t) => t.field === field).map(label).join('; ');
          const plot = document.createElement('canvas'); plot.className = 'plot'; plot.width = 400; plot.height = 90; plot.dataset.field = field;
          box.append(title, plot);
        }
      }
      for (const plot of box.querySelectorAll('canvas')) {
        const field = plot.dataset.field, points = history.get(field) || [], c = plot.getContext('2d');
        const lines = wanted.filter((t) => t.field === field).flatMap((t) => [t.min, t.max, t.above, t.below]).filter((v) => v != null);
        const values = points.map((p) => p[1]).concat(lines);
        let low = Math.min(...values), high = Math.max(...values);
        if (!isFinite(low)) { low = 0; high = 1; }
        if (high - low < 1e-9) { high += 1; low -= 1; }
        const pad = (high - low) * 0.1; low -= pad; high += pad;
        const x = (t) => (t - (now - 10)) / 10 * plot.width, y = (v) => plot.height - (v - low) / (high - low) * plot.height;
        c.clearRect(0, 0, plot.width, plot.height);
        c.strokeStyle = '#c0392b'; c.setLineDash([4, 3]);
        c.fillStyle = '#c0392b'; c.font = '11px system-ui';
        for (const v of lines) {
          c.beginPath(); c.moveTo(0, y(v)); c.lineTo(plot.width, y(v)); c.stroke();
          c.fillText(String(v), 2, Math.max(10, y(v) - 2));
        }
        const latest = points.length ? points[points.length - 1][1] : null;
        if (latest !== null) { c.fillStyle = '#2563eb'; c.fillText(latest.toFixed(2), plot.width - 40, 12); }
        c.setLineDash([]); c.strokeStyle = '#2563eb'; c.lineWidth = 2; c.beginPath();
        points.forEach((p, i) => (i ? c.lineTo(x(p[0]), y(p[1])) : c.moveTo(x(p[0]), y(p[1]))));
        c.stroke();
      }
    }

    async function stateLoop() {
      while (connected) {
        try {
          const answer = await fetch('/api/state' + (version === null ? '' : '?after=' + version));
          const next = await answer.json();
          version = next.version;
          try { show(next); } catch (error) { console.error(error); }
          if (next.status === 'closed') break;
        } catch (error) { disconnected(); }
      }
    }

    async function frameLoop() {
      while (connected) {
        try {
          const answer = await fetch('/api/frame' + (lastFrame === null ? '' : '?after=' + lastFrame));
          if (answer.status === 204) { if (state && state.status === 'closed') break; continue; }
          const frame = await answer.json();
          lastFrame = frame.sequence;
          measurements = frame.measurements;
          let image = null;
          if (frame.image) {
            image = new Image();
            image.src = '/api/frame.jpg?sequence=' + frame.sequence;
            try { await image.decode(); } catch (_) { image = null; }
          }
          try { drawFrame(frame, image); record(frame); } catch (error) { console.error(error); }
        } catch (error) { disconnected(); }
      }
    }

    function disconnected() {
      connected = false;
      $('status').textContent = 'disconnected: the run has ended';
      $('status').className = 'closed';
    }

    stateLoop();
    frameLoop();
    </script>
    </body>
    </html>
    """
}
