/* The C ABI (chunkforge_c.h) from C11 against real servers (tests/bindings/with_server.cc starts
 * them and sets CF_TEST_*): connecting with a token and over TLS, world info, a chunk, a region,
 * locate, health, edits with their errors, and a polled session with its load, change and error
 * events. Every resource is released, so that ASan/LeakSanitizer and valgrind see no leak.
 * Exit 0 when every check holds; each failed check is printed. */
#define _POSIX_C_SOURCE 199309L /* NOLINT(bugprone-reserved-identifier): the POSIX feature macro */
#include <chunkforge_c.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

/* The layouts other languages copy (docs/engines.md): no padding of the compiler's choosing. */
_Static_assert(sizeof(cf_object) == 40, "cf_object");
_Static_assert(sizeof(cf_structure) == 72, "cf_structure");
_Static_assert(sizeof(cf_event) == 120, "cf_event");
_Static_assert(sizeof(cf_chunk_view) == 112, "cf_chunk_view");
_Static_assert(sizeof(cf_world_info) == 104, "cf_world_info");
_Static_assert(sizeof(cf_session_options) == 64, "cf_session_options");
_Static_assert(offsetof(cf_session_options, lod_radius) == 48, "ABI 1's cf_session_options ends there");
_Static_assert(sizeof(cf_tile_view) == 136, "cf_tile_view");

static void test_abi_and_errors(void) {
  CHECK(cf_abi_version() == CF_ABI_VERSION);
  CHECK(strcmp(cf_status_name(CF_UNAVAILABLE), "UNAVAILABLE") == 0);
  cf_chunk* chunk = NULL;
  CHECK(cf_client_chunk(NULL, 0, 0, NULL, &chunk) == CF_INVALID_ARGUMENT);
  CHECK(strstr(cf_last_error(), "client: must not be NULL") != NULL);
  CHECK(chunk == NULL);
  cf_connect_options options;
  cf_connect_options_init(&options);
  options.struct_size = 8; /* a caller built against another header */
  cf_client* client = NULL;
  CHECK(cf_client_connect("127.0.0.1:1", &options, &client) == CF_INVALID_ARGUMENT);
  CHECK(strstr(cf_last_error(), "options.struct_size") != NULL);
  CHECK(client == NULL);
}

static void test_token_world_info_and_health(void) {
  cf_client* anonymous = connect_with(NULL);
  cf_world_info info;
  CHECK(cf_client_world_info(anonymous, &info) == CF_UNAUTHENTICATED);
  CHECK(strncmp(cf_last_error(), "UNAUTHENTICATED", 15) == 0);
  int32_t serving = 0;
  CHECK(cf_client_health(anonymous, &serving) == CF_OK); /* health stays open */
  CHECK(serving == 1);
  cf_client_free(anonymous);

  cf_client* client = connect_with(env("CF_TEST_READ_TOKEN"));
  CHECK(cf_client_world_info(client, &info) == CF_OK);
  CHECK(info.chunk_size == 64);
  CHECK(strlen(info.fingerprint) == 16);
  CHECK(info.resource_count > 0 && info.structure_count > 0);
  CHECK(info.resources[0].id == 0 && strlen(info.resources[0].name) > 0);
  cf_client_free(client);
}

static void test_tls(void) {
  FILE* file = fopen(env("CF_TEST_TLS_CA"), "rb");
  CHECK(file != NULL);
  if (file == NULL) return;
  static char pem[16384];
  pem[fread(pem, 1, sizeof pem - 1, file)] = '\0';
  fclose(file);
  cf_connect_options options;
  cf_connect_options_init(&options);
  options.tls = 1;
  options.tls_root_certificates = pem;
  cf_client* client = NULL;
  CHECK(cf_client_connect(env("CF_TEST_TLS_TARGET"), &options, &client) == CF_OK);
  cf_world_info info;
  CHECK(cf_client_world_info(client, &info) == CF_OK);
  cf_client_free(client);

  options.tls_root_certificates = NULL; /* the system's roots do not know the test's certificate */
  options.max_attempts = 1;
  CHECK(cf_client_connect(env("CF_TEST_TLS_TARGET"), &options, &client) == CF_OK);
  CHECK(cf_client_world_info(client, &info) == CF_UNAVAILABLE);
  cf_client_free(client);
}

