// The C# binding under Mono against real servers (bindings_with_server starts them and sets
// CF_TEST_*): a polled walk whose chunks it writes to the file named by its argument for the
// driver to compare, byte for byte, with the C++ SDK's; an edit and its change event; errors
// with their codes; then the measures (a radius-8 first view beside the C++ SDK's, poll's drain
// rate) and 10,000 chunks through the binding with steady RSS. Exit 0 when every check holds.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Chunkforge;

static class BindingTest {
  static int failures;

  static void Check(bool condition, string what) {
    if (condition) return;
    ++failures;
    Console.Error.WriteLine("failed: " + what);
  }

  static string Env(string name) {
    string value = Environment.GetEnvironmentVariable(name);
    if (value == null) throw new Exception(name + " is not set: run me through bindings_with_server");
    return value;
  }

  static Client Connect(string token) {
    return Client.Connect(Env("CF_TEST_TARGET"), new ConnectOptions { BearerToken = token });
  }

  // Polls as a game's frames would until `done` holds (20 s at most); every event to `seen`.
  static bool PollUntil(Session session, List<ViewEvent> seen, Func<bool> done) {
    var watch = Stopwatch.StartNew();
    while (!done()) {
      if (watch.ElapsedMilliseconds > 20000) return false;
      if (session.Poll(seen, 64) == 0) Thread.Sleep(1);
    }
    return true;
  }

  static string Hex(byte[] bytes) {
    var text = new StringBuilder(bytes.Length * 2);
    foreach (byte b in bytes) text.Append(b.ToString("x2"));
    return text.ToString();
  }

  // A player walking 6 chunks east (11 columns of 5 chunks seen) with a radius-2 view, each
  // step waited for until exactly its view is loaded; every chunk loaded goes to `file`.
  static void Walk(Client client, string file) {
    var loaded = new Dictionary<string, Chunk>();
    var inView = new HashSet<string>();
    var events = new List<ViewEvent>();
    int seen = 0;
    using (var session = Session.Start(client, 32, 32, new SessionOptions { ViewRadius = 2 })) {
      for (int step = 0; step <= 12; ++step) {
        double x = 32 + step * 32;
        session.SetPosition(x, 32);
        var expected = new HashSet<string>();
        long centre = (long)Math.Floor(x / 64);
        for (long cx = centre - 2; cx <= centre + 2; ++cx) {
          for (long cz = -2; cz <= 2; ++cz) expected.Add(cx + " " + cz);
        }
        Check(PollUntil(session, events, () => {
          for (; seen < events.Count; ++seen) {
            ViewEvent e = events[seen];
            Check(e.Kind == EventKind.Load || e.Kind == EventKind.Unload, "only loads and unloads: " + e.Kind);
            string key = e.X + " " + e.Z;
            if (e.Kind == EventKind.Unload) Check(inView.Remove(key), "an unload of a loaded chunk");
            if (e.Kind != EventKind.Load) continue;
            Check(inView.Add(key), "a chunk loaded twice");
            Check(e.Chunk.X == e.X && e.Chunk.Z == e.Z && e.Chunk.ChunkSize == 64, "a load's chunk is its own");
            loaded[key] = e.Chunk;
          }
          return inView.SetEquals(expected);
        }), "the view loads at step " + step);
      }
      Check(loaded.Count == 55, "55 chunks walked through: " + loaded.Count);
    }
    using (var output = new StreamWriter(file)) {
      foreach (var entry in loaded) output.WriteLine(entry.Key + " " + Hex(entry.Value.Bytes));
    }
    foreach (Chunk chunk in loaded.Values) chunk.Dispose();
    Console.WriteLine("walk: " + loaded.Count + " chunks written for the comparison");
  }

