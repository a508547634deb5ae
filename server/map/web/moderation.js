// The live map's moderation view (chunkforge-server with an edit store; docs/map.md,
// "Moderation"): a panel that takes a moderator's token (kept for this tab only), an overlay of
// recent edits coloured by player with a legend, the history of a clicked chunk with its
// authors, and a rollback preview drawn on the map. The server answers /api/moderation/ only for
// a moderator's token or the write token; the page asks nothing until one is given.
'use strict';

const kModeratorKey = 'chunkforge-moderator';
const kWindows = [['last hour', 3600], ['last day', 86400], ['last week', 604800], ['all time', 0]];
const kEditWords = { add_object: 'added', remove_object: 'removed', move_object: 'moved', set_state: 'state set',
                     remove_structure: 'structure removed' };

function moderatorToken() { return sessionStorage.getItem(kModeratorKey) || ''; }

// One moderation query: the request in protobuf JSON (edit.proto's names), the answer likewise.
async function moderationJson(route, request) {
  const response = await fetch('../api/moderation/' + route + '?q=' + encodeURIComponent(JSON.stringify(request)),
                               { credentials: 'same-origin', headers: { 'X-Chunkforge-Moderator': moderatorToken() } });
  return response.json();
}

// A colour per player, the same on every page: the name's hash spread round the colour wheel.
function playerColour(name) {
  let hash = 7;
  for (const c of name) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  return 'hsl(' + Math.floor(((hash * 0.618033988749895) % 1) * 360) + ', 85%, 48%)';
}

// The chunks under the view, within the world.
function viewArea(map, size) {
  const b = map.getBounds(), nw = worldOf(b.getNorthWest()), se = worldOf(b.getSouthEast());
  const limit = Math.floor(2 ** 40 / size), clamp = (v) => Math.max(-limit, Math.min(limit, v));
  return { min: { x: clamp(Math.floor(nw.x / size)), z: clamp(Math.floor(nw.z / size)) },
           max: { x: clamp(Math.floor(se.x / size)), z: clamp(Math.floor(se.z / size)) } };
}

// One stored change as a line: version, player, time, what it did.
function describeChange(e) {
  const counts = {};
  for (const edit of e.edits || []) {
    const kind = Object.keys(edit)[0];
    counts[kind] = (counts[kind] || 0) + 1;
  }
  const what = Object.entries(counts).map(([k, n]) => n + ' ' + (kEditWords[k] || k));
  if (e.reset) what.unshift('reset');
  if (e.rollback_id) what.unshift('rollback ' + e.rollback_id);
  const at = Number(e.at || 0);
  const when = at ? new Date(at * 1000).toISOString().slice(0, 19).replace('T', ' ') : 'time unknown';
  return 'v' + e.version + '  ' + (e.player || '(service)') + '  ' + when + '  ' + (what.join(', ') || 'no edits');
}

function chunkOutline(x, z, size, style) {
  return L.rectangle([latLngOf(x * size, z * size), latLngOf((x + 1) * size, (z + 1) * size)], style);
}

class Moderation {
  constructor(map, control, status) {
    this.map = map;
    this.size = status.chunk_size;
    this.recent = L.layerGroup();  // the overlay: recent edits by player
    this.preview = L.layerGroup().addTo(map);
    control.addOverlay(this.recent, 'Edits by player');
    this.panel = this.buildPanel();
    map.on('moveend overlayadd', () => this.refresh());
    setInterval(() => this.refresh(), 5000);
  }

  active() { return moderatorToken() !== ''; }
  since() { const w = Number(this.window.value); return w ? Math.floor(Date.now() / 1000) - w : 0; }

  buildPanel() {
    const panel = L.control({ position: 'bottomright' });
    panel.onAdd = () => {
      const div = L.DomUtil.create('div', 'cf-panel');
      div.id = 'moderation';
      L.DomUtil.create('b', '', div).textContent = 'moderation ';
      this.token = L.DomUtil.create('input', '', div);
      Object.assign(this.token, { type: 'password', placeholder: 'moderator token', value: moderatorToken() });
      this.useToken = L.DomUtil.create('button', '', div);
      this.useToken.textContent = 'use';
      this.useToken.onclick = () => { sessionStorage.setItem(kModeratorKey, this.token.value); this.refresh(); };
      L.DomUtil.create('br', '', div);
      this.window = L.DomUtil.create('select', '', div);
      for (const [name, seconds] of kWindows) this.window.add(new Option(name, seconds));
      this.window.value = '86400';
      this.window.onchange = () => this.refresh();
      this.player = L.DomUtil.create('input', '', div);
      this.player.placeholder = 'player (empty: all)';
      const preview = L.DomUtil.create('button', '', div);
      preview.textContent = 'preview rollback in view';
      preview.onclick = () => this.showPreview();
      this.legend = L.DomUtil.create('div', 'cf-legend', div);
      this.summary = L.DomUtil.create('div', 'cf-summary', div);
      L.DomEvent.disableClickPropagation(div);
      L.DomEvent.disableScrollPropagation(div);
      return div;
    };
    panel.addTo(this.map);
    return panel;
  }

