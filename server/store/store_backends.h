// File: server/store/store_backends.h
//
// The two EditStore implementations, for open_store (edit_store.h). Each throws StoreError
// naming the location and the reason when the store cannot be opened.
#pragma once

#include <memory>
#include <string>

#include "edit_store.h"

namespace chunkforge::server {

// A SQLite file (created if missing), in WAL mode with synchronous=FULL.
std::unique_ptr<EditStore> open_sqlite_store(const std::string& path);
// A PostgreSQL database by connection URI (postgres://user@host:port/db).
std::unique_ptr<EditStore> open_postgres_store(const std::string& uri);

}  // namespace chunkforge::server
