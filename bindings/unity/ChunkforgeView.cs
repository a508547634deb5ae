// The Unity package's sample (Samples~/Walker): a MonoBehaviour that keeps a chunkforge view
// around its transform. The session is opened without blocking in Start(), polled in Update()
// on the main thread, and disposed in OnDestroy() (its native threads must not outlive play
// mode). Each loaded chunk gets an empty GameObject at its origin; a game would build its mesh
// and spawn its objects there. `using UnityEngine;` beside `using Chunkforge;` compiles: the
// binding's event is ViewEvent, not Event.
using System.Collections.Generic;
using Chunkforge;
using UnityEngine;

public class ChunkforgeView : MonoBehaviour {
  public string server = "127.0.0.1:50051";
  public string token = "";
  public uint viewRadius = 4;
  public uint lodRadius = 0;
  public bool generateLocally = true;

  Client client;
  Session session;
  readonly List<ViewEvent> events = new List<ViewEvent>();
  readonly Dictionary<long, GameObject> chunks = new Dictionary<long, GameObject>();

  void Start() {
    client = Client.Connect(server, new ConnectOptions { BearerToken = token == "" ? null : token });
    var options = new SessionOptions { ViewRadius = viewRadius, LodRadius = lodRadius, GenerateLocally = generateLocally };
    session = Session.Open(client, transform.position.x, transform.position.z, options);
  }

  static long Key(long x, long z) { return (x << 32) ^ (z & 0xffffffffL); }

  void Update() {
    session.SetPosition(transform.position.x, transform.position.z);
    events.Clear();
    session.Poll(events, 64);
    foreach (ViewEvent e in events) {
      if (e.Kind == EventKind.Load) {
        var marker = new GameObject("chunk " + e.X + ", " + e.Z);
        marker.transform.position = new Vector3((float)e.Chunk.OriginX, 0, (float)e.Chunk.OriginZ);
        chunks[Key(e.X, e.Z)] = marker;
      } else if (e.Kind == EventKind.Unload) {
        GameObject marker;
        if (chunks.TryGetValue(Key(e.X, e.Z), out marker)) Destroy(marker);
        chunks.Remove(Key(e.X, e.Z));
      } else if (e.Kind == EventKind.Error) {
        Debug.LogWarning("chunkforge: " + e.ErrorMessage);
      }
      if (e.Chunk != null) e.Chunk.Dispose();  // a game keeps it while it builds from it
      if (e.Tile != null) e.Tile.Dispose();
    }
  }

  void OnDestroy() {
    if (session != null) session.Dispose();
    if (client != null) client.Dispose();
  }
}
