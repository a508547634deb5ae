// File: bindings/csharp/src/Chunk.cs
//
// A chunk from C#: its objects and structures as blittable structs (the C layout, copied in one
// block), its terrain grid, and its canonical bytes. It owns a native chunk handle: Dispose it
// when done (the finalizer releases a forgotten one).
using System;
using System.Runtime.InteropServices;

namespace Chunkforge {

// cf_object: a point object (tree, ore node, rock) in world units.
[StructLayout(LayoutKind.Sequential)]
public struct WorldObject {
  public ulong Id;     // stable across requests and replicas
  public double X, Z;
  public float Y;      // the terrain's elevation at the object
  public float Yaw;    // degrees about y
  public uint Layer;   // WorldInfo.Resources[Layer]
  public uint Variant;
}

// cf_structure: a structure whose box touches the chunk; place it once, by Id.
[StructLayout(LayoutKind.Sequential)]
public struct Structure {
  public ulong Id;
  public long X, Z;
  public double Y, SizeX, SizeY, SizeZ;
  public uint Type, YawDegrees;
  public int Tilted;
  public uint Reserved;
}

public sealed unsafe class Chunk : IDisposable {
  readonly Native.ChunkHandle handle;
  Native.ChunkView view;
  bool viewed;  // the native view is made on first use: a game may only keep the chunk for later

  internal Chunk(Native.ChunkHandle handle) { this.handle = handle; }

  Native.ChunkView View {
    get {
      if (!viewed) {
        Interop.Check(Native.Methods.cf_chunk_get_view(handle, out view));
        viewed = true;
      }
      return view;
    }
  }

  public long X { get { return View.X; } }
  public long Z { get { return View.Z; } }
  public double OriginX { get { return View.OriginX; } }
  public double OriginZ { get { return View.OriginZ; } }
  public uint ChunkSize { get { return View.ChunkSize; } }
  public uint GeneratorVersion { get { return View.GeneratorVersion; } }
  public ulong EditVersion { get { return View.EditVersion; } }
  public int ObjectCount { get { return (int)View.ObjectCount.ToUInt64(); } }

  public WorldObject[] Objects { get { return CopyOut<WorldObject>(View.Objects, ObjectCount); } }
  public Structure[] Structures {
    get { return CopyOut<Structure>(View.Structures, (int)View.StructureCount.ToUInt64()); }
  }
  // Samples per side (0: no terrain); sample (i, j) at [j * TerrainSize + i].
  public uint TerrainSize { get { return View.TerrainSize; } }
  public uint TerrainStep { get { return View.TerrainStep; } }
  public float[] Elevation {
    get {
      float[] samples = new float[View.TerrainSize * View.TerrainSize];
      if (samples.Length > 0) Marshal.Copy(View.Elevation, samples, 0, samples.Length);
      return samples;
    }
  }
  // Biome and material ids of each sample (WorldInfo.Biomes, .Materials), laid out as Elevation.
  public uint[] Biome { get { return Interop.UInts(View.Biome, View.TerrainSize * View.TerrainSize); } }
  public uint[] Material { get { return Interop.UInts(View.Material, View.TerrainSize * View.TerrainSize); } }
  // chunkforge::chunk_hash: the hash the server records for each version, to check a copy
  // (docs/edits.md, "Checking a copy"); of a chunk as served by default (all layers, no terrain).
  public ulong Hash {
    get {
      ulong hash;
      Interop.Check(Native.Methods.cf_chunk_hash(handle, out hash));
      return hash;
    }
  }
  // The chunk's canonical encoding (chunkforge.v1.Chunk), the same bytes for every client.
  public byte[] Bytes {
    get {
      IntPtr data;
      UIntPtr size;
      Interop.Check(Native.Methods.cf_chunk_get_bytes(handle, out data, out size));
      byte[] bytes = new byte[(int)size.ToUInt64()];
      Marshal.Copy(data, bytes, 0, bytes.Length);
      return bytes;
    }
  }

  // An object's state set by an edit (empty: none).
  public byte[] ObjectState(ulong id) {
    IntPtr state;
    UIntPtr size;
    Interop.Check(Native.Methods.cf_chunk_object_state(handle, id, out state, out size));
    byte[] bytes = new byte[(int)size.ToUInt64()];
    if (bytes.Length > 0) Marshal.Copy(state, bytes, 0, bytes.Length);
    return bytes;
  }

  public void Dispose() { handle.Dispose(); }

  // Blittable structs of the C layout: one block copy, no per-field marshalling.
  static T[] CopyOut<T>(IntPtr from, int count) where T : struct {
    T[] items = new T[count];
    if (count == 0) return items;
    GCHandle pinned = GCHandle.Alloc(items, GCHandleType.Pinned);
    try {
      long bytes = (long)count * Marshal.SizeOf(typeof(T));
      Buffer.MemoryCopy((void*)from, (void*)pinned.AddrOfPinnedObject(), bytes, bytes);
    } finally {
      pinned.Free();
    }
    return items;
  }
}

}  // namespace Chunkforge
