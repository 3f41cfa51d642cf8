#!/usr/bin/env python3
"""Open the HTML report in headless Chromium as a person would see it, 1,280 pixels wide,
and check what the browser laid out; take screenshots of a verdict matrix and of one
counterexample diagram.

Chromium is driven through its DevTools protocol over a pipe (--remote-debugging-pipe),
so nothing beyond Python's standard library and Debian's chromium is needed. The page
itself carries no script: the measurements run from here, through the protocol.

usage: html_check.py REPORT.html ARTEFACT_DIR EXPECTED_ROWS
"""

import base64
import json
import os
import subprocess
import sys
import tempfile

WIDTH = 1280
HEIGHT = 2000

MEASURE = r"""
(() => {
  const vw = document.documentElement.clientWidth;
  const out = { viewport: vw, scrollWidth: document.documentElement.scrollWidth };
  const describe = (el) => {
    const cls = typeof el.className === 'string' ? el.className : (el.className && el.className.baseVal) || '';
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (cls ? '.' + cls.trim().split(/\s+/).join('.') : '');
  };
  out.wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > vw + 0.5 || r.left < -0.5) out.wide.push(describe(el) + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  }
  out.scripts = document.querySelectorAll('script').length;
  out.external = [];
  for (const el of document.querySelectorAll('link, img, iframe, object, embed, video, audio, source, image, use')) {
    const ref = el.getAttribute('src') || el.getAttribute('href') || el.getAttribute('xlink:href') || el.getAttribute('data') || '';
    if (!ref.startsWith('#') && !ref.startsWith('data:')) out.external.push(describe(el) + ' ' + ref);
  }
  for (const s of document.querySelectorAll('style')) {
    if (/@import|url\(\s*['"]?(?!data:|#)/.test(s.textContent)) out.external.push('style with an external url');
  }
  // Every cell with a violation links to a diagram that exists and shows a break.
  out.violatedCells = 0;
  out.badCells = [];
  for (const td of document.querySelectorAll('table.matrix td.cell')) {
    const chips = [...td.querySelectorAll('.chip.violated')];
    if (chips.length === 0) continue;
    out.violatedCells += 1;
    for (const chip of chips) {
      const links = [...chip.closest('li').querySelectorAll('a.to-diagram')];
      if (links.length === 0) out.badCells.push(describe(td) + ': a violation without a link');
      for (const a of links) {
        const id = (a.getAttribute('href') || '').slice(1);
        const target = id && document.getElementById(id);
        const svg = target && target.querySelector('svg.seq');
        const steps = svg ? svg.querySelectorAll('g.step').length : 0;
        const broken = svg ? svg.querySelectorAll('g.step.broken, g.break-note').length : 0;
        if (!svg || broken === 0) out.badCells.push(describe(td) + ' -> #' + id + ': ' + (svg ? 'no break marked' : 'no diagram') + ', ' + steps + ' steps');
      }
    }
  }
  // In every diagram, every text lies inside its box as the browser measured it.
  out.diagrams = document.querySelectorAll('svg.seq').length;
  out.overflow = [];
  for (const svg of document.querySelectorAll('svg.seq')) {
    for (const g of svg.querySelectorAll('g.step, g.break-note')) {
      const box = g.querySelector('rect').getBBox();
      for (const t of g.querySelectorAll('text')) {
        if (t.classList.contains('num')) continue;
        const b = t.getBBox();
        if (b.x < box.x - 0.5 || b.x + b.width > box.x + box.width + 0.5 || b.y < box.y - 0.5 || b.y + b.height > box.y + box.height + 0.5) {
          out.overflow.push((svg.closest('figure') || {}).id + ' step ' + g.getAttribute('data-step') + ': ' + t.textContent.slice(0, 60) + ' (' + Math.round(b.x + b.width) + ' > ' + Math.round(box.x + box.width) + ')');
        }
      }
    }
  }
  out.links = document.querySelectorAll('svg.seq a.java').length;
  out.lifelines = document.querySelectorAll('svg.seq line.lifeline').length;
  out.rows = document.querySelectorAll('table#reports tbody tr').length;
  out.matrices = document.querySelectorAll('table.matrix').length;
  out.plots = document.querySelectorAll('figure.plot svg').length;
  const rect = (el) => { const r = el.getBoundingClientRect(); return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height }; };
  const matrix = document.querySelector('table.matrix');
  out.matrixBox = matrix && rect(matrix);
  const figure = document.querySelector('figure.cx svg.seq');
  out.diagramBox = figure && rect(figure.closest('figure'));
  out.diagramId = figure && figure.closest('figure').id;
  return out;
})()
"""


