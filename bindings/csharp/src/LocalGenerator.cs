// File: bindings/csharp/src/LocalGenerator.cs
//
// The world made here (docs/client-generation.md): pristine chunks with exactly the bytes the
// server serves for chunks nobody edited. Made from the server's definition, so the server must
// share it (--client-generation). A session generates by itself with
// SessionOptions.GenerateLocally; this is for a game that wants chunks outside a session.
//
//   using (var generator = LocalGenerator.Create(client))    // blocks: one call for the definition
//   using (Chunk chunk = generator.Chunk(3, -2)) Spawn(chunk);  // any thread, several at once
using System;

namespace Chunkforge {

public sealed unsafe class LocalGenerator : IDisposable {
  readonly Native.GeneratorHandle handle;

  LocalGenerator(Native.GeneratorHandle handle) { this.handle = handle; }

  public static LocalGenerator Create(Client client) {
    Native.GeneratorHandle made;
    Interop.Check(Native.Methods.cf_generator_new(client.Handle, out made));
    return new LocalGenerator(made);
  }

  // The pristine chunk (x, z); options as Client.Chunk's.
  public Chunk Chunk(long x, long z, ChunkOptions options = null) {
    return Client.WithOptions(options, native => {
      Native.ChunkHandle chunk;
      Interop.Check(Native.Methods.cf_generator_chunk(handle, x, z, native, out chunk));
      return new Chunk(chunk);
    });
  }

  public void Dispose() { handle.Dispose(); }
}

}  // namespace Chunkforge
