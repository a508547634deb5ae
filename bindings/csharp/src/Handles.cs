// File: bindings/csharp/src/Handles.cs
//
// The C ABI's opaque handles as SafeHandles: freed exactly once, by Dispose or by the finalizer
// when a game forgets, and never while a native call still uses them.
using System;
using System.Runtime.InteropServices;

namespace Chunkforge.Native {

public abstract class Handle : SafeHandle {
  protected Handle() : base(IntPtr.Zero, true) {}
  public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
}

public sealed class ClientHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_client_free(handle); return true; }
}

public sealed class ChunkHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_chunk_release(handle); return true; }
}

public sealed class RegionHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_region_free(handle); return true; }
}

public sealed class EditBatchHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_edit_batch_free(handle); return true; }
}

public sealed class TileHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_tile_release(handle); return true; }
}

public sealed class GeneratorHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_generator_free(handle); return true; }
}

public sealed class SessionHandle : Handle {
  protected override bool ReleaseHandle() { Methods.cf_session_free(handle); return true; }
}

}  // namespace Chunkforge.Native
