// File: bindings/c/src/errors.cc
//
// The ABI's version and its error reporting: codes are gRPC's, messages are kept per thread
// so that concurrent callers never read each other's.
#include "abi.h"

namespace chunkforge::capi {
namespace {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

}  // namespace

cf_status fail(cf_status code, std::string message) {
  last_error() = std::move(message);
  return code;
}

cf_status fail(const cf::Status& status) { return fail(static_cast<cf_status>(status.code), status.to_string()); }

cf_status null_argument(const char* name) {
  return fail(CF_INVALID_ARGUMENT, std::string("INVALID_ARGUMENT: ") + name + ": must not be NULL");
}

}  // namespace chunkforge::capi

extern "C" {

uint32_t cf_abi_version(void) { return CF_ABI_VERSION; }

const char* cf_last_error(void) { return chunkforge::capi::last_error().c_str(); }

const char* cf_status_name(cf_status status) {
  if (status < 0 || status > CF_UNAUTHENTICATED) return "UNKNOWN";
  return chunkforge::client::to_string(static_cast<chunkforge::client::StatusCode>(status));
}

}  // extern "C"
