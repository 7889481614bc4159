// txscan's transaction browser (browser.py, templates/_transactions.html.j2): one file shared by
// transactions.html and every application's page; each page carries its own rows as JSON.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var S = D.strings, F = {};
  D.fields.forEach(function (name, i) { F[name] = i; });
  var LABELS = { 'one-shot': 'one-shot', 'interactive-nonstrict': 'non-strictly interactive', 'interactive-strict': 'strictly interactive' };
  var state = { verdict: '', sort: null, direction: 1, page: 0, open: {}, matching: [] };
  function $(id) { return document.getElementById(id); }
  function value(id) { var el = $(id); return el ? el.value : ''; }
  function str(i) { return i < 0 ? null : S[i]; }
  function modeIndex(mode) { return D.modes.indexOf(mode); }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) { node.setAttribute(k, attrs[k]); } });
    (children || []).forEach(function (c) { if (c !== null) { node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); } });
    return node;
  }
  // Text with line-break opportunities after / . and : (long paths wrap between their parts, not inside words).
  function breakable(text) {
    var span = document.createElement('span');
    String(text).split(/(?<=[\/.:])/).forEach(function (part, i) {
      if (i) { span.appendChild(document.createElement('wbr')); }
      span.appendChild(document.createTextNode(part));
    });
    return span;
  }
  // As Python's urllib.parse.quote(path, safe="/"), so links are the ones the Python side documents.
  function quotePath(path) {
    return path.split('/').map(function (p) {
      return encodeURIComponent(p).replace(/[!'()*]/g, function (c) { return '%' + c.charCodeAt(0).toString(16).toUpperCase(); });
    }).join('/');
  }
  function loc(row, file, line) {
    var base = D.apps[row[F.app]][2];
    var label = breakable(file + ':' + line);
    if (!base) { return label; }
    return el('a', { 'class': 'src', href: base[0] + quotePath(file) + base[1] + line }, [label]);
  }
  function perMode(row, mode) { var m = row[F.modes][modeIndex(mode)]; return m === 0 ? row[F.modes][0] : m; }
  // cyrb53: a 53-bit string hash. A row's id (for links between pages) comes from its application and key.
  function hash(text) {
    var h1 = 0xdeadbeef, h2 = 0x41c6ce57;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761); h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
  }
  D.rows.forEach(function (row) {
    var key = row[F.key] < 0 ? S[row[F.file]] + ':' + row[F.line] : S[row[F.key]];
    row.uid = hash(D.apps[row[F.app]][0] + '\n' + key);
  });
  function categories(row) {
    var seen = [];
    row[F.reasons].forEach(function (r) { var c = S[r[0]]; if (seen.indexOf(c) < 0) { seen.push(c); } });
    return seen;
  }
  function inScope(row, scope) {
    var auto = S[row[F.boundary]] === 'autocommit';
    return scope === 'all' || (scope === 'autocommit') === auto;
  }
  var searchCache = {};
  function searchText(row, mode) {
    var key = mode + row.uid;
    if (searchCache[key] === undefined) {
      var m = perMode(row, mode);
      var words = [D.apps[row[F.app]][0], S[row[F.file]] + ':' + row[F.line], S[row[F.function]], S[row[F.boundary]],
                   str(row[F.wrapper]) || '', D.verdicts[m[0]], D.rw[m[1]]].concat(categories(row));
      row[F.reasons].forEach(function (r) { words.push(String(str(r[1]))); });
      row[F.steps].forEach(function (s) { words.push(String(str(s[1]))); });
      row[F.steps].forEach(function (s) { words.push(S[s[3]]); });
      m[4].concat(m[5]).forEach(function (k) { words.push(S[k]); });
      searchCache[key] = words.join(' ').toLowerCase();
    }
    return searchCache[key];
  }
  function sortValue(row, mode, key) {
    var m = perMode(row, mode);
    switch (key) {
      case 'app': return D.apps[row[F.app]][0];
      case 'location': return S[row[F.file]] + ':' + ('000000000' + row[F.line]).slice(-9);
      case 'function': return S[row[F.function]];
      case 'boundary': return S[row[F.boundary]];
      case 'verdict': return m[0] < 0 ? 3 : m[0];
      case 'rw': return m[1] < 0 ? 3 : m[1];
      case 'statements': return row[F.statements];
    }
    return 0;
  }
  function matches(mode) {
    var query = value('search').trim().toLowerCase().split(/\s+/).filter(Boolean);
    var wanted = { app: value('f-app'), reason: value('f-reason'), rw: value('f-rw'), mismatch: value('f-mismatch'),
                   boundary: value('f-boundary'), complete: value('f-complete'), scope: value('f-scope') || 'all' };
    var index = modeIndex(mode);
    return D.rows.filter(function (row) {
      var m = row[F.modes][index] === 0 ? row[F.modes][0] : row[F.modes][index];
      if (!m || !inScope(row, wanted.scope)) { return false; }
      if (state.verdict && D.verdicts[m[0]] !== state.verdict) { return false; }
      if (wanted.app && D.apps[row[F.app]][0] !== wanted.app) { return false; }
      if (wanted.reason) {
        var cats = categories(row);
        if (wanted.reason === '(none)' ? cats.length : cats.indexOf(wanted.reason) < 0) { return false; }
      }
      if (wanted.rw && D.rw[m[1]] !== wanted.rw) { return false; }
      if (wanted.mismatch && (m[2] ? 'yes' : 'no') !== wanted.mismatch) { return false; }
      if (wanted.boundary && S[row[F.boundary]] !== wanted.boundary) { return false; }
      if (wanted.complete && (row[F.complete] === 1 ? 'yes' : row[F.complete] === 0 ? 'no' : '') !== wanted.complete) { return false; }
      if (query.length) {
        var text = searchText(row, mode);
        if (!query.every(function (word) { return text.indexOf(word) >= 0; })) { return false; }
      }
      return true;
    });
  }
  function sorted(rows, mode) {
    if (!state.sort) { return rows; }
    var key = state.sort, direction = state.direction;
    var numeric = key === 'statements' || key === 'verdict' || key === 'rw';
    return rows.map(function (row, i) { return [sortValue(row, mode, key), i, row]; }).sort(function (a, b) {
      var c = numeric ? a[0] - b[0] : (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
      return c * direction || a[1] - b[1];
    }).map(function (x) { return x[2]; });
  }
  function rowId(mode, row) { return mode + '-' + row.uid; }
  function summaryRow(mode, row) {
    var m = perMode(row, mode), id = rowId(mode, row), cats = categories(row), open = !!state.open[id];
    var verdict = D.verdicts[m[0]] || '';
    var complete = row[F.complete] === 1 ? 'yes' : row[F.complete] === 0 ? 'no' : '';
    var tr = el('tr', { 'class': 'txn', id: 't-' + id });
    var data = { app: D.apps[row[F.app]][0], verdict: verdict, rw: D.rw[m[1]] || '', mismatch: m[2] ? 'yes' : 'no',
                 reasons: '|' + cats.join('|') + '|', boundary: S[row[F.boundary]], complete: complete,
                 sortFunction: S[row[F.function]], sortVerdict: String(sortValue(row, mode, 'verdict')),
                 sortRw: String(sortValue(row, mode, 'rw')), sortStatements: String(row[F.statements]) };
    Object.keys(data).forEach(function (k) { tr.dataset[k] = data[k]; });
    var button = el('button', { 'class': 'expand', type: 'button', 'aria-expanded': open ? 'true' : 'false',
                                'aria-controls': 'd-' + id, title: 'details' }, [open ? '\u2212' : '+']);
    tr.appendChild(el('td', {}, [button]));
    if (!D.only_app) {
      var app = D.apps[row[F.app]];
      tr.appendChild(el('td', {}, [el('a', { href: 'apps/' + app[1] + '.html' }, [breakable(app[0])])]));
    }
    tr.appendChild(el('td', {}, [loc(row, S[row[F.file]], row[F.line])]));
    var fn = el('td', {}, [breakable(S[row[F.function]])]);
    if (row[F.wrapper] >= 0) { fn.appendChild(el('br')); fn.appendChild(el('span', { 'class': 'muted' }, ['via ', breakable(S[row[F.wrapper]])])); }
    tr.appendChild(fn);
    tr.appendChild(el('td', {}, [breakable(S[row[F.boundary]])]));
    var v = el('td', { 'class': 'verdict ' + verdict }, [LABELS[verdict] || verdict]);
    if (row[F.complete] === 0) { v.appendChild(document.createTextNode(' ')); v.appendChild(el('span', { 'class': 'badge incomplete' }, ['incomplete'])); }
    tr.appendChild(v);
    var reasons = el('td');
    cats.forEach(function (c, i) { if (i) { reasons.appendChild(el('br')); } reasons.appendChild(document.createTextNode(c)); });
    tr.appendChild(reasons);
    tr.appendChild(el('td', {}, [D.rw[m[1]] || '']));
    tr.appendChild(el('td', { 'class': 'num' }, [String(row[F.statements])]));
    button.addEventListener('click', function () {
      var now = button.getAttribute('aria-expanded') !== 'true';
      state.open[id] = now;
      button.setAttribute('aria-expanded', now ? 'true' : 'false');
      button.textContent = now ? '\u2212' : '+';
      $('d-' + id).hidden = !now;
    });
    return tr;
  }
  function codes(keys) {
    if (!keys.length) { return [el('span', { 'class': 'muted' }, ['empty'])]; }
    var out = [];
    keys.forEach(function (k, i) { if (i) { out.push(', '); } out.push(el('code', {}, [S[k]])); });
    return out;
  }
  function detailRow(mode, row, columns) {
    var m = perMode(row, mode), id = rowId(mode, row);
    var body = el('div', { 'class': 'detail-body' });
    if (row[F.complete] === 0) {
      body.appendChild(el('p', { 'class': 'incomplete' }, ['Incomplete: the analysis could not see everything this transaction runs' + (row[F.incomplete].length ? ':' : '.')]));
      if (row[F.incomplete].length) { body.appendChild(el('ul', {}, row[F.incomplete].map(function (w) { return el('li', {}, [S[w]]); }))); }
    }
    var head = el('thead', {}, [el('tr', {}, [['statement', 30], ['entity', 16], ['kind', 9], ['API', 15], ['inferability', 14], ['flags', 16]].map(function (h) {
      return el('th', { style: 'width:' + h[1] + '%' }, [h[0]]);
    }))]);
    var rows = row[F.steps].map(function (s, i) {
      var inf = m[3][i] || [-1, []];
      var file = s.length > 4 ? S[s[4]] : S[row[F.file]];
      return el('tr', {}, [el('td', {}, [loc(row, file, s[0])]), el('td', {}, [str(s[1]) || '']), el('td', {}, [S[s[2]]]),
                           el('td', {}, [breakable(S[s[3]])]), el('td', {}, [str(inf[0]) || '']),
                           el('td', {}, [inf[1].map(function (f) { return S[f]; }).join(', ')])]);
    });
    if (!rows.length) { rows = [el('tr', {}, [el('td', { colspan: '6', 'class': 'muted' }, ['no statement found'])])]; }
    body.appendChild(el('table', { 'class': 'statements' }, [head, el('tbody', {}, rows)]));
    if (row[F.reasons].length) {
      body.appendChild(el('p', {}, ['Reasons:']));
      body.appendChild(el('ul', {}, row[F.reasons].map(function (r) {
        var li = el('li', {}, [S[r[0]]]);
        if (r[1] >= 0) { li.appendChild(document.createTextNode(': ')); li.appendChild(el('code', {}, [S[r[1]]])); }
        li.appendChild(document.createTextNode(' at ')); li.appendChild(loc(row, S[r[2]], r[3]));
        return li;
      })));
    }
    body.appendChild(el('p', {}, ['Read set: '].concat(codes(m[4]), [el('br'), 'Write set: '], codes(m[5]))));
    if (D.code) {
      if (row[F.excerpt] >= 0) { body.appendChild(el('pre', {}, [S[row[F.excerpt]]])); }
      row[F.suggestions].forEach(function (g) {
        var p = el('p', {}, [el('b', {}, [S[g[0]]])]);
        if (g[1] >= 0) { p.appendChild(document.createTextNode(' (' + S[g[1]] + ')')); }
        p.appendChild(document.createTextNode(': ' + S[g[2]]));
        body.appendChild(p);
        body.appendChild(el('pre', {}, [S[g[3]]]));
      });
    } else {
      var n = row[F.suggestion_count];
      var app = D.apps[row[F.app]];
      body.appendChild(el('p', {}, [el('a', { 'class': 'full', href: 'apps/' + app[1] + '.html#t-' + id },
        ['Code' + (n ? ' and ' + n + ' suggested rewrite' + (n === 1 ? '' : 's') : '') + " on the application's page"])]));
    }
    var tr = el('tr', { 'class': 'detail', id: 'd-' + id }, [el('td', { colspan: String(columns) }, [body])]);
    tr.hidden = !state.open[id];
    return tr;
  }
  function render() {
    var mode = value('f-mode');
    D.modes.forEach(function (m) { $('transactions-' + m).hidden = m !== mode; });
    var table = $('transactions-' + mode), size = D.page_size;
    var pages = Math.max(1, Math.ceil(state.matching.length / size));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    var start = state.page * size, shown = state.matching.slice(start, start + size);
    var columns = table.querySelectorAll('thead th').length;
    var body = document.createElement('tbody');
    shown.forEach(function (row) { body.appendChild(summaryRow(mode, row)); body.appendChild(detailRow(mode, row, columns)); });
    table.replaceChild(body, table.tBodies[0]);
    D.modes.forEach(function (m) { if (m !== mode) { var t = $('transactions-' + m); t.replaceChild(document.createElement('tbody'), t.tBodies[0]); } });
    var total = D.rows.filter(function (row) { return perMode(row, mode); }).length;
    $('shown').textContent = state.matching.length + ' of ' + total + ' transactions shown';
    var info = state.matching.length ? 'rows ' + (start + 1) + '\u2013' + (start + shown.length) + ', page ' + (state.page + 1) + ' of ' + pages : 'no row matches';
    document.querySelectorAll('.page-info').forEach(function (span) { span.textContent = info; });
    document.querySelectorAll('.pager button').forEach(function (b) {
      var back = b.dataset.page === 'first' || b.dataset.page === 'prev';
      b.disabled = back ? state.page === 0 : state.page >= pages - 1;
    });
    table.querySelectorAll('th[data-key]').forEach(function (th) {
      if (th.dataset.key === state.sort) { th.setAttribute('aria-sort', state.direction === 1 ? 'ascending' : 'descending'); }
      else { th.removeAttribute('aria-sort'); }
    });
    var select = $('f-scope');
    Array.prototype.forEach.call(select.options, function (o) { o.textContent = o.textContent.replace(/\(\d+\)$/, '(' + D.counts[o.value][mode] + ')'); });
  }
  function apply() {
    var mode = value('f-mode');
    state.matching = sorted(matches(mode), mode);
    state.page = 0;
    render();
  }
  document.querySelectorAll('table.txns th[data-key] button.sort').forEach(function (button) {
    button.addEventListener('click', function () {
      var key = button.closest('th').dataset.key;
      state.direction = state.sort === key && state.direction === 1 ? -1 : 1;
      state.sort = key;
      apply();
    });
  });
  document.querySelectorAll('#filters button').forEach(function (button) {
    button.addEventListener('click', function () {
      document.querySelectorAll('#filters button').forEach(function (b) { b.classList.remove('active'); });
      button.classList.add('active');
      state.verdict = button.dataset.verdict;
      apply();
    });
  });
  document.querySelectorAll('.pager button').forEach(function (button) {
    button.addEventListener('click', function () {
      var pages = Math.ceil(state.matching.length / D.page_size);
      state.page = { first: 0, prev: state.page - 1, next: state.page + 1, last: pages - 1 }[button.dataset.page];
      render();
      if (button.closest('#pager-bottom')) { $('pager').scrollIntoView(); }  // the new page starts at the top
    });
  });
  ['search', 'f-mode', 'f-scope', 'f-app', 'f-reason', 'f-rw', 'f-mismatch', 'f-boundary', 'f-complete'].forEach(function (id) {
    var node = $(id);
    if (node) { node.addEventListener(id === 'search' ? 'input' : 'change', apply); }
  });
  var hash = decodeURIComponent(location.hash.slice(1));
  var names = D.apps.map(function (a) { return a[0]; });
  if (hash.indexOf('app=') === 0 && $('f-app') && names.indexOf(hash.slice(4)) >= 0) { $('f-app').value = hash.slice(4); }
  var link = /^t-([a-z]+)-([0-9a-f]+)$/.exec(hash);  // a link to one transaction: show its page and open it
  var target = null;
  if (link && D.modes.indexOf(link[1]) >= 0) {
    target = D.rows.filter(function (row) { return row.uid === link[2] && perMode(row, link[1]); })[0] || null;
    if (target) {
      $('f-mode').value = link[1];
      if (!inScope(target, value('f-scope'))) { $('f-scope').value = 'all'; }
      state.open[rowId(link[1], target)] = true;
    }
  }
  apply();
  if (target) {
    state.page = Math.floor(state.matching.indexOf(target) / D.page_size);
    render();
    $('t-' + rowId(link[1], target)).scrollIntoView();
  }
})();