static void test_chunk_region_locate(cf_client* client) {
  cf_chunk* chunk = NULL;
  CHECK(cf_client_chunk(client, 3, -2, NULL, &chunk) == CF_OK);
  cf_chunk_view view;
  CHECK(cf_chunk_get_view(chunk, &view) == CF_OK);
  CHECK(view.x == 3 && view.z == -2 && view.origin_x == 192 && view.origin_z == -128);
  CHECK(view.object_count > 0 && view.terrain_size == 0);
  const uint8_t* bytes = NULL;
  size_t size = 0;
  CHECK(cf_chunk_get_bytes(chunk, &bytes, &size) == CF_OK && bytes != NULL && size > 100);
  for (size_t i = 0; i < view.object_count; ++i) {
    CHECK(view.objects[i].x >= view.origin_x && view.objects[i].x < view.origin_x + 64);
  }
  cf_chunk_release(chunk);

  const uint32_t layers[] = {0};
  cf_chunk_options options = {1, 8, layers, 1};
  CHECK(cf_client_chunk(client, 1, 1, &options, &chunk) == CF_OK);
  CHECK(cf_chunk_get_view(chunk, &view) == CF_OK);
  CHECK(view.terrain_size == 8 && view.terrain_step == 8 && view.elevation != NULL && view.biome != NULL);
  for (size_t i = 0; i < view.object_count; ++i) CHECK(view.objects[i].layer == 0);
  cf_chunk_release(chunk);

  CHECK(cf_client_chunk(client, (int64_t)1 << 50, 0, NULL, &chunk) == CF_INVALID_ARGUMENT);
  CHECK(strstr(cf_last_error(), "coord.x") != NULL);

  cf_region* region = NULL;
  CHECK(cf_client_region(client, 0, 0, 2, NULL, &region) == CF_OK);
  int count = 0;
  while (cf_region_next(region, &chunk) == CF_OK && chunk != NULL) {
    CHECK(cf_chunk_get_view(chunk, &view) == CF_OK);
    if (count++ == 0) CHECK(view.x == 0 && view.z == 0); /* nearest first */
    cf_chunk_release(chunk);
  }
  CHECK(count == 25);
  cf_region_free(region);
  CHECK(cf_client_region(client, 0, 0, 9, NULL, &region) == CF_OK); /* the server allows 8 */
  CHECK(cf_region_next(region, &chunk) == CF_INVALID_ARGUMENT && chunk == NULL);
  cf_region_free(region);

  cf_world_info info;
  CHECK(cf_client_world_info(client, &info) == CF_OK);
  cf_structure found[3];
  size_t n = 99;
  CHECK(cf_client_locate(client, info.structures[0].name, 0, 0, 4000, 3, found, 3, &n) == CF_OK);
  CHECK(n <= 3);
  CHECK(cf_client_locate(client, "no-such-structure", 0, 0, 4000, 3, found, 3, &n) == CF_INVALID_ARGUMENT);
}

