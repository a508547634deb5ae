// open_store: the store a location names ("sqlite:PATH" or a PostgreSQL URI).
#include "edit_store.h"
#include "store_backends.h"

namespace chunkforge::server {

std::unique_ptr<EditStore> open_store(const std::string& location) {
  if (location.rfind("sqlite:", 0) == 0) return open_sqlite_store(location.substr(7));
  if (location.rfind("postgres://", 0) == 0 || location.rfind("postgresql://", 0) == 0) {
    return open_postgres_store(location);
  }
  throw StoreError("store '" + location + "': expected sqlite:PATH or a postgres:// URI");
}

}  // namespace chunkforge::server