  // An edit by the writer, seen by a reader's session as a change event (chunk (0, 10): out of
  // the walk, whose chunks must stay the generated ones).
  static void EditAndChange(Client reader, Client writer) {
    var events = new List<ViewEvent>();
    using (var session = Session.Start(reader, 32, 10 * 64 + 32, new SessionOptions { ViewRadius = 1 })) {
      Check(PollUntil(session, events, () => events.Count(e => e.Kind == EventKind.Load) == 9), "the view loads");
      ViewEvent origin = events.First(e => e.Kind == EventKind.Load && e.X == 0 && e.Z == 10);
      ulong felled = origin.Chunk.Objects[0].Id;
      using (var batch = new EditBatch().RemoveObject(0, 10, felled).Expect(0, 10, 0)) {
        ExpectError(StatusCode.PermissionDenied, () => reader.Edit(batch));
        EditResult done = writer.Edit(batch);
        Check(done.Versions.Length == 1 && done.Versions[0].Version == 1, "the edit's new version is 1");
      }
      events.Clear();
      Check(PollUntil(session, events, () => events.Any(e => e.Kind == EventKind.Change)), "a change event");
      ViewEvent change = events.First(e => e.Kind == EventKind.Change);
      Check(change.X == 0 && change.Z == 10 && change.Chunk.EditVersion == 1, "the change is chunk (0, 10) at 1");
      Check(change.RemovedObjects.Length == 1 && change.RemovedObjects[0] == felled, "it names the felled tree");
      Check(change.Chunk.Objects.All(o => o.Id != felled), "the tree is gone from the new copy");
      using (var served = reader.Chunk(0, 10)) Check(served.Bytes.SequenceEqual(change.Chunk.Bytes), "= GetChunk");
      using (var again = new EditBatch().RemoveObject(0, 10, felled)) {
        ExpectError(StatusCode.NotFound, () => writer.Edit(again));
      }
    }
  }

  static void ExpectError(StatusCode code, Action call) {
    try {
      call();
      Check(false, "expected " + code + ", the call succeeded");
    } catch (ChunkforgeException e) {
      Check(e.Code == code, "expected " + code + ", got " + e.Code + ": " + e.Message);
    }
  }

  static void Errors(Client reader) {
    using (var anonymous = Connect(null)) {
      ExpectError(StatusCode.Unauthenticated, () => anonymous.WorldInfo());
      Check(anonymous.Healthy(), "health stays open");
    }
    ExpectError(StatusCode.InvalidArgument, () => reader.Chunk(1L << 50, 0));
    try {
      reader.Chunk(1L << 50, 0);
    } catch (ChunkforgeException e) {
      Check(e.Message.StartsWith("INVALID_ARGUMENT: coord.x: must be in"), "the message names the field: " + e.Message);
    }
    using (var session = Session.Start(reader, 0, 0, new SessionOptions { ViewRadius = 9 })) {  // the server allows 8
      var events = new List<ViewEvent>();
      Check(PollUntil(session, events, () => events.Any(e => e.Kind == EventKind.Error)), "an error event");
      ViewEvent error = events.First(e => e.Kind == EventKind.Error);
      Check(error.ErrorCode == StatusCode.InvalidArgument && error.ErrorMessage.Contains("view_radius"),
            "the error names the field: " + error.ErrorMessage);
    }
    WorldInfo info = reader.WorldInfo();
    Check(info.ChunkSize == 64 && info.Fingerprint.Length == 16 && info.Resources.Length > 0, "world info");
    Check(reader.Region(0, 0, 1).Count() == 9, "a region of radius 1");
    Check(reader.Locate(info.Structures[0].Name, 0, 0, 4000, 3).Length <= 3, "locate");
  }

  // The option rules of chunkforge_c.h through the binding: a 0 is the default, a value out of
  // range an InvalidArgument naming the field.
  static void ExpectRefused(string field, Action call) {
    try {
      call();
      Check(false, "expected " + field + " refused, the call succeeded");
    } catch (ChunkforgeException e) {
      Check(e.Code == StatusCode.InvalidArgument && e.Message.Contains(field), "refused naming " + field + ": " +
            e.Message);
    }
  }

  static void OptionRules(Client reader) {
    ExpectRefused("options.deadline_ms",
                  () => Client.Connect("127.0.0.1:1", new ConnectOptions { DeadlineMs = 3600001 }));
    ExpectRefused("options.max_attempts",
                  () => Client.Connect("127.0.0.1:1", new ConnectOptions { MaxAttempts = -1 }));
    ExpectRefused("options.event_queue_bytes",
                  () => Session.Start(reader, 0, 0, new SessionOptions { EventQueueBytes = 1000 }));
    ExpectRefused("options.view_radius", () => Session.Start(reader, 0, 0, new SessionOptions { ViewRadius = 65 }));
    var zero = new SessionOptions { ViewRadius = 0, CacheBytes = 0, EventQueueBytes = 0 };
    using (var session = Session.Start(reader, 32, 32, zero)) {
      var events = new List<ViewEvent>();
      Check(PollUntil(session, events, () => events.Count(e => e.Kind == EventKind.Load) >= 81),
            "zero options: the default radius-4 view loads");
      foreach (ViewEvent e in events) if (e.Chunk != null) e.Chunk.Dispose();
    }
  }

