// File: bindings/csharp/src/Edit.cs
//
// Players' edits from C# (docs/edits.md): an EditBatch that the server applies all or nothing
// (Client.Edit), and what a committed batch returns. Positions are chunk-relative.
using System;

namespace Chunkforge {

public sealed class EditResult {
  public Native.ChunkVersion[] Versions;  // the new version of every chunk changed
  public ulong[] AddedIds;                // of the add operations, in order
  public string RequestId;
}

public sealed class EditBatch : IDisposable {
  readonly Native.EditBatchHandle handle;

  public EditBatch() { Interop.Check(Native.Methods.cf_edit_batch_new(out handle)); }
  internal Native.EditBatchHandle Handle { get { return handle; } }

  public EditBatch RemoveObject(long cx, long cz, ulong id) {
    Interop.Check(Native.Methods.cf_edit_remove_object(handle, cx, cz, id));
    return this;
  }
  public EditBatch AddObject(long cx, long cz, uint layer, float x, float z, float yaw = 0, uint variant = 0) {
    Interop.Check(Native.Methods.cf_edit_add_object(handle, cx, cz, layer, x, z, yaw, variant));
    return this;
  }
  public EditBatch MoveObject(long cx, long cz, ulong id, float x, float z, float yaw = 0) {
    Interop.Check(Native.Methods.cf_edit_move_object(handle, cx, cz, id, x, z, yaw));
    return this;
  }
  public EditBatch RemoveStructure(long cx, long cz, ulong id) {
    Interop.Check(Native.Methods.cf_edit_remove_structure(handle, cx, cz, id));
    return this;
  }
  public EditBatch SetState(long cx, long cz, ulong id, byte[] state) {
    state = state ?? new byte[0];
    Interop.Check(Native.Methods.cf_edit_set_state(handle, cx, cz, id, state, (UIntPtr)(uint)state.Length));
    return this;
  }
  public EditBatch Expect(long cx, long cz, ulong version) {
    Interop.Check(Native.Methods.cf_edit_expect(handle, cx, cz, version));
    return this;
  }
  public EditBatch RequestId(string id) {
    Interop.Check(Native.Methods.cf_edit_request_id(handle, Interop.Utf8z(id)));
    return this;
  }
  // The player the edit is made for (needs the server's write token).
  public EditBatch Author(string player) {
    Interop.Check(Native.Methods.cf_edit_author(handle, Interop.Utf8z(player)));
    return this;
  }

  public void Dispose() { handle.Dispose(); }
}

}  // namespace Chunkforge
