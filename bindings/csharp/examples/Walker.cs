// A player walking east through the world from C#, as a Unity MonoBehaviour's Update() would:
// each frame it moves the player and polls the session's events on its own thread. The session
// is opened without blocking; --generate-locally makes the pristine chunks here, --lod-radius N
// shows the LOD tiles of N chunks around.
//
//   mono Walker.exe [HOST:PORT] [STEPS] [TOKEN] [--generate-locally] [--lod-radius N]
using System;
using System.Collections.Generic;
using System.Threading;
using Chunkforge;

static class Walker {
  static int tilesHeld;

  static void Drain(Session session, List<ViewEvent> events) {
    events.Clear();
    session.Poll(events, 64);
    foreach (ViewEvent e in events) {
      switch (e.Kind) {
        case EventKind.Load:
          Console.WriteLine("load   (" + e.X + ", " + e.Z + ") " + e.Chunk.ObjectCount + " objects");
          break;
        case EventKind.Unload: Console.WriteLine("unload (" + e.X + ", " + e.Z + ")"); break;
        case EventKind.Change: Console.WriteLine("change (" + e.X + ", " + e.Z + ")"); break;
        case EventKind.Tile: ++tilesHeld; break;  // a game would draw the far ground from e.Tile
        case EventKind.TileUnload: --tilesHeld; break;
        case EventKind.Error: Console.Error.WriteLine("session: " + e.ErrorMessage); break;
      }
      if (e.Chunk != null) e.Chunk.Dispose();  // a game keeps it until the chunk unloads
      if (e.Tile != null) e.Tile.Dispose();    // and a tile until its key unloads or is replaced
    }
  }

  static int Main(string[] args) {
    var words = new List<string>();
    var options = new SessionOptions { ViewRadius = 2 };
    for (int i = 0; i < args.Length; ++i) {
      if (args[i] == "--generate-locally") options.GenerateLocally = true;
      else if (args[i] == "--lod-radius" && i + 1 < args.Length) options.LodRadius = uint.Parse(args[++i]);
      else words.Add(args[i]);
    }
    if (words.Count > 0 && (words[0] == "--help" || words[0] == "-h")) {
      Console.WriteLine("usage: mono Walker.exe [HOST:PORT] [STEPS] [TOKEN] [--generate-locally] [--lod-radius N]\n\n" +
                        "Walks a player east through the world served at HOST:PORT (default 127.0.0.1:50051),\n" +
                        "STEPS steps of 8 units (default 40), through the C# binding, printing loads and unloads.\n" +
                        "--generate-locally makes the pristine chunks here; --lod-radius N shows the LOD tiles\n" +
                        "of N chunks around.");
      return 0;
    }
    string target = words.Count > 0 ? words[0] : "127.0.0.1:50051";
    int steps = words.Count > 1 ? int.Parse(words[1]) : 40;
    try {
      using (var client = Client.Connect(target, new ConnectOptions { BearerToken = words.Count > 2 ? words[2] : null }))
      using (var session = Session.Open(client, 0, 0, options)) {
        var events = new List<ViewEvent>();
        double x = 0;
        for (int step = 0; step < steps && session.Running; ++step) {
          Thread.Sleep(50);  // a frame or three
          Drain(session, events);
          x += 8;
          session.SetPosition(x, 0);
        }
        // The last chunks (and, with a LOD radius, the first tiles) may be on their way: up to 20 s.
        for (int frame = 0; frame < 1000; ++frame) {
          Thread.Sleep(20);
          Drain(session, events);
          bool tilesIn = options.LodRadius == 0 || tilesHeld > 0;
          if (session.Stats.LoadedChunks == 25 && session.Stats.QueuedEvents == 0 && tilesIn) break;
        }
        var stats = session.Stats;
        var more = session.Counters;
        ulong entered = stats.ChunksDownloaded + more.ChunksGenerated + stats.ChunksFromCache;
        Console.WriteLine("walked to x = " + x + ": " + stats.LoadedChunks + " chunks loaded, " +
                          stats.ChunksDownloaded + " downloaded, " + more.ChunksGenerated + " generated here, " +
                          stats.ChunksFromCache + " from the local cache, " + tilesHeld + " tiles held; " +
                          more.BytesReceived + " bytes received, " +
                          (entered > 0 ? (double)more.BytesReceived / entered : 0).ToString("F1") +
                          " per chunk that entered the view");
      }
      return 0;
    } catch (ChunkforgeException e) {
      Console.Error.WriteLine(e.Message);
      return 1;
    }
  }
}