  static double Median(List<double> values) {
    values.Sort();
    return values[values.Count / 2];
  }

  // A radius-8 first view (289 chunks) through C#, polled as fast as it comes; milliseconds.
  static double FirstViewMs(Client client) {
    var events = new List<ViewEvent>();
    var watch = Stopwatch.StartNew();
    using (var session = Session.Start(client, 32, 32, new SessionOptions { ViewRadius = 8 })) {
      Check(PollUntil(session, events, () => events.Count >= 289), "the radius-8 view loads");
    }
    double ms = watch.Elapsed.TotalMilliseconds;
    foreach (ViewEvent e in events) if (e.Chunk != null) e.Chunk.Dispose();
    return ms;
  }

  // Events per second Poll drains from a full queue of 289 loads, reading each chunk's view.
  static double DrainRate(Client client) {
    var events = new List<ViewEvent>(289);
    using (var session = Session.Start(client, 32, 32, new SessionOptions { ViewRadius = 8 })) {
      var filling = Stopwatch.StartNew();
      while (session.Stats.QueuedEvents < 289 && filling.ElapsedMilliseconds < 20000) Thread.Sleep(1);
      var watch = Stopwatch.StartNew();
      int objects = 0;
      while (events.Count < 289 && watch.ElapsedMilliseconds < 20000) {
        int before = events.Count;
        session.Poll(events, 64);
        for (int i = before; i < events.Count; ++i) objects += events[i].Chunk.ObjectCount;  // as a game reads
      }
      double rate = events.Count / watch.Elapsed.TotalSeconds;
      Check(objects > 0, "the drained chunks have objects");
      foreach (ViewEvent e in events) if (e.Chunk != null) e.Chunk.Dispose();
      return rate;
    }
  }

  // A radius-8 first view generated here with LOD radius 1024 (Session.Open, the generator made
  // from the server's definition): milliseconds to its 289 loads, and the bytes the server sent
  // per chunk once the tiles settled (no tile event for 300 ms), beside the tiles it sent whole
  // (those an edit changed: the tests before this one removed a structure).
  static double LocalFirstViewMs(Client client, out double bytesPerChunk, out ulong tiles, out ulong tileBytes) {
    var events = new List<ViewEvent>();
    var watch = Stopwatch.StartNew();
    var options = new SessionOptions { ViewRadius = 8, LodRadius = 1024, GenerateLocally = true };
    using (var session = Session.Open(client, 32, 32, options)) {
      int loads = 0;
      double ms = 0;
      long quietSince = 0;
      while (watch.ElapsedMilliseconds < 20000) {
        events.Clear();
        int n = session.Poll(events, 64);
        foreach (ViewEvent e in events) {
          Check(e.Kind != EventKind.Error, "no error: " + e.ErrorMessage);
          if (e.Kind == EventKind.Load && ++loads == 289) ms = watch.Elapsed.TotalMilliseconds;
          if (e.Kind == EventKind.Tile) quietSince = watch.ElapsedMilliseconds;
          if (e.Chunk != null) e.Chunk.Dispose();
          if (e.Tile != null) e.Tile.Dispose();
        }
        if (loads >= 289 && watch.ElapsedMilliseconds - quietSince > 300) break;
        if (n == 0) Thread.Sleep(1);
      }
      var counters = session.Counters;
      Check(loads == 289 && counters.ChunksGenerated == 289, "the local view: " + loads + " loads");
      bytesPerChunk = (counters.BytesReceived - counters.TileBytesReceived) / 289.0;
      tiles = counters.HeldTiles;
      tileBytes = counters.TileBytesReceived;
      return ms;
    }
  }

