/* ABI 2 of the C ABI from C11 against a real server (bindings_with_server): the local generator
 * makes exactly GetChunk's bytes and hashes; a session opened without blocking that generates
 * locally with a LOD radius loads its view byte-identical to GetChunk and polls typed tiles; a
 * session that cannot start says so in an event; a caller built against ABI 1's options still
 * starts. Every resource is released, so that valgrind and LeakSanitizer see no leak. */
#define _POSIX_C_SOURCE 199309L /* NOLINT(bugprone-reserved-identifier): the POSIX feature macro */
#include <chunkforge_c.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "capi_check.h"

/* 1 when `a` and `b` have the same canonical bytes and the same hash. */
static int same_chunk(const cf_chunk* a, const cf_chunk* b) {
  const uint8_t *bytes_a = NULL, *bytes_b = NULL;
  size_t size_a = 0, size_b = 0;
  uint64_t hash_a = 0, hash_b = 1;
  CHECK(cf_chunk_get_bytes(a, &bytes_a, &size_a) == CF_OK && cf_chunk_get_bytes(b, &bytes_b, &size_b) == CF_OK);
  CHECK(cf_chunk_hash(a, &hash_a) == CF_OK && cf_chunk_hash(b, &hash_b) == CF_OK);
  return size_a == size_b && memcmp(bytes_a, bytes_b, size_a) == 0 && hash_a == hash_b && hash_a != 0;
}

static void test_generator(cf_client* client) {
  cf_generator* generator = NULL;
  CHECK(cf_generator_new(client, &generator) == CF_OK);
  const int64_t coords[][2] = {{40, -7}, {-123, 55}, {0, 900}};
  for (size_t k = 0; k < 3; ++k) {
    cf_chunk *local = NULL, *served = NULL;
    CHECK(cf_generator_chunk(generator, coords[k][0], coords[k][1], NULL, &local) == CF_OK);
    CHECK(cf_client_chunk(client, coords[k][0], coords[k][1], NULL, &served) == CF_OK);
    CHECK(local != NULL && served != NULL && same_chunk(local, served));
    cf_chunk_release(local);
    cf_chunk_release(served);
  }
  cf_chunk* none = NULL;
  CHECK(cf_generator_chunk(generator, (int64_t)1 << 50, 0, NULL, &none) == CF_INVALID_ARGUMENT && none == NULL);
  CHECK(strstr(cf_last_error(), "coord.x") != NULL);
  cf_generator_free(generator);
}

/* Polls the session until its radius-2 view around chunk (40, 40) is loaded and `want_tiles`
 * tiles came, comparing every loaded chunk with GetChunk's and reading each tile's view. */
static void walk_local_view(cf_session* session, cf_client* client, size_t want_tiles) {
  size_t loads = 0, tiles = 0, compared = 0;
  for (int frame = 0; frame < 3000 && (loads < 25 || tiles < want_tiles); ++frame) {
    const cf_event* events = NULL;
    size_t count = 0;
    CHECK(cf_session_poll(session, 64, &events, &count) == CF_OK);
    for (size_t i = 0; i < count; ++i) {
      CHECK(events[i].kind != CF_EVENT_ERROR);
      if (events[i].kind == CF_EVENT_ERROR) fprintf(stderr, "error event: %s\n", events[i].error_message);
      if (events[i].kind == CF_EVENT_LOAD) {
        ++loads;
        cf_chunk* served = NULL;
        CHECK(cf_client_chunk(client, events[i].x, events[i].z, NULL, &served) == CF_OK);
        CHECK(same_chunk(events[i].chunk, served));
        cf_chunk_release(served);
        ++compared;
      }
      if (events[i].kind != CF_EVENT_TILE) continue;
      cf_tile* tile = NULL;
      cf_tile_view view;
      CHECK(cf_session_event_tile(session, i, &tile) == CF_OK && cf_tile_get_view(tile, &view) == CF_OK);
      CHECK(view.level == events[i].tile_level && view.x == events[i].x && view.z == events[i].z);
      CHECK(view.samples == 32 && view.height != NULL && view.material != NULL && view.chunk_size == 64);
      CHECK(view.max_x - view.min_x == ((int64_t)64 << view.level));
      CHECK(view.layer_count > 0 && view.cells > 0 && view.expected_objects != NULL);
      cf_tile_release(tile);
      ++tiles;
    }
    if (count == 0) sleep_ms(5);
  }
  CHECK(loads == 25 && tiles >= want_tiles && compared == 25);
  cf_tile* not_a_tile = NULL;
  CHECK(cf_session_event_tile(session, 100000, &not_a_tile) == CF_INVALID_ARGUMENT && not_a_tile == NULL);
}

