// A player walking east through the world from C#, as a Unity MonoBehaviour's Update() would:
// each frame it moves the player and polls the session's events on its own thread.
//
//   mono Walker.exe [HOST:PORT] [STEPS] [TOKEN]   (default 127.0.0.1:50051, 40 steps of 8 units)
using System;
using System.Collections.Generic;
using System.Threading;
using Chunkforge;

static class Walker {
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
        case EventKind.Error: Console.Error.WriteLine("session: " + e.ErrorMessage); break;
      }
      if (e.Chunk != null) e.Chunk.Dispose();  // a game keeps it until the chunk unloads
    }
  }

  static int Main(string[] args) {
    if (args.Length > 0 && (args[0] == "--help" || args[0] == "-h")) {
      Console.WriteLine("usage: mono Walker.exe [HOST:PORT] [STEPS] [TOKEN]\n\n" +
                        "Walks a player east through the world served at HOST:PORT (default 127.0.0.1:50051),\n" +
                        "STEPS steps of 8 units (default 40), through the C# binding, printing loads and unloads.");
      return 0;
    }
    string target = args.Length > 0 ? args[0] : "127.0.0.1:50051";
    int steps = args.Length > 1 ? int.Parse(args[1]) : 40;
    try {
      using (var client = Client.Connect(target, new ConnectOptions { BearerToken = args.Length > 2 ? args[2] : null }))
      using (var session = Session.Start(client, 0, 0, new SessionOptions { ViewRadius = 2 })) {
        var events = new List<ViewEvent>();
        double x = 0;
        for (int step = 0; step < steps && session.Running; ++step) {
          Thread.Sleep(50);  // a frame or three
          Drain(session, events);
          x += 8;
          session.SetPosition(x, 0);
        }
        for (int frame = 0; frame < 250; ++frame) {  // the last chunks may be on their way: up to 5 s
          Thread.Sleep(20);
          Drain(session, events);
          if (session.Stats.LoadedChunks == 25 && session.Stats.QueuedEvents == 0) break;
        }
        var stats = session.Stats;
        Console.WriteLine("walked to x = " + x + ": " + stats.LoadedChunks + " chunks loaded, " +
                          stats.ChunksDownloaded + " downloaded, " + stats.ChunksFromCache + " from the local cache");
      }
      return 0;
    } catch (ChunkforgeException e) {
      Console.Error.WriteLine(e.Message);
      return 1;
    }
  }
}