  static void Measure(Client client) {
    FirstViewMs(client);  // the server's cache is warm already (the driver's own views)
    var views = new List<double>();
    var rates = new List<double>();
    for (int k = 0; k < 9; ++k) {
      views.Add(FirstViewMs(client));
      rates.Add(DrainRate(client));
    }
    var local = new List<double>();
    double bytesPerChunk = 0;
    ulong tiles = 0, tileBytes = 0;
    for (int k = 0; k < 5; ++k) local.Add(LocalFirstViewMs(client, out bytesPerChunk, out tiles, out tileBytes));
    string cppLocal = Environment.GetEnvironmentVariable("CF_TEST_CPP_LOCAL_FIRST_VIEW_MS");
    double cppLocalMs = cppLocal == null ? 0 : double.Parse(cppLocal, System.Globalization.CultureInfo.InvariantCulture);
    Console.WriteLine(string.Format(System.Globalization.CultureInfo.InvariantCulture,
        "C# generating locally, radius 8, LOD radius 1024, median of 5: first view {0:F1} ms (C++ SDK {1:F1} ms: " +
        "{2:F2}x); {3:F1} bytes from the server per chunk (keys of chunks and tiles), {4} tiles held, {5} bytes of " +
        "tiles an edit changed", Median(local), cppLocalMs, cppLocalMs > 0 ? Median(local) / cppLocalMs : 0,
        bytesPerChunk, tiles, tileBytes));
    Check(bytesPerChunk <= 16, "at most 16 bytes from the server per pristine chunk (" + bytesPerChunk + ")");
    string cpp = Environment.GetEnvironmentVariable("CF_TEST_CPP_FIRST_VIEW_POLLED_MS");
    double cppMs = cpp == null ? 0 : double.Parse(cpp, System.Globalization.CultureInfo.InvariantCulture);
    Console.WriteLine(string.Format(System.Globalization.CultureInfo.InvariantCulture,
        "C# under Mono, radius-8 first view, median of 9: {0:F1} ms (C++ SDK polled {1:F1} ms: {2:F2}x); " +
        "Poll drains {3:F0} events/s", Median(views), cppMs, cppMs > 0 ? Median(views) / cppMs : 0, Median(rates)));
  }

  static long RssKiB() {
    foreach (string line in File.ReadAllLines("/proc/self/status")) {
      if (!line.StartsWith("VmRSS:")) continue;
      return long.Parse(line.Split(new[] {' ', '\t'}, StringSplitOptions.RemoveEmptyEntries)[1]);
    }
    return 0;
  }

  // 10,000 chunk loads through the binding (walking back and forth over 20 chunks, radius 4;
  // after the first pass the session's local cache serves them): RSS must level off.
  static void TenThousandChunks(Client client) {
    var events = new List<ViewEvent>();
    long loads = 0, rssAt2000 = 0;
    using (var session = Session.Start(client, 32, 32, new SessionOptions { ViewRadius = 4 })) {
      for (int step = 0; loads < 10000; ++step) {
        int column = step % 40 < 20 ? step % 40 : 40 - step % 40;
        session.SetPosition(32 + column * 64, 32);
        bool loadedView = PollUntil(session, events, () => {
          foreach (ViewEvent e in events) {
            if (e.Kind == EventKind.Load) ++loads;
            if (e.Chunk != null) e.Chunk.Dispose();
          }
          events.Clear();
          return session.Stats.LoadedChunks == 81 && session.Stats.QueuedEvents == 0;
        });
        if (!loadedView) {
          Check(false, "the view loads at step " + step);
          return;
        }
        if (rssAt2000 == 0 && loads >= 2000) {
          GC.Collect();
          rssAt2000 = RssKiB();
        }
      }
    }
    GC.Collect();
    GC.WaitForPendingFinalizers();
    long rss = RssKiB();
    Console.WriteLine("10,000 chunks: " + loads + " loads, RSS " + rssAt2000 / 1024 + " MiB after 2,000, " +
                      rss / 1024 +
                      " MiB after all");
    Check(rss - rssAt2000 < 32 * 1024, "RSS grew by " + (rss - rssAt2000) / 1024 + " MiB from 2,000 to 10,000 chunks");
  }

