// PLACEHOLDER while the postgres store is written: replaced before it lands.
#include "store_backends.h"

namespace chunkforge::server {

std::unique_ptr<EditStore> open_postgres_store(const std::string& location) {
  throw StoreError("postgres store '" + location + "': not built yet");
}

}  // namespace chunkforge::server
