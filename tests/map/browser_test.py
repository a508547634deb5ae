#!/usr/bin/env python3
"""The live map in a real headless Chromium, driven over the DevTools protocol.

Starts chunkforge-server on loopback ports and Debian's chromium with a fresh profile, opens
/map/, and checks: no console errors and no failed requests; the tiles are 256x256 PNGs that
are not blank; switching the base layer changes what is drawn, and so does showing a resource
layer's density; structure search puts markers;
the edits and players overlays (the server has an edit store open to edits and --map-players)
draw the chunk edited with `chunkforge edit` and a player walking over a real session
(chunkforge-walker); clicking that chunk at close zoom shows its objects and the edited state;
moderation shows two players' edits by colour, a chunk's history with its authors and a
rollback preview. Screenshots are written to the artefact directory.

Then `chunkforge map` on a world file: breaking the file shows its field-path errors on the
page while the last good world stays; fixing it clears them and changes the world.

usage: browser_test.py CHUNKFORGE_SERVER CHUNKFORGE_CLI CHUNKFORGE_WALKER SOURCE_DIR ARTEFACT_DIR
"""
import base64
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket  # python3-websocket


def free_port():
    # At random below the kernel's ephemeral range, as tests/support/free_port.h explains: a
    # released ephemeral port may become another connection's source port before we bind it.
    while True:
        port = random.randint(20000, 32767)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def wait_for(predicate, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        try:
            value = predicate()
        except OSError:  # not listening yet
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class DevTools:
    """One page target: commands by id, events kept for later inspection."""

    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=30)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise AssertionError(method + ": " + json.dumps(message["error"]))
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError("page script failed: " + json.dumps(result["exceptionDetails"]))
        return result["result"].get("value")

    def pump(self, seconds):
        """Collects events for a while (console messages, network failures)."""
        self.ws.settimeout(0.1)
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                pass
        self.ws.settimeout(30)


def start_chromium(profile):
    command = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile,
               "--remote-debugging-port=0", "--window-size=1024,768", "about:blank"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = os.path.join(profile, "DevToolsActivePort")
    wait_for(lambda: os.path.exists(port_file) and open(port_file).read().strip(), 30, "DevToolsActivePort")
    port = int(open(port_file).read().split()[0])
    return process, port


def page_target(port):
    targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
    return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")


# The tiles Leaflet has loaded for the visible base layer: size, and whether the pixels vary.
TILE_CHECK = """(() => {
  const tiles = [...document.querySelectorAll('.leaflet-tile-loaded')]
      .filter(t => t.src.includes('/tiles/' + %s + '/'));
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 256;
  const g = canvas.getContext('2d');
  return tiles.map(t => {
    g.clearRect(0, 0, 256, 256);
    g.drawImage(t, 0, 0);
    const d = g.getImageData(0, 0, 256, 256).data;
    const colours = new Set();
    for (let k = 0; k < d.length; k += 4 * 97) colours.add(d[k] + ',' + d[k + 1] + ',' + d[k + 2]);
    return {w: t.naturalWidth, h: t.naturalHeight, colours: colours.size};
  });
})()"""


def loaded_tiles(page, layer):
    return page.evaluate(TILE_CHECK % json.dumps(layer))


def screenshot(page, path):
    data = base64.b64decode(page.call("Page.captureScreenshot", format="png")["data"])
    with open(path, "wb") as f:
        f.write(data)
    return data


def problems(events):
    found = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append("console error: " + json.dumps(params.get("args"))[:300])
        elif method == "Runtime.exceptionThrown":
            found.append("exception: " + json.dumps(params.get("exceptionDetails"))[:300])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            found.append("log error: " + params["entry"].get("text", "") + " " + params["entry"].get("url", ""))
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            found.append("failed request: " + json.dumps(params)[:300])
        elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
            found.append("HTTP %d: %s" % (params["response"]["status"], params["response"]["url"]))
    return found