  // ABI 2: a local generator's chunks are the server's, bytes and hash; a terrain chunk's biome
  // and material arrays; a session opened without blocking that generates locally with LOD
  // tiles loads chunks byte-identical to GetChunk and typed tiles.
  static void LocalGenerationAndTiles(Client client) {
    WorldInfo world = client.WorldInfo();
    using (var generator = LocalGenerator.Create(client))
    using (Chunk local = generator.Chunk(40, -7))
    using (Chunk served = client.Chunk(40, -7)) {
      Check(local.Hash == served.Hash && local.Hash != 0, "the local chunk's hash is the server's");
      Check(Hex(local.Bytes) == Hex(served.Bytes), "the local chunk's bytes are the server's");
      Check(local.GeneratorVersion == world.GeneratorVersion, "the chunk's generator version");
    }
    using (Chunk terrain = client.Chunk(1, 1, new ChunkOptions { IncludeTerrain = true, TerrainStep = 8 })) {
      Check(terrain.Biome.Length == 64 && terrain.Material.Length == 64, "biome and material per sample");
      Check(terrain.Material.All(m => m < world.Materials.Length), "material ids of the catalogue");
    }
    var events = new List<ViewEvent>();
    var watch = Stopwatch.StartNew();
    var options = new SessionOptions { ViewRadius = 2, LodRadius = 64, GenerateLocally = true };
    using (var session = Session.Open(client, 40 * 64 + 32, 40 * 64 + 32, options)) {
      long opened = watch.ElapsedMilliseconds;
      Check(opened < 50, "Session.Open returns at once (" + opened + " ms)");
      int loads = 0, tiles = 0;
      Check(PollUntil(session, events, () => {
        foreach (ViewEvent e in events) {
          Check(e.Kind != EventKind.Error, "no error: " + e.ErrorMessage);
          if (e.Kind == EventKind.Load && ++loads % 5 == 1) {
            using (Chunk served = client.Chunk(e.X, e.Z)) Check(Hex(e.Chunk.Bytes) == Hex(served.Bytes), "a local load");
          }
          if (e.Kind == EventKind.Tile) {
            ++tiles;
            Check(e.Tile.Samples == 32 && e.Tile.Heights.Length == 1024 && e.Tile.Level == e.TileLevel, "a tile");
            Check(e.Tile.MaxX - e.Tile.MinX == (64L << (int)e.Tile.Level), "a tile's ground");
          }
          if (e.Chunk != null) e.Chunk.Dispose();
          if (e.Tile != null) e.Tile.Dispose();
        }
        events.Clear();
        return loads == 25 && tiles >= 20;
      }), "the local view and its tiles");
      Console.WriteLine("C# local session: opened in " + opened + " ms, " + loads + " chunks and " + tiles +
                        " tiles in " + watch.ElapsedMilliseconds + " ms");
    }
  }

  // The binding's structs have the C layout (capi_test.c asserts the C sizes).
  static void Layouts() {
    Check(Marshal.SizeOf(typeof(WorldObject)) == 40 && Marshal.SizeOf(typeof(Structure)) == 72, "object layouts");
    Check(Marshal.SizeOf(typeof(Chunkforge.Native.Event)) == 120, "cf_event's layout");
    Check(Marshal.SizeOf(typeof(Chunkforge.Native.ChunkView)) == 112, "cf_chunk_view's layout");
    Check(Marshal.SizeOf(typeof(Chunkforge.Native.WorldInfo)) == 104, "cf_world_info's layout");
    Check(Marshal.SizeOf(typeof(Chunkforge.Native.SessionOptions)) == 64, "cf_session_options's layout");
    Check(Marshal.SizeOf(typeof(Chunkforge.Native.TileView)) == 136, "cf_tile_view's layout");
  }

  static int Main(string[] args) {
    Layouts();
    using (Client reader = Connect(Env("CF_TEST_READ_TOKEN")))
    using (Client writer = Connect(Env("CF_TEST_WRITE_TOKEN"))) {
      Walk(reader, args[0]);
      EditAndChange(reader, writer);
      Errors(reader);
      OptionRules(reader);
      LocalGenerationAndTiles(reader);
      if (args.Length > 1 && args[1] == "--measure") {
        Measure(reader);
        TenThousandChunks(reader);
      }
    }
    Console.WriteLine("csharp binding test: " + (failures == 0 ? "ok" : "FAILED") + " (" + failures +
                      " failed checks)");
    return failures == 0 ? 0 : 1;
  }
}
