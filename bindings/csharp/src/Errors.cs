// File: bindings/csharp/src/Errors.cs
//
// How the binding reports failure: a ChunkforgeException carrying the gRPC status code and the
// server's message, thrown by the managed call whose native call returned a non-zero status.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace Chunkforge {

// The gRPC status codes, same numbers (cf_status).
public enum StatusCode {
  Ok = 0, Cancelled = 1, Unknown = 2, InvalidArgument = 3, DeadlineExceeded = 4, NotFound = 5, AlreadyExists = 6,
  PermissionDenied = 7, ResourceExhausted = 8, FailedPrecondition = 9, Aborted = 10, OutOfRange = 11,
  Unimplemented = 12, Internal = 13, Unavailable = 14, DataLoss = 15, Unauthenticated = 16,
}

public sealed class ChunkforgeException : Exception {
  public ChunkforgeException(StatusCode code, string message) : base(message) { Code = code; }
  public StatusCode Code { get; private set; }
}

static class Interop {
  // Throws for a failed call, with the message the native side kept for this thread.
  public static void Check(int status) {
    if (status != 0) throw new ChunkforgeException((StatusCode)status, Utf8(Native.Methods.cf_last_error()));
  }

  public static string Utf8(IntPtr text) {
    if (text == IntPtr.Zero) return null;
    int length = 0;
    while (Marshal.ReadByte(text, length) != 0) ++length;
    byte[] bytes = new byte[length];
    Marshal.Copy(text, bytes, 0, length);
    return Encoding.UTF8.GetString(bytes);
  }

  // NUL-terminated UTF-8 for a const char* argument (null stays null).
  public static byte[] Utf8z(string text) {
    return text == null ? null : Encoding.UTF8.GetBytes(text + "\0");
  }

  public static T[] Copy<T>(IntPtr items, UIntPtr count) where T : struct {
    int n = (int)count.ToUInt64();
    T[] result = new T[n];
    int size = Marshal.SizeOf(typeof(T));
    for (int i = 0; i < n; ++i) {
      result[i] = (T)Marshal.PtrToStructure(new IntPtr(items.ToInt64() + (long)i * size), typeof(T));
    }
    return result;
  }

  public static float[] Floats(IntPtr items, uint count) {
    float[] values = new float[count];
    if (count > 0) Marshal.Copy(items, values, 0, (int)count);
    return values;
  }

  public static uint[] UInts(IntPtr items, uint count) {
    int[] raw = new int[count];
    if (count > 0) Marshal.Copy(items, raw, 0, (int)count);
    uint[] values = new uint[count];
    for (int i = 0; i < raw.Length; ++i) values[i] = unchecked((uint)raw[i]);
    return values;
  }

  public static ulong[] Ids(IntPtr items, UIntPtr count) {
    int n = (int)count.ToUInt64();
    long[] raw = new long[n];
    if (n > 0) Marshal.Copy(items, raw, 0, n);
    ulong[] ids = new ulong[n];
    for (int i = 0; i < n; ++i) ids[i] = unchecked((ulong)raw[i]);
    return ids;
  }
}

}  // namespace Chunkforge