def check_watcher(page, cli, source_dir, artefacts, workdir):
    """`chunkforge map` re-reads its file: errors on the page for a broken one, then recovery."""
    world_file = os.path.join(workdir, "world.json")
    good = open(os.path.join(source_dir, "docs", "worlds", "default.json")).read()
    with open(world_file, "w") as f:
        f.write(good)
    port = free_port()
    tool = subprocess.Popen([cli, "map", "--world", world_file, "--listen", "127.0.0.1:%d" % port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = "http://127.0.0.1:%d" % port
        status = wait_for(lambda: json.load(urllib.request.urlopen(base + "/api/status")), 30, "chunkforge map")
        page.events.clear()
        page.call("Page.navigate", url=base + "/map/")
        wait_for(lambda: len(loaded_tiles(page, "materials")) >= 12, 60, "chunkforge map tiles")
        definition = json.loads(good)
        definition["chunk_size"] = 3  # out of range: a field-path error
        with open(world_file, "w") as f:
            json.dump(definition, f)
        shown = wait_for(lambda: page.evaluate(
            "!document.getElementById('errors').hidden && document.getElementById('errors').textContent"),
            30, "the errors on the page")
        assert "chunk_size" in shown, shown
        screenshot(page, os.path.join(artefacts, "map_world_errors.png"))
        definition["chunk_size"] = 64
        definition["seed"] = 12345
        with open(world_file, "w") as f:
            json.dump(definition, f)
        wait_for(lambda: page.evaluate("document.getElementById('errors').hidden"), 30, "the errors to clear")
        now = json.load(urllib.request.urlopen(base + "/api/status"))
        assert now["fingerprint"] != status["fingerprint"], "the new seed did not change the world"
        wait_for(lambda: any(("v=" + now["fingerprint"]) in t for t in page.evaluate(
            "[...document.querySelectorAll('.leaflet-tile-loaded')].map(t => t.src)")), 30, "redrawn tiles")
        page.pump(0.5)
        found = problems(page.events)
        assert not found, "\n".join(found)
    finally:
        tool.terminate()
        tool.wait(10)


# The first screen: materials tiles are 256 x 256 PNGs that are not blank; switching the base
# layer to biomes through Leaflet's own layer control, as a user would, changes the screen.
# Returns the materials tiles and the screenshot with biomes.
def check_base_layers(page, artefacts):
    wait_for(lambda: len(loaded_tiles(page, "materials")) >= 12, 60, "materials tiles")
    page.pump(1.0)
    tiles = loaded_tiles(page, "materials")
    assert all(t["w"] == 256 and t["h"] == 256 for t in tiles), tiles
    assert all(t["colours"] > 3 for t in tiles), "blank tiles: %s" % tiles
    before = screenshot(page, os.path.join(artefacts, "map_materials.png"))
    page.evaluate("""[...document.querySelectorAll('.leaflet-control-layers-base label')]
                     .find(l => l.textContent.includes('Biomes')).querySelector('input').click()""")
    wait_for(lambda: len(loaded_tiles(page, "biomes")) >= 12, 60, "biomes tiles")
    page.pump(1.5)
    after = screenshot(page, os.path.join(artefacts, "map_biomes.png"))
    assert before != after, "switching to biomes changed nothing on screen"
    return tiles, after


def toggle_overlay(page, title):
    page.evaluate("""[...document.querySelectorAll('.leaflet-control-layers-overlays label')]
                     .find(l => l.textContent.trim() === %s).querySelector('input').click()""" % json.dumps(title))


# A resource layer's density overlay, toggled in Leaflet's layer control: its tiles load, are
# not blank, and change the screen; toggled off again, they go.
def check_density(page, artefacts, before):
    toggle_overlay(page, "Density: forest")
    tiles = wait_for(lambda: len(loaded_tiles(page, "density.forest")) >= 12 and loaded_tiles(page, "density.forest"),
                     60, "density tiles")
    assert all(t["w"] == 256 and t["colours"] > 1 for t in tiles), tiles
    page.pump(1.0)
    shown = screenshot(page, os.path.join(artefacts, "map_density_forest.png"))
    assert shown != before, "showing the forest's density changed nothing on screen"
    toggle_overlay(page, "Density: forest")
    wait_for(lambda: not page.evaluate("chunkforgeMap.map.hasLayer(chunkforgeMap.layers.byName['density.forest'])"),
             10, "the density overlay to go")
    return len(tiles)


# Edits on a chunk through `chunkforge edit` (the server has open edits): a state on its first
# object. Returns (chunk x, chunk z, object id, state).
def edit_a_chunk(cli, base, grpc_port):
    chunk = json.load(urllib.request.urlopen(base + "/api/chunk?cx=1&cz=1"))
    object_id = chunk["objects"][0]["id"]
    subprocess.run([cli, "edit", "1", "1", "set-state", object_id, "0aff", "--server", "127.0.0.1:%d" % grpc_port],
                   check=True, stdout=subprocess.DEVNULL)
    return 1, 1, object_id, "0aff"


# A real click in the middle of the map, wherever its container puts it on screen; the popup's text.
def click_centre(page):
    x, y = page.evaluate("""(() => {
      const m = chunkforgeMap.map, p = m.latLngToContainerPoint(m.getCenter());
      const r = m.getContainer().getBoundingClientRect();
      return [r.left + p.x, r.top + p.y];
    })()""")
    page.evaluate("chunkforgeMap.map.closePopup(), true")  # it fades out: wait until it is gone
    wait_for(lambda: page.evaluate("document.querySelector('.leaflet-popup-content') === null"), 10, "no popup")
    for kind in ("mousePressed", "mouseReleased"):
        page.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
    return wait_for(lambda: page.evaluate(
        "(document.querySelector('.leaflet-popup-content') || {}).textContent"), 30, "the chunk's popup")


def centre_on_chunk(page, cx, cz, zoom):
    size = page.evaluate("chunkforgeMap.status.chunk_size")
    page.evaluate("chunkforgeMap.map.setView(L.latLng(%f, %f), %d, {animate: false}) && true" %
                  (-(cz + 0.5) * size, (cx + 0.5) * size, zoom))


# Clicking a chunk at close zoom: a popup naming it with its edit version, one marker per
# object /api/chunk lists, and the edited object's state in the popup.
def check_chunk_click(page, base, artefacts, edited):
    cx, cz, object_id, state = edited
    centre_on_chunk(page, cx, cz, 1)
    wait_for(lambda: len(loaded_tiles(page, "biomes")) >= 6, 60, "tiles at zoom 1")  # biomes: shown since above
    text = click_centre(page)
    expected = json.load(urllib.request.urlopen(base + "/api/chunk?cx=%d&cz=%d" % (cx, cz)))
    assert text.startswith("chunk %d, %d  (edit version 1)" % (cx, cz)), text
    assert any(object_id in line and line.endswith("state " + state) for line in text.split("\n")), text
    markers = page.evaluate("chunkforgeMap.chunk.getLayers().length")
    assert markers == len(expected["objects"]) + 1, (markers, len(expected["objects"]))  # and the outline
    page.pump(0.5)  # the popup fades in
    screenshot(page, os.path.join(artefacts, "map_chunk_click.png"))
    return len(expected["objects"])


# Two players' edits through `chunkforge edit --author` (open edits: the CLI speaks for anyone):
# griefer adds two objects to chunk (2, 1) and one to (3, 1), alice one to (2, 1).
def authored_edits(cli, grpc_port):
    for author, cx, k in (("griefer", 2, 0), ("griefer", 2, 1), ("griefer", 3, 0), ("alice", 2, 2)):
        subprocess.run([cli, "edit", str(cx), "1", "add", "forest", str(4 + 8 * k), "5", "--author", author,
                        "--server", "127.0.0.1:%d" % grpc_port], check=True, stdout=subprocess.DEVNULL)


def requests_to(page, part):
    return [e for e in page.events if e.get("method") == "Network.requestWillBeSent"
            and part in e["params"]["request"]["url"]]


# Moderation on the page (open edits, so any token moderates): nothing is asked before a token
# is given; then the "Edits by player" overlay fills each edited chunk and its legend names the
# players; a clicked chunk's popup lists its history with authors; a rollback preview of the
# griefer draws the two chunks it would change, sums it up, and changes nothing.
def check_moderation(page, base, artefacts):
    assert page.evaluate("chunkforgeMap.moderation !== null"), "no moderation panel"
    assert not requests_to(page, "/api/moderation/"), "asked before a token was given"
    centre_on_chunk(page, 2, 1, 0)
    page.evaluate("document.querySelector('#moderation input').value = 'local-moderator';"
                  "document.querySelector('#moderation button').click(); true")
    toggle_overlay(page, "Edits by player")
    legend = wait_for(lambda: "griefer 3" in page.evaluate("document.querySelector('#moderation .cf-legend').textContent")
                      and page.evaluate("document.querySelector('#moderation .cf-legend').textContent"), 20,
                      "the legend of recent edits")
    assert "alice 1" in legend, legend
    filled = page.evaluate("chunkforgeMap.moderation.recent.getLayers().length")
    assert filled == 3, "chunks (1, 1), (2, 1) and (3, 1) filled: %d" % filled  # (1, 1): the state set above
    text = click_centre(page)
    lines = text.split("\n")
    assert "history, newest first:" in lines, text
    history = lines[lines.index("history, newest first:") + 1:]
    assert len(history) == 3 and "alice" in history[0] and all("griefer" in l for l in history[1:]), history
    assert all(l.endswith("1 added") for l in history), history
    page.evaluate("document.querySelector('#moderation input[placeholder^=player]').value = 'griefer';"
                  "[...document.querySelectorAll('#moderation button')].find(b => b.textContent.startsWith('preview'))"
                  ".click(); true")
    summary = wait_for(lambda: page.evaluate("document.querySelector('#moderation .cf-summary').textContent"), 20,
                       "the rollback preview")
    assert "would change 2 chunks, undo 3 changes (3 edits); 0 conflicts" in summary, summary
    assert page.evaluate("chunkforgeMap.moderation.preview.getLayers().length") == 2
    page.pump(0.5)
    screenshot(page, os.path.join(artefacts, "map_moderation.png"))
    versions = [json.load(urllib.request.urlopen(base + "/api/chunk?cx=%d&cz=1" % x))["edit_version"] for x in (2, 3)]
    assert versions == [3, 1], "the preview changed the world: %s" % versions
    return len(history)


# The edits and players overlays are offered and draw what the server has: the chunk edited
# above outlined, and the walking player (chunkforge-walker over a real session) as a marker.
def check_live_overlays(page, edited, artefacts, walking):
    names = page.evaluate("[...document.querySelectorAll('.leaflet-control-layers-overlays label')]"
                          ".map(l => l.textContent.trim()).join('|')")
    assert "Edited chunks" in names and "Players" in names, names
    toggle_overlay(page, "Edited chunks")
    outlines = wait_for(lambda: page.evaluate("chunkforgeMap.edits.getLayers().map(r => r.getBounds().getCenter())"),
                        10, "the edited chunk's outline")
    size = page.evaluate("chunkforgeMap.status.chunk_size")
    cx, cz = edited[0], edited[1]
    assert [(o["lng"], o["lat"]) for o in outlines] == [((cx + 0.5) * size, -(cz + 0.5) * size)], outlines
    assert page.evaluate("document.querySelectorAll('path[stroke=\"#ff3b30\"]').length") >= 1, "no outline drawn"
    if not walking:
        print("skipped the players overlay's marker: built without the SDK's examples (chunkforge-walker)")
        return
    player = wait_for(lambda: page.evaluate(
        "chunkforgeMap.players.getLayers().map(m => m.getLatLng())[0] || null"), 20, "a player's marker")
    page.evaluate("chunkforgeMap.map.setView(L.latLng(%f, %f), -2, {animate: false}) && true" %
                  (player["lat"], player["lng"]))
    wait_for(lambda: page.evaluate("document.querySelectorAll('path[fill=\"#0a84ff\"]').length"), 10,
             "the player's marker drawn")
    screenshot(page, os.path.join(artefacts, "map_live_overlays.png"))


def run(server_binary, cli, walker_binary, source_dir, artefacts):
    os.makedirs(artefacts, exist_ok=True)
    http_port, grpc_port = free_port(), free_port()
    profile = tempfile.mkdtemp(prefix="chunkforge-chromium-")
    # An edit store open to edits and --map-players: the page offers the edits and players overlays.
    server = subprocess.Popen([server_binary, "--listen", "127.0.0.1:%d" % grpc_port, "--http",
                               "127.0.0.1:%d" % http_port, "--threads", "2", "--log-level", "warn", "--data", profile,
                               "--open-edits", "--map-players"])
    browser = walker = None
    try:
        base = "http://127.0.0.1:%d" % http_port
        wait_for(lambda: urllib.request.urlopen(base + "/healthz").status == 200, 30, "the server")
        edited = edit_a_chunk(cli, base, grpc_port)
        # A player walking east over a real session, for the players overlay (50 ms a step).
        if walker_binary != "-":
            walker = subprocess.Popen([walker_binary, "127.0.0.1:%d" % grpc_port, "4000"], stdout=subprocess.DEVNULL)
        browser, devtools_port = start_chromium(profile)
        page = DevTools(page_target(devtools_port))
        for domain in ("Runtime", "Log", "Network", "Page"):
            page.call(domain + ".enable")
        page.call("Page.navigate", url=base + "/map/")
        tiles, after = check_base_layers(page, artefacts)
        density = check_density(page, artefacts, after)

        # Structure search: markers where the planner says.
        page.evaluate("document.querySelector('#search button').click()")
        markers = wait_for(lambda: page.evaluate("document.querySelectorAll('path.leaflet-interactive').length"),
                           30, "structure markers")
        screenshot(page, os.path.join(artefacts, "map_search.png"))
        check_live_overlays(page, edited, artefacts, walker is not None)
        biomes = len(loaded_tiles(page, "biomes"))
        objects = check_chunk_click(page, base, artefacts, edited)
        authored_edits(cli, grpc_port)
        history = check_moderation(page, base, artefacts)
        page.pump(0.5)
        found = problems(page.events)
        assert not found, "\n".join(found)
        check_watcher(page, cli, source_dir, artefacts, profile)
        print("ok: %d materials tiles, %d biomes tiles, %d forest density tiles, %d markers, the edited chunk and a "
              "player drawn, a clicked chunk's %d objects, moderation (a %d-change history, the overlay, a rollback "
              "preview), the watcher showed errors and recovered; screenshots in %s"
              % (len(tiles), biomes, density, markers, objects, history, artefacts))
    finally:
        if walker:
            walker.terminate()
            walker.wait(10)
        if browser:
            browser.terminate()
            browser.wait(10)
        server.terminate()
        server.wait(10)
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    run(*sys.argv[1:6])
