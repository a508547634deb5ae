// PostgreSQL edit store: not built yet. The scale-out store of docs/edits.md ("Not done yet")
// is to open a database by URI here; until then a postgres:// location is refused at start-up
// with this message, so that no replica runs believing its edits are shared.
#include "store_backends.h"

namespace chunkforge::server {

std::unique_ptr<EditStore> open_postgres_store(const std::string&) {
  throw StoreError("PostgreSQL stores are not supported by this build yet; use --data DIR (SQLite) (docs/edits.md)");
}

}  // namespace chunkforge::server
