// File: bindings/csharp/src/Session.cs
//
// A moving player's view from C#, polled on the game's thread (Unity: from Update()): no
// callback ever comes from native code. Each polled load or change carries a Chunk, and each
// tile load a Tile, that the game owns (Dispose it when it unloads). Named ViewEvent, as in the
// C++ SDK, not Event: a MonoBehaviour with `using UnityEngine;` has UnityEngine.Event.
//
//   var session = Session.Open(client, player.x, player.z, new SessionOptions { ViewRadius = 6 });
//   ...every frame: session.SetPosition(player.x, player.z);
//   events.Clear(); session.Poll(events, 64);
//   foreach (ViewEvent e in events) if (e.Kind == EventKind.Load) Spawn(e.Chunk);
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Chunkforge {

// Tile and TileUnload come only to a session with a LodRadius.
public enum EventKind { Load = 0, Unload = 1, Change = 2, Error = 3, Tile = 4, TileUnload = 5 }

public sealed class ViewEvent {
  public EventKind Kind;
  public long X, Z;                   // the chunk; for tile events, the tile's place at TileLevel
  public uint TileLevel;              // tile events
  public Chunk Chunk;                 // load, change: owned by the game
  public Tile Tile;                   // tile: owned by the game (replaces the one of its key)
  public StatusCode ErrorCode;        // error
  public string ErrorMessage;
  public ulong PreviousVersion;       // change
  public bool Replaced;               // change: sent whole; the id lists are empty
  public ulong[] RemovedObjects, PlacedObjects, StatesChanged, RemovedStructures;
}

// Each field as cf_session_options documents it: 0 is the default, a value out of range makes
// Start and Open throw ChunkforgeException (InvalidArgument, naming the field).
public sealed class SessionOptions {
  public uint ViewRadius = 4;                 // 1 to 64 (and the server's --max-radius)
  public ulong CacheBytes = 64ul << 20;       // 1 (keeps none) to 64 GiB
  public ulong EventQueueBytes = 16ul << 20;  // 64 KiB to 64 GiB; then the session stops reading, nothing is dropped
  public ChunkOptions Chunk;
  public uint LodRadius;                      // 0: no tiles; up to the server's --max-lod-radius (1024)
  public uint LodFinestLevel;                 // 0: the world's finest; at most 24
  public bool GenerateLocally;                // pristine chunks and tiles made here, the same bytes
  public uint GeneratorThreads = 2;           // 1 to 64
}

public sealed unsafe class Session : IDisposable {
  readonly Native.SessionHandle handle;

  Session(Native.SessionHandle handle) { this.handle = handle; }

  // Blocks for the world info (and, generating locally, the definition): a round trip with
  // retries. Off the main thread, or use Open.
  public static Session Start(Client client, double x, double z, SessionOptions options = null) {
    return Make(client, x, z, options, true);
  }

  // Returns at once; the session starts on a native thread of its own. Until then Poll gives
  // nothing; a start that fails is an Error event, and Running turns false.
  public static Session Open(Client client, double x, double z, SessionOptions options = null) {
    return Make(client, x, z, options, false);
  }

  static Session Make(Client client, double x, double z, SessionOptions options, bool wait) {
    options = options ?? new SessionOptions();
    Native.SessionOptions native;
    Native.Methods.cf_session_options_init(out native);
    native.ViewRadius = options.ViewRadius;
    native.CacheBytes = options.CacheBytes;
    native.EventQueueBytes = options.EventQueueBytes;
    native.LodRadius = options.LodRadius;
    native.LodFinestLevel = options.LodFinestLevel;
    native.GenerateLocally = options.GenerateLocally ? 1 : 0;
    native.GeneratorThreads = options.GeneratorThreads;
    uint[] layers = options.Chunk == null ? null : options.Chunk.Layers;
    fixed (uint* l = layers) {
      if (options.Chunk != null) native.Chunk = Client.ToNative(options.Chunk, l);
      Native.SessionHandle session;
      Interop.Check(wait ? Native.Methods.cf_session_start(client.Handle, x, z, &native, out session)
                         : Native.Methods.cf_session_open(client.Handle, x, z, &native, out session));
      return new Session(session);
    }
  }

  public void SetPosition(double x, double z) { Interop.Check(Native.Methods.cf_session_set_position(handle, x, z)); }
  public void SetRadius(uint radius) { Interop.Check(Native.Methods.cf_session_set_radius(handle, radius)); }
  public void SetLod(uint radius, uint finestLevel = 0) {
    Interop.Check(Native.Methods.cf_session_set_lod(handle, radius, finestLevel));
  }
  public bool Running { get { return Native.Methods.cf_session_running(handle) != 0; } }

  public Native.SessionStats Stats {
    get {
      Native.SessionStats stats;
      Interop.Check(Native.Methods.cf_session_get_stats(handle, out stats));
      return stats;
    }
  }

  // More figures (ABI 2): bytes received, chunks and tiles made here, tiles held.
  public Native.SessionCounters Counters {
    get {
      var counters = new Native.SessionCounters { StructSize = (uint)Marshal.SizeOf(typeof(Native.SessionCounters)) };
      Interop.Check(Native.Methods.cf_session_get_counters(handle, ref counters));
      return counters;
    }
  }

  // Appends up to maxEvents of the oldest events to `into`; returns how many.
  public int Poll(List<ViewEvent> into, int maxEvents = 64) {
    IntPtr events;
    UIntPtr count;
    Interop.Check(Native.Methods.cf_session_poll(handle, (UIntPtr)(uint)maxEvents, out events, out count));
    int n = (int)count.ToUInt64();
    Native.Event* e = (Native.Event*)events;
    for (int i = 0; i < n; ++i) into.Add(Convert(ref e[i], i));
    return n;
  }

  public void Dispose() { handle.Dispose(); }

  // The native event borrows from the session until the next poll: copy it, retain its chunk
  // or tile.
  ViewEvent Convert(ref Native.Event e, int index) {
    var out_ = new ViewEvent { Kind = (EventKind)e.Kind, X = e.X, Z = e.Z, TileLevel = e.TileLevel };
    if (e.Chunk != IntPtr.Zero) out_.Chunk = new Chunk(Native.Methods.cf_chunk_retain(e.Chunk));
    if (out_.Kind == EventKind.Tile) {
      Native.TileHandle tile;
      Interop.Check(Native.Methods.cf_session_event_tile(handle, (UIntPtr)(uint)index, out tile));
      out_.Tile = new Tile(tile);
    }
    if (out_.Kind == EventKind.Error) {
      out_.ErrorCode = (StatusCode)e.ErrorCode;
      out_.ErrorMessage = Interop.Utf8(e.ErrorMessage);
    }
    if (out_.Kind == EventKind.Change) {
      out_.PreviousVersion = e.PreviousVersion;
      out_.Replaced = e.Replaced != 0;
      out_.RemovedObjects = Interop.Ids(e.RemovedObjects, e.RemovedObjectCount);
      out_.PlacedObjects = Interop.Ids(e.PlacedObjects, e.PlacedObjectCount);
      out_.StatesChanged = Interop.Ids(e.StatesChanged, e.StatesChangedCount);
      out_.RemovedStructures = Interop.Ids(e.RemovedStructures, e.RemovedStructureCount);
    }
    return out_;
  }
}

}  // namespace Chunkforge
