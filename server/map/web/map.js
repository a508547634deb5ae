// The live map's page logic: Leaflet does all tiling, panning and zooming; this file only
// declares the layers the server lists (/api/status), shows the terrain under the cursor
// (/api/point), searches structures (/api/locate), shows a clicked chunk's objects (/api/chunk),
// reports the view's centre (/api/view) and, when the server watches a world file, shows its
// errors and redraws when the world changes. Moderation's panel and overlay: moderation.js.
// World x runs east and world z south: a point (x, z) is Leaflet's LatLng(-z, x) in CRS.Simple,
// where zoom z means 2^z pixels per world unit.
'use strict';

function worldOf(latlng) { return { x: latlng.lng, z: -latlng.lat }; }
function latLngOf(x, z) { return L.latLng(-z, x); }

async function getJson(url) {
  const response = await fetch(url, { credentials: 'same-origin' });
  return response.json();
}

function tileLayers(status) {
  const base = {}, overlays = {}, byName = {};
  for (const layer of status.layers) {
    const url = '../tiles/' + layer.name + '/{z}/{x}/{y}.png?v=' + status.fingerprint;
    const tiles = L.tileLayer(url, {
      tileSize: 256, minZoom: status.min_zoom, maxZoom: status.max_zoom, noWrap: true, keepBuffer: 1,
    });
    // Overlays draw nothing below their first zoom: Leaflet asks for none there.
    if (layer.overlay) tiles.options.minZoom = layer.min_zoom;
    (layer.overlay ? overlays : base)[layer.title] = tiles;
    byName[layer.name] = tiles;
  }
  return { base, overlays, byName };
}

function cursorPanel(map, world) {
  const panel = L.control({ position: 'bottomleft' });
  panel.onAdd = () => L.DomUtil.create('div', 'cf-panel');
  panel.addTo(map);
  const div = panel.getContainer();
  div.id = 'cursor';
  div.textContent = world.name;
  let pending = null;
  map.on('mousemove', (event) => {
    const p = worldOf(event.latlng);
    clearTimeout(pending);
    pending = setTimeout(async () => {
      const info = await getJson('../api/point?x=' + p.x.toFixed(2) + '&z=' + p.z.toFixed(2));
      if (info.error) return;
      div.textContent = 'x ' + Math.floor(info.x) + '  z ' + Math.floor(info.z) + '  chunk ' + info.chunk.join(',') +
        '  ' + info.biome + ' / ' + info.material + '  elevation ' + info.elevation.toFixed(1);
    }, 80);
  });
}

function searchPanel(map, status) {
  const panel = L.control({ position: 'topright' });
  panel.onAdd = () => {
    const div = L.DomUtil.create('div', 'cf-panel');
    div.id = 'search';
    const select = L.DomUtil.create('select', '', div);
    for (const name of status.structures) select.add(new Option(name, name));
    const button = L.DomUtil.create('button', '', div);
    button.textContent = 'find nearest';
    const found = L.DomUtil.create('span', '', div);
    const markers = L.layerGroup().addTo(map);
    L.DomEvent.disableClickPropagation(div);
    button.onclick = async () => {
      const c = worldOf(map.getCenter());
      const result = await getJson('../api/locate?type=' + encodeURIComponent(select.value) +
                                   '&x=' + Math.floor(c.x) + '&z=' + Math.floor(c.z));
      markers.clearLayers();
      if (result.error) { found.textContent = ' ' + result.error; return; }
      found.textContent = ' ' + result.instances.length + ' found';
      for (const s of result.instances) {
        const centre = latLngOf(s.x + s.size_x / 2, s.z + s.size_z / 2);
        L.circleMarker(centre, { radius: 7, color: '#d00' })
          .bindTooltip(select.value + ' at (' + s.x + ', ' + s.z + ')')
          .on('click', () => map.flyTo(centre, Math.max(map.getZoom(), 0)))
          .addTo(markers);
      }
    };
    return div;
  };
  panel.addTo(map);
}

function showErrors(status) {
  const box = document.getElementById('errors');
  box.hidden = status.errors.length === 0;
  box.textContent = status.errors.length === 0 ? '' :
    status.source + ' has errors; showing the last good world:\n' + status.errors.join('\n');
}

// Tells the server where the view is centred, so that its waiting tiles nearest the middle of
// the screen render first. Throttled while dragging; fetch() goes ahead of the queued tile images
// (which Leaflet asks for at low priority and cancels itself once they leave the view).
function reportView(map) {
  let last = 0;
  const send = () => {
    last = Date.now();
    const centre = worldOf(map.getCenter());
    fetch('../api/view?x=' + centre.x.toFixed(1) + '&z=' + centre.z.toFixed(1),
          { credentials: 'same-origin', priority: 'high' }).catch(() => {});
  };
  map.on('move', () => { if (Date.now() - last > 150) send(); });
  map.on('moveend zoomend', send);
}

// chunkforge-server with an edit store: an overlay outlining the edited chunks in view, redrawn
// after each move and every 3 s while shown (edits arrive from every player and replica).
function editsOverlay(map, control) {
  const outlines = L.layerGroup();
  const refresh = async () => {
    if (!map.hasLayer(outlines)) return;
    const b = map.getBounds(), nw = worldOf(b.getNorthWest()), se = worldOf(b.getSouthEast());
    const found = await getJson('../api/edits?x0=' + Math.floor(nw.x) + '&z0=' + Math.floor(nw.z) +
                                '&x1=' + Math.ceil(se.x) + '&z1=' + Math.ceil(se.z));
    outlines.clearLayers();
    const size = found.chunk_size;
    for (const [x, z, version] of found.chunks) {
      L.rectangle([latLngOf(x * size, z * size), latLngOf((x + 1) * size, (z + 1) * size)],
                  { color: '#ff3b30', weight: 2, fill: false })
        .bindTooltip('chunk ' + x + ', ' + z + ': edit version ' + version).addTo(outlines);
    }
  };
  control.addOverlay(outlines, 'Edited chunks');
  map.on('moveend overlayadd', refresh);
  setInterval(refresh, 3000);
  return outlines;
}

