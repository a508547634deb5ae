/* File: tests/bindings/capi_check.h
 *
 * What the C ABI's C tests share: CHECK (counts and prints a failed check with cf_last_error),
 * the CF_TEST_* variables bindings_with_server sets, a monotonic clock, a client with a token,
 * and waiting for a session's event as a game's frames would. Include it after defining
 * _POSIX_C_SOURCE (nanosleep, clock_gettime). */
#ifndef CHUNKFORGE_TESTS_CAPI_CHECK_H
#define CHUNKFORGE_TESTS_CAPI_CHECK_H

#include <chunkforge_c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int failures = 0;

#define CHECK(condition)                                                                                        \
  do {                                                                                                          \
    if (!(condition)) {                                                                                         \
      ++failures;                                                                                               \
      fprintf(stderr, "%s:%d: failed: %s (last error: %s)\n", __FILE__, __LINE__, #condition, cf_last_error()); \
    }                                                                                                           \
  } while (0)

static inline const char* env(const char* name) {
  const char* value = getenv(name);
  if (value == NULL) {
    fprintf(stderr, "%s is not set: run me through bindings_with_server\n", name);
    exit(2);
  }
  return value;
}

static inline void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static inline double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static inline cf_client* connect_with(const char* token) {
  cf_connect_options options;
  cf_connect_options_init(&options);
  options.bearer_token = token;
  cf_client* client = NULL;
  CHECK(cf_client_connect(env("CF_TEST_TARGET"), &options, &client) == CF_OK);
  return client;
}

/* Polls until an event of `kind` for chunk (x, z) arrives (any chunk when x is INT64_MIN);
 * retains its chunk (NULL for others). 0 if none within 20 s. */
static inline int await_event(cf_session* session, int32_t kind, int64_t x, int64_t z, cf_event* copy,
                              cf_chunk** chunk) {
  for (int frame = 0; frame < 2000; ++frame) {
    const cf_event* events = NULL;
    size_t count = 0;
    CHECK(cf_session_poll(session, 16, &events, &count) == CF_OK);
    for (size_t i = 0; i < count; ++i) {
      if (events[i].kind != kind || (x != INT64_MIN && (events[i].x != x || events[i].z != z))) continue;
      *copy = events[i];
      if (chunk != NULL) *chunk = events[i].chunk == NULL ? NULL : cf_chunk_retain(events[i].chunk);
      return 1;
    }
    sleep_ms(10);
  }
  return 0;
}

#endif /* CHUNKFORGE_TESTS_CAPI_CHECK_H */