  // The overlay: each chunk in view edited within the window, filled with the colour of its
  // busiest player, a tooltip naming every player and their changes; the legend sums the view.
  async refresh() {
    if (!this.active() || !this.map.hasLayer(this.recent)) return;
    const found = await moderationJson('log', { area: viewArea(this.map, this.size), since: this.since(), limit: 1000 });
    this.recent.clearLayers();
    this.legend.textContent = '';
    if (found.error) { this.summary.textContent = found.error; return; }
    const chunks = new Map(), totals = new Map();
    for (const e of found.entries || []) {
      const key = e.chunk.x + ',' + e.chunk.z, who = e.player || '(service)';
      if (!chunks.has(key)) chunks.set(key, { x: Number(e.chunk.x || 0), z: Number(e.chunk.z || 0), by: new Map() });
      const by = chunks.get(key).by;
      by.set(who, (by.get(who) || 0) + 1);
      totals.set(who, (totals.get(who) || 0) + 1);
    }
    for (const c of chunks.values()) {
      const ranked = [...c.by.entries()].sort((a, b) => b[1] - a[1]);
      const colour = playerColour(ranked[0][0]);
      chunkOutline(c.x, c.z, this.size, { color: colour, weight: 1, fillColor: colour, fillOpacity: 0.45 })
        .bindTooltip('chunk ' + c.x + ', ' + c.z + ': ' + ranked.map(([p, n]) => p + ' ' + n).join(', '))
        .addTo(this.recent);
    }
    for (const [who, n] of [...totals.entries()].sort((a, b) => b[1] - a[1])) {
      const entry = L.DomUtil.create('span', '', this.legend);
      entry.innerHTML = '<b style="color:' + playerColour(who) + '">&#9632;</b> ';
      entry.append(who + ' ' + n);
      entry.onclick = () => { this.player.value = who === '(service)' ? '' : who; };
    }
    if (found.truncated) L.DomUtil.create('span', '', this.legend).textContent = '(the newest 1,000 changes)';
  }

  // A clicked chunk's history: its newest 20 changes with their authors, as popup lines.
  async history(cx, cz) {
    if (!this.active()) return [];
    const found = await moderationJson('log', { area: { min: { x: cx, z: cz }, max: { x: cx, z: cz } }, limit: 20 });
    if (found.error) return ['history: ' + found.error];
    const lines = (found.entries || []).map(describeChange);
    return lines.length ? ['history, newest first:'].concat(lines) : ['history: never edited'];
  }

  // What rolling back the player (or everyone) in view over the window would change, drawn
  // dashed; conflicts (another player's later work on it) in red. Nothing is applied.
  async showPreview() {
    if (!this.active()) { this.summary.textContent = 'give a moderator token first'; return; }
    const who = this.player.value.trim();
    const found = await moderationJson('rollback-preview',
                                       { area: viewArea(this.map, this.size), player: who, since: this.since() });
    this.preview.clearLayers();
    if (found.error) { this.summary.textContent = found.error; return; }
    for (const v of found.versions || []) {
      chunkOutline(Number(v.chunk.x || 0), Number(v.chunk.z || 0), this.size,
                   { color: '#ff9f0a', weight: 2, dashArray: '6 4', fillOpacity: 0.15, interactive: false })
        .addTo(this.preview);
    }
    for (const c of found.conflicts || []) {
      chunkOutline(Number(c.chunk.x || 0), Number(c.chunk.z || 0), this.size, { color: '#ff3b30', weight: 3, fill: false })
        .bindTooltip(c.player + ' v' + c.version + ': ' + c.reason).addTo(this.preview);
    }
    this.summary.textContent = 'rolling back ' + (who || 'everyone') + ' in view would change ' +
      Number(found.chunks || 0) + ' chunks, undo ' + Number(found.changes_undone || 0) + ' changes (' +
      Number(found.edits_undone || 0) + ' edits); ' + Number(found.conflict_count || 0) +
      ' conflicts. Nothing applied: apply with chunkforge edits rollback or the Rollback RPC.';
  }
}
