// The overview's filter box and selectors: rows whose name holds every word
// typed and whose family, host and verdict match; the count follows.
(function () {
  'use strict';
  var table = document.getElementById('overview');
  if (!table) return;
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var filter = document.getElementById('filter');
  var picks = ['family', 'group', 'verdict'].map(function (id) {
    return document.getElementById(id);
  });
  var count = document.getElementById('count');
  var text = rows.map(function (r) { return r.getAttribute('data-text').toLowerCase(); });

  function apply() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (r, i) {
      var ok = words.every(function (w) { return text[i].indexOf(w) >= 0; }) &&
        picks.every(function (p) {
          return !p.value || r.getAttribute('data-' + p.id) === p.value;
        });
      r.hidden = !ok;
      shown += ok;
    });
    count.textContent = shown;
  }
  filter.addEventListener('input', apply);
  picks.forEach(function (p) { p.addEventListener('change', apply); });
  rows.forEach(function (r) {
    r.addEventListener('click', function (e) {
      if (!e.target.closest('a')) location.href = r.getAttribute('data-href');
    });
  });
  apply();
})();
