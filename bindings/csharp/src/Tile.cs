// File: bindings/csharp/src/Tile.cs
//
// A LOD tile from C# (docs/lod.md): 2^Level x 2^Level chunks drawn from a lattice of terrain
// samples, the structures touching it and each resource layer's expected objects per cell. It
// owns a native tile handle: Dispose it when the tile unloads or a newer copy of its key comes.
//
//   for (uint j = 0; j < tile.Samples; ++j) for (uint i = 0; i < tile.Samples; ++i)
//     mesh.Vertex(tile.MinX + i * tile.Step, heights[j * tile.Samples + i], tile.MinZ + j * tile.Step);
using System;
using System.Runtime.InteropServices;

namespace Chunkforge {

public sealed unsafe class Tile : IDisposable {
  readonly Native.TileHandle handle;
  readonly Native.TileView view;

  internal Tile(Native.TileHandle handle) {
    this.handle = handle;
    Interop.Check(Native.Methods.cf_tile_get_view(handle, out view));
  }

  public uint Level { get { return view.Level; } }
  public long X { get { return view.X; } }  // the tile's place at its level
  public long Z { get { return view.Z; } }
  // The ground it covers, world units: [MinX, MaxX) x [MinZ, MaxZ).
  public long MinX { get { return view.MinX; } }
  public long MinZ { get { return view.MinZ; } }
  public long MaxX { get { return view.MaxX; } }
  public long MaxZ { get { return view.MaxZ; } }
  public uint GeneratorVersion { get { return view.GeneratorVersion; } }
  // Terrain samples per side (0: no grid), Step world units apart; sample (i, j) at [j * Samples + i].
  public uint Samples { get { return view.Samples; } }
  public uint Step { get { return view.Step; } }
  public float[] Heights { get { return Interop.Floats(view.Height, Samples * Samples); } }
  public uint[] Biomes { get { return Interop.UInts(view.Biome, Samples * Samples); } }
  public uint[] Materials { get { return Interop.UInts(view.Material, Samples * Samples); } }
  // False at coarse levels: Structures is then empty, which proves nothing.
  public bool StructuresPlanned { get { return view.StructuresPlanned != 0; } }
  public Structure[] Structures {
    get { return Interop.Copy<Structure>(view.Structures, view.StructureCount); }
  }
  // Resource cells per side, the layers with densities, and the expected number of a layer's
  // objects in cell (ci, cj): an estimate, not a count. 0 for a layer the tile does not hold.
  public uint Cells { get { return view.Cells; } }
  public uint[] Layers { get { return Interop.UInts(view.Layers, view.LayerCount); } }
  public float ExpectedObjects(uint layer, uint ci, uint cj) {
    if (ci >= view.Cells || cj >= view.Cells) return 0;
    uint* layers = (uint*)view.Layers;
    for (uint k = 0; k < view.LayerCount; ++k) {
      if (layers[k] == layer) return ((float*)view.ExpectedObjects)[(k * view.Cells + cj) * view.Cells + ci];
    }
    return 0;
  }

  public void Dispose() { handle.Dispose(); }
}

}  // namespace Chunkforge