// chunkforge-server --map-players: the live sessions as markers, refreshed every 2 s while shown.
function playersOverlay(map, control) {
  const markers = L.layerGroup().addTo(map);
  const refresh = async () => {
    if (!map.hasLayer(markers)) return;
    const found = await getJson('../api/players');
    markers.clearLayers();
    for (const p of found.players) {
      L.circleMarker(latLngOf(p.x, p.z), { radius: 6, color: '#fff', weight: 2, fillColor: '#0a84ff', fillOpacity: 1 })
        .bindTooltip('player ' + p.id + ': x ' + p.x.toFixed(1) + ', z ' + p.z.toFixed(1)).addTo(markers);
    }
  };
  control.addOverlay(markers, 'Players');
  map.on('overlayadd', refresh);
  refresh();
  setInterval(refresh, 2000);
  return markers;
}

// Click a chunk at close zoom (1/2 px per unit or closer): its outline, its objects as markers
// (hover: layer, id, variant, state) and a popup summing it up, from /api/chunk: the chunk as
// served, with its edits, and for a moderator its history with authors. The markers stay until
// the next click.
const kChunkClickZoom = -1;

function describeObject(o) {
  return o.layer + ' ' + o.id + ' at (' + o.x.toFixed(1) + ', ' + o.z.toFixed(1) + ') variant ' + o.variant +
    (o.state !== undefined ? ' state ' + o.state : '');
}

function chunkSummary(chunk, near, history) {
  const counts = {};
  for (const o of chunk.objects) counts[o.layer] = (counts[o.layer] || 0) + 1;
  const lines = ['chunk ' + chunk.chunk.join(', ') + (chunk.edit_version ? '  (edit version ' + chunk.edit_version + ')' : ''),
    chunk.objects.length + ' objects: ' + Object.entries(counts).map(([l, n]) => l + ' ' + n).join(', ')];
  for (const s of chunk.structures) lines.push(s.type + ' ' + s.id + ' at (' + s.x + ', ' + s.z + ')');
  const states = chunk.objects.filter((o) => o.state !== undefined);
  if (states.length) lines.push(states.length + ' with a state, e.g. ' + describeObject(states[0]));
  if (near) lines.push('nearest: ' + describeObject(near));
  lines.push(...history);
  const div = document.createElement('div');
  div.className = 'cf-chunk';
  div.textContent = lines.join('\n');
  return div;
}

function chunkOnClick(map, status, moderation) {
  const shown = L.layerGroup().addTo(map);
  map.on('click', async (event) => {
    if (map.getZoom() < kChunkClickZoom) return;
    const p = worldOf(event.latlng), size = status.chunk_size;
    const cx = Math.floor(p.x / size), cz = Math.floor(p.z / size);
    const [chunk, history] = await Promise.all([getJson('../api/chunk?cx=' + cx + '&cz=' + cz),
                                                moderation ? moderation.history(cx, cz) : []]);
    shown.clearLayers();
    if (chunk.error) return;
    L.rectangle([latLngOf(cx * size, cz * size), latLngOf((cx + 1) * size, (cz + 1) * size)],
                { color: '#ffd60a', weight: 2, fill: false, interactive: false }).addTo(shown);
    let near = null, best = Infinity;
    for (const o of chunk.objects) {
      const d = (o.x - p.x) ** 2 + (o.z - p.z) ** 2;
      if (d < best) { best = d; near = o; }
      L.circleMarker(latLngOf(o.x, o.z), { radius: 4, color: '#ffd60a', weight: 1, fillOpacity: 0.5,
                                           bubblingMouseEvents: false })
        .bindTooltip(describeObject(o)).addTo(shown);
    }
    L.popup({ minWidth: 340, maxWidth: 480 }).setLatLng(event.latlng).setContent(chunkSummary(chunk, near, history))
      .openOn(map);
  });
  return shown;
}

// `chunkforge map` re-reads its world file: redraw when the fingerprint changes.
function watch(status, layers) {
  let fingerprint = status.fingerprint;
  setInterval(async () => {
    const now = await getJson('../api/status');
    showErrors(now);
    if (now.fingerprint === fingerprint) return;
    fingerprint = now.fingerprint;
    for (const [name, tiles] of Object.entries(layers.byName)) {
      tiles.setUrl('../tiles/' + name + '/{z}/{x}/{y}.png?v=' + fingerprint);
    }
  }, 1000);
}

async function start() {
  const status = await getJson('../api/status');
  const map = L.map('map', { crs: L.CRS.Simple, minZoom: status.min_zoom, maxZoom: status.max_zoom, zoomSnap: 1 });
  const layers = tileLayers(status);
  layers.byName.materials.addTo(map);
  layers.byName.structures.addTo(map);
  layers.byName.objects.addTo(map);
  const control = L.control.layers(layers.base, layers.overlays, { collapsed: false }).addTo(map);
  const edits = status.edits ? editsOverlay(map, control) : null;
  const players = status.players ? playersOverlay(map, control) : null;
  const moderation = status.moderation ? new Moderation(map, control, status) : null;
  reportView(map);
  map.setView(latLngOf(0, 0), -2);
  cursorPanel(map, status);
  searchPanel(map, status);
  const chunk = chunkOnClick(map, status, moderation);
  showErrors(status);
  if (status.watching) watch(status, layers);
  window.chunkforgeMap = { map, layers, status, edits, players, moderation, chunk };  // for tests and the console
}

start();