static void test_local_session(cf_client* client) {
  cf_session_options options;
  cf_session_options_init(&options);
  options.view_radius = 2;
  options.lod_radius = 64;
  options.generate_locally = 1;
  cf_session* session = NULL;
  const double asked = seconds_now();
  CHECK(cf_session_open(client, 40 * 64 + 32, 40 * 64 + 32, &options, &session) == CF_OK);
  const double returned = seconds_now() - asked;
  CHECK(returned < 0.05); /* it never waits for the server */
  CHECK(cf_session_running(session) == 1);
  walk_local_view(session, client, 20);
  printf("C ABI: cf_session_open returned in %.2f ms; a local view of 25 chunks and 20+ tiles polled\n",
         returned * 1000);
  cf_session_stats stats;
  CHECK(cf_session_get_stats(session, &stats) == CF_OK && stats.loaded_chunks == 25);
  CHECK(stats.chunks_downloaded == 0); /* every chunk made here: none came as bytes */
  CHECK(cf_session_set_lod(session, 70000, 0) == CF_INVALID_ARGUMENT);
  CHECK(cf_session_set_lod(session, 0, 0) == CF_OK);
  cf_event unload;
  CHECK(await_event(session, CF_EVENT_TILE_UNLOAD, INT64_MIN, 0, &unload, NULL));
  cf_session_free(session);
}

static void test_open_that_fails(void) {
  cf_connect_options connect;
  cf_connect_options_init(&connect);
  connect.max_attempts = 1;
  cf_client* nowhere = NULL;
  CHECK(cf_client_connect("127.0.0.1:1", &connect, &nowhere) == CF_OK);
  cf_session* session = NULL;
  CHECK(cf_session_open(nowhere, 0, 0, NULL, &session) == CF_OK);
  cf_event failed;
  CHECK(await_event(session, CF_EVENT_ERROR, INT64_MIN, 0, &failed, NULL));
  CHECK(failed.error_code == CF_UNAVAILABLE);
  CHECK(cf_session_running(session) == 0);
  cf_session_free(session);
  /* Freed while its start is under way: nothing waits, nothing leaks. */
  CHECK(cf_session_open(nowhere, 0, 0, NULL, &session) == CF_OK);
  cf_session_free(session);
  cf_client_free(nowhere);
}

static void test_abi1_options(cf_client* client) {
  cf_session_options options;
  cf_session_options_init(&options);
  options.struct_size = (uint32_t)offsetof(cf_session_options, lod_radius); /* as ABI 1 sets it */
  options.view_radius = 1;
  cf_session* session = NULL;
  CHECK(cf_session_start(client, 0, 0, &options, &session) == CF_OK);
  cf_event load;
  CHECK(await_event(session, CF_EVENT_LOAD, 0, 0, &load, NULL));
  cf_session_free(session);
  options.struct_size = 56;
  CHECK(cf_session_start(client, 0, 0, &options, &session) == CF_INVALID_ARGUMENT && session == NULL);
}

int main(void) {
  CHECK(cf_abi_version() == 2);
  cf_client* client = connect_with(env("CF_TEST_READ_TOKEN"));
  test_generator(client);
  test_local_session(client);
  test_open_that_fails();
  test_abi1_options(client);
  cf_client_free(client);
  printf("capi_local_test: %s (%d failed checks)\n", failures == 0 ? "ok" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
