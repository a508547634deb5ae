// Stubs of the few UnityEngine types the Unity package's sample uses, for compiling the package
// with mcs where Unity is not installed (tests/bindings/bundle_test.sh). Signatures as Unity's;
// no behaviour. UnityEngine.Event is here because it is the name the binding must not clash with.
namespace UnityEngine {

public class Object {
  public string name;
  public static void Destroy(Object target) {}
}

public class Component : Object {
  public Transform transform;
}

public class Behaviour : Component {
  public bool enabled;
}

public class MonoBehaviour : Behaviour {}

public class Transform : Component {
  public Vector3 position;
}

public class GameObject : Object {
  public GameObject(string name) { this.name = name; }
  public Transform transform = new Transform();
}

public struct Vector3 {
  public float x, y, z;
  public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
}

public static class Debug {
  public static void LogWarning(object message) {}
}

public class Event {
  public static Event current;
}

}  // namespace UnityEngine