static void test_session_and_edits(cf_client* reader, cf_client* writer) {
  cf_session_options options;
  cf_session_options_init(&options);
  options.view_radius = 1;
  cf_session* session = NULL;
  CHECK(cf_session_start(reader, 32, 32, &options, &session) == CF_OK);
  cf_event event;
  cf_chunk* origin = NULL;
  CHECK(await_event(session, CF_EVENT_LOAD, 0, 0, &event, &origin));
  if (origin == NULL) {
    cf_session_free(session);
    return;
  }
  cf_chunk_view view;
  CHECK(cf_chunk_get_view(origin, &view) == CF_OK); /* retained: valid after later polls */
  CHECK(view.object_count > 0 && view.edit_version == 0);
  const uint64_t felled = view.objects[0].id;

  cf_edit_batch* batch = NULL;
  CHECK(cf_edit_batch_new(&batch) == CF_OK);
  CHECK(cf_edit_remove_object(batch, 0, 0, felled) == CF_OK);
  CHECK(cf_edit_expect(batch, 0, 0, 0) == CF_OK);
  CHECK(cf_edit_author(batch, NULL) == CF_INVALID_ARGUMENT);
  CHECK(cf_edit_author(batch, "alice") == CF_OK); /* the game's server edits for a player */
  cf_edit_result result;
  CHECK(cf_client_edit(reader, batch, &result) == CF_PERMISSION_DENIED); /* the read token */
  CHECK(cf_client_edit(writer, batch, &result) == CF_OK);
  CHECK(result.version_count == 1 && result.versions[0].version == 1 && strlen(result.request_id) > 0);
  cf_edit_batch_free(batch);

  cf_chunk* changed = NULL;
  CHECK(await_event(session, CF_EVENT_CHANGE, 0, 0, &event, &changed));
  CHECK(event.previous_version == 0 && !event.replaced);
  CHECK(event.removed_object_count == 1 && event.removed_objects != NULL); /* read before the next poll */
  if (event.removed_object_count == 1) CHECK(event.removed_objects[0] == felled);
  CHECK(changed != NULL && cf_chunk_get_view(changed, &view) == CF_OK && view.edit_version == 1);
  cf_chunk_release(changed);

  CHECK(cf_edit_batch_new(&batch) == CF_OK);
  CHECK(cf_edit_remove_object(batch, 0, 0, felled) == CF_OK);
  CHECK(cf_client_edit(writer, batch, NULL) == CF_NOT_FOUND); /* already gone */
  cf_edit_batch_free(batch);
  CHECK(cf_edit_batch_new(&batch) == CF_OK);
  CHECK(cf_edit_add_object(batch, 0, 0, 0, 70.0f, 1.0f, 0, 0) == CF_OK);
  CHECK(cf_client_edit(writer, batch, NULL) == CF_INVALID_ARGUMENT);
  CHECK(strstr(cf_last_error(), "ops[0].add_object.x") != NULL);
  cf_edit_batch_free(batch);

  cf_session_stats stats;
  CHECK(cf_session_get_stats(session, &stats) == CF_OK && stats.loaded_chunks == 9 && stats.changes_applied == 1);
  cf_chunk_release(origin);
  cf_session_free(session);

  options.view_radius = 9; /* the server allows 8: the session ends with an error event */
  CHECK(cf_session_start(reader, 0, 0, &options, &session) == CF_OK);
  CHECK(await_event(session, CF_EVENT_ERROR, INT64_MIN, 0, &event, NULL));
  CHECK(event.error_code == CF_INVALID_ARGUMENT && strstr(event.error_message, "view_radius") != NULL);
  for (int k = 0; k < 500 && cf_session_running(session); ++k) sleep_ms(10);
  CHECK(!cf_session_running(session));
  cf_session_free(session);
}

/* A figure for docs/engines.md, no assertion on time: events per second that cf_session_poll
 * drains from a full queue (a radius-8 view's 289 loads), reading each chunk's view. */
static void measure_drain(cf_client* client) {
  cf_session_options options;
  cf_session_options_init(&options);
  options.view_radius = 8;
  cf_session* session = NULL;
  CHECK(cf_session_start(client, 32, 32, &options, &session) == CF_OK);
  cf_session_stats stats = {0};
  for (int k = 0; k < 2000 && stats.queued_events < 289; ++k) {
    sleep_ms(10);
    CHECK(cf_session_get_stats(session, &stats) == CF_OK);
  }
  CHECK(stats.queued_events == 289);
  size_t drained = 0;
  const double start = seconds_now();
  while (drained < 289 && seconds_now() - start < 20) {
    const cf_event* events = NULL;
    size_t count = 0;
    CHECK(cf_session_poll(session, 64, &events, &count) == CF_OK);
    for (size_t i = 0; i < count; ++i) {
      cf_chunk_view view;
      CHECK(events[i].kind == CF_EVENT_LOAD && cf_chunk_get_view(events[i].chunk, &view) == CF_OK);
    }
    drained += count;
  }
  CHECK(drained == 289);
  printf("C ABI: cf_session_poll drains %.0f events/s (289 loads, each chunk's view read)\n",
         (double)drained / (seconds_now() - start));
  cf_session_free(session);
}

int main(void) {
  test_abi_and_errors();
  test_token_world_info_and_health();
  test_tls();
  cf_client* reader = connect_with(env("CF_TEST_READ_TOKEN"));
  cf_client* writer = connect_with(env("CF_TEST_WRITE_TOKEN"));
  test_chunk_region_locate(reader);
  test_session_and_edits(reader, writer);
  measure_drain(reader);
  cf_client_free(writer);
  cf_client_free(reader);
  printf("capi_test: %s (%d failed checks)\n", failures == 0 ? "ok" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