class Browser:
    def __init__(self, chromium, profile):
        to_child, self._to_browser = os.pipe()
        self._from_browser, from_child = os.pipe()

        def wire():
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                '--no-first-run', '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--hide-scrollbars', '--remote-debugging-pipe',
                f'--user-data-dir={profile}', 'about:blank']
        self.proc = subprocess.Popen(args, preexec_fn=wire, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, 'chromium.log'), 'w'))
        os.close(to_child)
        os.close(from_child)
        self._buffer = b''
        self._next = 0
        self.events = []

    def _read(self):
        while b'\0' not in self._buffer:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError('chromium closed the pipe')
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b'\0', 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        self._next += 1
        message = {'id': self._next, 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        os.write(self._to_browser, json.dumps(message).encode() + b'\0')
        while True:
            reply = self._read()
            if reply.get('id') == self._next:
                if 'error' in reply:
                    raise RuntimeError(f'{method}: {reply["error"]}')
                return reply.get('result', {})
            self.events.append(reply)

    def wait_for(self, method):
        while True:
            for i, e in enumerate(self.events):
                if e.get('method') == method:
                    del self.events[i]
                    return e
            self.events.append(self._read())

    def close(self):
        try:
            self.send('Browser.close')
        except Exception:
            pass
        self.proc.wait(timeout=30)


def main():
    report, artefacts, expected_rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(artefacts, exist_ok=True)
    chromium = os.environ.get('CHROMIUM', 'chromium')
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chromium, profile)
        try:
            target = b.send('Target.createTarget', {'url': 'about:blank'})['targetId']
            session = b.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
            b.send('Emulation.setDeviceMetricsOverride',
                   {'width': WIDTH, 'height': HEIGHT, 'deviceScaleFactor': 1, 'mobile': False}, session)
            b.send('Page.enable', {}, session)
            b.send('Page.navigate', {'url': 'file://' + os.path.abspath(report)}, session)
            b.wait_for('Page.loadEventFired')
            m = b.send('Runtime.evaluate', {'expression': MEASURE, 'returnByValue': True}, session)
            if 'exceptionDetails' in m:
                raise RuntimeError(f'measuring failed: {m["exceptionDetails"]}')
            m = m['result']['value']
            shots = {}
            for name, box in [('matrix', m.get('matrixBox')), ('diagram', m.get('diagramBox'))]:
                if not box:
                    continue
                clip = {'x': box['x'], 'y': box['y'], 'width': min(box['width'], WIDTH),
                        'height': min(box['height'], 6000), 'scale': 1}
                shot = b.send('Page.captureScreenshot',
                              {'format': 'png', 'clip': clip, 'captureBeyondViewport': True}, session)
                path = os.path.join(artefacts, f'{name}.png')
                with open(path, 'wb') as f:
                    f.write(base64.b64decode(shot['data']))
                shots[name] = path
            top = b.send('Page.captureScreenshot', {'format': 'png'}, session)
            with open(os.path.join(artefacts, 'page-top.png'), 'wb') as f:
                f.write(base64.b64decode(top['data']))
        finally:
            b.close()
    with open(os.path.join(artefacts, 'measurements.json'), 'w') as f:
        json.dump(m, f, indent=2)

    failures = []
    if m['scripts']:
        failures.append(f'the page has {m["scripts"]} script element(s)')
    if m['external']:
        failures.append('external resources: ' + '; '.join(m['external'][:10]))
    if m['scrollWidth'] > m['viewport'] or m['wide']:
        failures.append(f'wider than the {m["viewport"]} px viewport (scroll width {m["scrollWidth"]}): '
                        + '; '.join(m['wide'][:10]))
    if m['badCells']:
        failures.append('violated cells without a diagram: ' + '; '.join(m['badCells'][:10]))
    if m['violatedCells'] == 0:
        failures.append('no violated cell at all')
    if m['overflow']:
        failures.append(f'{len(m["overflow"])} texts outside their boxes: ' + '; '.join(m['overflow'][:10]))
    if m['rows'] != expected_rows:
        failures.append(f'{m["rows"]} rows in the table of all reports, expected {expected_rows}')
    if 'matrix' not in shots or 'diagram' not in shots:
        failures.append('no matrix or no diagram to take a screenshot of')
    print(f'chromium laid out {m["matrices"]} matrices, {m["violatedCells"]} violated cells each linking '
          f'to a diagram, {m["diagrams"]} diagrams ({m["lifelines"]} lifelines, {m["links"]} links to '
          f'cited methods), {m["plots"]} plots, {m["rows"]} report rows; widest point {m["scrollWidth"]} px '
          f'of {m["viewport"]}')
    print(f'screenshots: {", ".join(shots.values())} (diagram {m.get("diagramId")})')
    if failures:
        for f in failures:
            print('FAIL: ' + f, file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
