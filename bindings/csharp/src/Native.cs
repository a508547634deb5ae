// File: bindings/csharp/src/Native.cs
//
// chunkforge_c.h as C# sees it: blittable structs laid out exactly as the C structs (fixed-size
// fields, pointers as IntPtr, size_t as UIntPtr) and the P/Invoke entry points. Nothing here
// calls back from native code into managed code: everything is polled (IL2CPP-friendly).
using System;
using System.Runtime.InteropServices;

namespace Chunkforge.Native {

[StructLayout(LayoutKind.Sequential)]
public struct ConnectOptions {
  public uint StructSize;
  public uint DeadlineMs;
  public int MaxAttempts;
  public int Tls;
  public IntPtr TlsRootCertificates, TlsServerName, BearerToken;  // UTF-8, NUL-terminated
}

[StructLayout(LayoutKind.Sequential)]
public struct CatalogEntry {
  public uint Id, Reserved;
  public IntPtr Name, Color;
  public double FootprintRadius, SizeX, SizeZ, Height;
}

[StructLayout(LayoutKind.Sequential)]
public struct WorldInfo {
  public IntPtr Name, Fingerprint;
  public ulong Seed;
  public uint GeneratorVersion, ChunkSize;
  public double SeaLevel;
  public IntPtr Biomes; public UIntPtr BiomeCount;
  public IntPtr Materials; public UIntPtr MaterialCount;
  public IntPtr Resources; public UIntPtr ResourceCount;
  public IntPtr Structures; public UIntPtr StructureCount;
}

[StructLayout(LayoutKind.Sequential)]
public struct ChunkOptions {
  public int IncludeTerrain;
  public uint TerrainStep;
  public IntPtr Layers;  // uint32_t[]
  public UIntPtr LayerCount;
}

[StructLayout(LayoutKind.Sequential)]
public struct ChunkView {
  public long X, Z;
  public double OriginX, OriginZ;
  public uint ChunkSize, GeneratorVersion;
  public ulong EditVersion;
  public IntPtr Objects; public UIntPtr ObjectCount;
  public IntPtr Structures; public UIntPtr StructureCount;
  public uint TerrainSize, TerrainStep;
  public IntPtr Elevation, Biome, Material;
}

[StructLayout(LayoutKind.Sequential)]
public struct ChunkVersion {
  public long X, Z;
  public ulong Version;
}

[StructLayout(LayoutKind.Sequential)]
public struct EditResult {
  public IntPtr Versions; public UIntPtr VersionCount;
  public IntPtr AddedIds; public UIntPtr AddedCount;
  public IntPtr RequestId;
}

[StructLayout(LayoutKind.Sequential)]
public struct SessionOptions {
  public uint StructSize, ViewRadius;
  public ulong CacheBytes, EventQueueBytes;
  public ChunkOptions Chunk;
  public uint LodRadius, LodFinestLevel;  // ABI 2
  public int GenerateLocally;
  public uint GeneratorThreads;
}

[StructLayout(LayoutKind.Sequential)]
public struct Event {
  public int Kind, ErrorCode;
  public long X, Z;
  public IntPtr Chunk, ErrorMessage;
  public ulong PreviousVersion;
  public int Replaced;
  public uint TileLevel;
  public IntPtr RemovedObjects; public UIntPtr RemovedObjectCount;
  public IntPtr PlacedObjects; public UIntPtr PlacedObjectCount;
  public IntPtr StatesChanged; public UIntPtr StatesChangedCount;
  public IntPtr RemovedStructures; public UIntPtr RemovedStructureCount;
}

[StructLayout(LayoutKind.Sequential)]
public struct SessionCounters {
  public uint StructSize;
  public int GeneratingLocally;
  public ulong BytesReceived, ChunksGenerated, TilesLoaded, TilesGenerated, TileBytesReceived, HeldTiles;
}

[StructLayout(LayoutKind.Sequential)]
public struct TileView {
  public uint Level, ChunkSize;
  public long X, Z, MinX, MinZ, MaxX, MaxZ;
  public uint GeneratorVersion, Samples, Step;
  public int StructuresPlanned;
  public IntPtr Height, Biome, Material;
  public IntPtr Structures; public UIntPtr StructureCount;
  public uint Cells, LayerCount;
  public IntPtr Layers, ExpectedObjects;
}

[StructLayout(LayoutKind.Sequential)]
public struct SessionStats {
  public ulong ChunksDownloaded, ChunksFromCache, DuplicatesIgnored, ChangesApplied, ChunksReplaced, Reconnects,
      CachedBytes, LoadedChunks, QueuedEvents, QueuedBytes;
}

// The entry points. Handles travel as SafeHandles (Handles.cs); borrowed pointers as IntPtr.
public static unsafe class Methods {
  const string Lib = "chunkforge_c";  // libchunkforge_c.so, chunkforge_c.dll, libchunkforge_c.dylib

