// File: bindings/csharp/src/Client.cs
//
// A connection to a chunkforge world server from C#: world info, one chunk, a region, structure
// search, health and edits. Every call blocks the calling thread; a Client may be used from
// many threads at once (docs/engines.md, "Unity").
//
//   using (var client = Client.Connect("127.0.0.1:50051", new ConnectOptions { BearerToken = "s3cret" }))
//   using (Chunk chunk = client.Chunk(3, -2)) { foreach (var o in chunk.Objects) Spawn(o); }
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Chunkforge {

// Each field as cf_connect_options documents it: 0 is the default, a value out of range makes
// Connect throw ChunkforgeException (InvalidArgument, naming the field).
public sealed class ConnectOptions {
  public uint DeadlineMs = 10000;  // each call; 1 to 3600000
  public int MaxAttempts = 4;      // of a call failing with UNAVAILABLE; 1 to 100
  public bool Tls;
  public string TlsRootCertificates;  // PEM text; null: the system's roots
  public string TlsServerName;
  public string BearerToken;
}

public sealed class ChunkOptions {
  public bool IncludeTerrain;
  public uint TerrainStep;
  public uint[] Layers;  // null: all
}

public sealed class CatalogEntry {
  public uint Id;
  public string Name, Color;
  public double FootprintRadius, SizeX, SizeZ, Height;
}

public sealed class WorldInfo {
  public string Name, Fingerprint;
  public ulong Seed;
  public uint GeneratorVersion, ChunkSize;
  public double SeaLevel;
  public CatalogEntry[] Biomes, Materials, Resources, Structures;
}

public sealed unsafe class Client : IDisposable {
  readonly Native.ClientHandle handle;

  // The C ABI this binding is written against (chunkforge_c.h, CF_ABI_VERSION): a library of
  // this ABI or a later one works.
  public const uint AbiVersion = 2;

  Client(Native.ClientHandle handle) { this.handle = handle; }
  internal Native.ClientHandle Handle { get { return handle; } }

  // Checks that the native library speaks this binding's ABI, then makes the client (it
  // connects on its first call).
  public static Client Connect(string target, ConnectOptions options = null) {
    if (Native.Methods.cf_abi_version() < AbiVersion) {
      throw new ChunkforgeException(StatusCode.FailedPrecondition,
          "FAILED_PRECONDITION: libchunkforge_c has ABI " + Native.Methods.cf_abi_version() + ", this binding needs " +
          AbiVersion);
    }
    options = options ?? new ConnectOptions();
    Native.ConnectOptions native;
    Native.Methods.cf_connect_options_init(out native);
    native.DeadlineMs = options.DeadlineMs;
    native.MaxAttempts = options.MaxAttempts;
    native.Tls = options.Tls ? 1 : 0;
    byte[] roots = Interop.Utf8z(options.TlsRootCertificates), name = Interop.Utf8z(options.TlsServerName),
           token = Interop.Utf8z(options.BearerToken);
    fixed (byte* r = roots, n = name, t = token) {
      native.TlsRootCertificates = (IntPtr)r;
      native.TlsServerName = (IntPtr)n;
      native.BearerToken = (IntPtr)t;
      Native.ClientHandle client;
      Interop.Check(Native.Methods.cf_client_connect(Interop.Utf8z(target), &native, out client));
      return new Client(client);
    }
  }

  public WorldInfo WorldInfo() {
    Native.WorldInfo info;
    Interop.Check(Native.Methods.cf_client_world_info(handle, out info));
    return new WorldInfo {
      Name = Interop.Utf8(info.Name), Fingerprint = Interop.Utf8(info.Fingerprint), Seed = info.Seed,
      GeneratorVersion = info.GeneratorVersion, ChunkSize = info.ChunkSize, SeaLevel = info.SeaLevel,
      Biomes = Entries(info.Biomes, info.BiomeCount), Materials = Entries(info.Materials, info.MaterialCount),
      Resources = Entries(info.Resources, info.ResourceCount),
      Structures = Entries(info.Structures, info.StructureCount),
    };
  }

  public bool Healthy() {
    int serving;
    Interop.Check(Native.Methods.cf_client_health(handle, out serving));
    return serving != 0;
  }

  public Chunk Chunk(long x, long z, ChunkOptions options = null) {
    return WithOptions(options, native => {
      Native.ChunkHandle chunk;
      Interop.Check(Native.Methods.cf_client_chunk(handle, x, z, native, out chunk));
      return new Chunk(chunk);
    });
  }

  // The square of `radius` chunks around (x, z), nearest first, as they arrive. Dispose each.
  public IEnumerable<Chunk> Region(long x, long z, uint radius, ChunkOptions options = null) {
    return Chunks(WithOptions(options, native => {
      Native.RegionHandle opened;
      Interop.Check(Native.Methods.cf_client_region(handle, x, z, radius, native, out opened));
      return opened;
    }));
  }

  static IEnumerable<Chunk> Chunks(Native.RegionHandle region) {
    using (region) {
      while (true) {
        Native.ChunkHandle chunk;
        Interop.Check(Native.Methods.cf_region_next(region, out chunk));
        if (chunk.IsInvalid) yield break;
        yield return new Chunk(chunk);
      }
    }
  }

  public Structure[] Locate(string type, long x, long z, double radius = 2048, uint limit = 10) {
    Structure[] found = new Structure[limit];
    fixed (Structure* output = found) {
      UIntPtr count;
      Interop.Check(Native.Methods.cf_client_locate(handle, Interop.Utf8z(type), x, z, radius, limit, (IntPtr)output,
                                                    (UIntPtr)limit, out count));
      Array.Resize(ref found, (int)Math.Min(count.ToUInt64(), limit));
    }
    return found;
  }

  public EditResult Edit(EditBatch batch) {
    Native.EditResult result;
    Interop.Check(Native.Methods.cf_client_edit(handle, batch.Handle, out result));
    return new EditResult {
      Versions = Interop.Copy<Native.ChunkVersion>(result.Versions, result.VersionCount),
      AddedIds = Interop.Ids(result.AddedIds, result.AddedCount), RequestId = Interop.Utf8(result.RequestId),
    };
  }

  public void Dispose() { handle.Dispose(); }

  internal delegate T WithNative<T>(Native.ChunkOptions* native);

  // Runs `call` with the native form of `options` (null when none).
  internal static T WithOptions<T>(ChunkOptions options, WithNative<T> call) {
    if (options == null) return call(null);
    fixed (uint* layers = options.Layers) {
      Native.ChunkOptions native = ToNative(options, layers);
      return call(&native);
    }
  }

  internal static Native.ChunkOptions ToNative(ChunkOptions options, uint* layers) {
    return new Native.ChunkOptions {
      IncludeTerrain = options.IncludeTerrain ? 1 : 0, TerrainStep = options.TerrainStep, Layers = (IntPtr)layers,
      LayerCount = (UIntPtr)(options.Layers == null ? 0u : (uint)options.Layers.Length),
    };
  }

  static CatalogEntry[] Entries(IntPtr items, UIntPtr count) {
    Native.CatalogEntry[] native = Interop.Copy<Native.CatalogEntry>(items, count);
    CatalogEntry[] entries = new CatalogEntry[native.Length];
    for (int i = 0; i < native.Length; ++i) {
      Native.CatalogEntry e = native[i];
      entries[i] = new CatalogEntry { Id = e.Id, Name = Interop.Utf8(e.Name), Color = Interop.Utf8(e.Color),
                                      FootprintRadius = e.FootprintRadius, SizeX = e.SizeX, SizeZ = e.SizeZ,
                                      Height = e.Height };
    }
    return entries;
  }
}

}  // namespace Chunkforge
