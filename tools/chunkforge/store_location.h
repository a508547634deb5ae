// Where a server keeps its edits, as the `chunkforge` commands that open the store directly
// name it (`edits`, `world`): --data DIR (the server's, SQLite at DIR/edits.db) or --store URI.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace chunkforge::tool {

struct StoreLocation {
  std::optional<std::string> data_dir, uri;
  std::string location() const { return uri ? *uri : "sqlite:" + *data_dir + "/edits.db"; }
};

inline void add_store_options(CLI::App& app, StoreLocation& where) {
  CLI::Option* data = app.add_option("--data", where.data_dir, "the server's --data DIR (SQLite: DIR/edits.db)");
  CLI::Option* uri = app.add_option("--store", where.uri, "the server's --store URI (sqlite:PATH or postgres://...)");
  data->excludes(uri);
  app.callback([&app, data, uri] {
    if (data->count() + uri->count() == 0) throw CLI::RequiredError(app.get_name() + ": --data DIR or --store URI");
  });
}

}  // namespace chunkforge::tool