  [DllImport(Lib)] public static extern uint cf_abi_version();
  [DllImport(Lib)] public static extern IntPtr cf_last_error();
  [DllImport(Lib)] public static extern void cf_connect_options_init(out ConnectOptions options);
  [DllImport(Lib)] public static extern int cf_client_connect(byte[] target, ConnectOptions* options,
                                                              out ClientHandle client);
  [DllImport(Lib)] public static extern void cf_client_free(IntPtr client);
  [DllImport(Lib)] public static extern int cf_client_world_info(ClientHandle client, out WorldInfo info);
  [DllImport(Lib)] public static extern int cf_client_health(ClientHandle client, out int serving);
  [DllImport(Lib)] public static extern int cf_client_chunk(ClientHandle client, long x, long z, ChunkOptions* options,
                                                            out ChunkHandle chunk);
  [DllImport(Lib)] public static extern int cf_chunk_get_view(ChunkHandle chunk, out ChunkView view);
  [DllImport(Lib)] public static extern int cf_chunk_get_bytes(ChunkHandle chunk, out IntPtr bytes, out UIntPtr size);
  [DllImport(Lib)] public static extern int cf_chunk_object_state(ChunkHandle chunk, ulong id, out IntPtr state,
                                                                  out UIntPtr size);
  [DllImport(Lib)] public static extern int cf_chunk_hash(ChunkHandle chunk, out ulong hash);
  [DllImport(Lib)] public static extern ChunkHandle cf_chunk_retain(IntPtr chunk);
  [DllImport(Lib)] public static extern void cf_chunk_release(IntPtr chunk);
  [DllImport(Lib)] public static extern int cf_client_region(ClientHandle client, long x, long z, uint radius,
                                                             ChunkOptions* options, out RegionHandle region);
  [DllImport(Lib)] public static extern int cf_region_next(RegionHandle region, out ChunkHandle chunk);
  [DllImport(Lib)] public static extern void cf_region_free(IntPtr region);
  [DllImport(Lib)] public static extern int cf_client_locate(ClientHandle client, byte[] type, long x, long z,
                                                             double radius, uint limit, IntPtr output,
                                                             UIntPtr capacity, out UIntPtr count);
  [DllImport(Lib)] public static extern int cf_edit_batch_new(out EditBatchHandle batch);
  [DllImport(Lib)] public static extern void cf_edit_batch_free(IntPtr batch);
  [DllImport(Lib)] public static extern int cf_edit_remove_object(EditBatchHandle b, long cx, long cz, ulong id);
  [DllImport(Lib)] public static extern int cf_edit_add_object(EditBatchHandle b, long cx, long cz, uint layer, float x,
                                                               float z, float yaw, uint variant);
  [DllImport(Lib)] public static extern int cf_edit_move_object(EditBatchHandle b, long cx, long cz, ulong id, float x,
                                                                float z, float yaw);
  [DllImport(Lib)] public static extern int cf_edit_remove_structure(EditBatchHandle b, long cx, long cz, ulong id);
  [DllImport(Lib)] public static extern int cf_edit_set_state(EditBatchHandle b, long cx, long cz, ulong id,
                                                              byte[] state,
                                                              UIntPtr size);
  [DllImport(Lib)] public static extern int cf_edit_expect(EditBatchHandle b, long cx, long cz, ulong version);
  [DllImport(Lib)] public static extern int cf_edit_request_id(EditBatchHandle b, byte[] requestId);
  [DllImport(Lib)] public static extern int cf_edit_author(EditBatchHandle b, byte[] player);
  [DllImport(Lib)] public static extern int cf_client_edit(ClientHandle client, EditBatchHandle batch,
                                                           out EditResult result);
  [DllImport(Lib)] public static extern void cf_session_options_init(out SessionOptions options);
  [DllImport(Lib)] public static extern int cf_session_start(ClientHandle client, double x, double z,
                                                             SessionOptions* options, out SessionHandle session);
  [DllImport(Lib)] public static extern int cf_session_open(ClientHandle client, double x, double z,
                                                            SessionOptions* options, out SessionHandle session);
  [DllImport(Lib)] public static extern int cf_session_set_lod(SessionHandle session, uint radius, uint finestLevel);
  [DllImport(Lib)] public static extern int cf_session_event_tile(SessionHandle session, UIntPtr index,
                                                                  out TileHandle tile);
  [DllImport(Lib)] public static extern int cf_tile_get_view(TileHandle tile, out TileView view);
  [DllImport(Lib)] public static extern void cf_tile_release(IntPtr tile);
  [DllImport(Lib)] public static extern int cf_generator_new(ClientHandle client, out GeneratorHandle generator);
  [DllImport(Lib)] public static extern int cf_generator_chunk(GeneratorHandle generator, long x, long z,
                                                               ChunkOptions* options, out ChunkHandle chunk);
  [DllImport(Lib)] public static extern void cf_generator_free(IntPtr generator);
  [DllImport(Lib)] public static extern int cf_session_set_position(SessionHandle session, double x, double z);
  [DllImport(Lib)] public static extern int cf_session_set_radius(SessionHandle session, uint radius);
  [DllImport(Lib)] public static extern int cf_session_running(SessionHandle session);
  [DllImport(Lib)] public static extern void cf_session_free(IntPtr session);
  [DllImport(Lib)] public static extern int cf_session_poll(SessionHandle session, UIntPtr maxEvents, out IntPtr events,
                                                            out UIntPtr count);
  [DllImport(Lib)] public static extern int cf_session_get_stats(SessionHandle session, out SessionStats stats);
  [DllImport(Lib)] public static extern int cf_session_get_counters(SessionHandle session, ref SessionCounters counters);
}

}  // namespace Chunkforge.Native
