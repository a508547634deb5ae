/* A player walking east through the world, through the C ABI: a polled session drained on
 * the program's own (game) thread each "frame", printing each chunk as it loads and unloads.
 *
 *   chunkforge-c-walker [HOST:PORT] [STEPS] [TOKEN]   (default 127.0.0.1:50051, 40 steps of 8 units)
 */
#define _POSIX_C_SOURCE 199309L
#include <chunkforge_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* One frame's worth of events; returns how many loads it saw. */
static size_t drain(cf_session* session) {
  const cf_event* events = NULL;
  size_t count = 0, loads = 0;
  if (cf_session_poll(session, 64, &events, &count) != CF_OK) return 0;
  for (size_t i = 0; i < count; ++i) {
    const cf_event* e = &events[i];
    if (e->kind == CF_EVENT_LOAD) {
      cf_chunk_view view;
      cf_chunk_get_view(e->chunk, &view);
      printf("load   (%lld, %lld) %zu objects\n", (long long)e->x, (long long)e->z, view.object_count);
      ++loads;
    } else if (e->kind == CF_EVENT_UNLOAD) {
      printf("unload (%lld, %lld)\n", (long long)e->x, (long long)e->z);
    } else if (e->kind == CF_EVENT_CHANGE) {
      printf("change (%lld, %lld)\n", (long long)e->x, (long long)e->z);
    } else {
      fprintf(stderr, "session: %s\n", e->error_message);
    }
  }
  return loads;
}

int main(int argc, char** argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf(
        "usage: chunkforge-c-walker [HOST:PORT] [STEPS] [TOKEN]\n\n"
        "Walks a player east through the world served at HOST:PORT (default 127.0.0.1:50051),\n"
        "STEPS steps of 8 units (default 40), through the C ABI, printing loads and unloads.\n"
        "TOKEN: the server's --auth-token-file token, if it has one.\n");
    return 0;
  }
  const char* target = argc > 1 ? argv[1] : "127.0.0.1:50051";
  const int steps = argc > 2 ? atoi(argv[2]) : 40;
  if (cf_abi_version() != CF_ABI_VERSION) {
    fprintf(stderr, "libchunkforge_c has ABI %u, this program was built for %u\n", cf_abi_version(), CF_ABI_VERSION);
    return 1;
  }
  cf_connect_options connect;
  cf_connect_options_init(&connect);
  connect.bearer_token = argc > 3 ? argv[3] : NULL;
  cf_client* client = NULL;
  cf_session* session = NULL;
  cf_session_options options;
  cf_session_options_init(&options);
  options.view_radius = 2;
  double x = 0;
  if (cf_client_connect(target, &connect, &client) != CF_OK ||
      cf_session_start(client, x, 0, &options, &session) != CF_OK) {
    fprintf(stderr, "%s\n", cf_last_error());
    cf_client_free(client);
    return 1;
  }
  for (int step = 0; step < steps && cf_session_running(session); ++step) {
    sleep_ms(50); /* a frame or three */
    drain(session);
    x += 8;
    cf_session_set_position(session, x, 0);
  }
  /* The last steps' chunks may still be on their way: a few more frames, up to 5 s. */
  cf_session_stats stats;
  const uint64_t view = (2 * options.view_radius + 1) * (2 * options.view_radius + 1);
  for (int frame = 0; frame < 250; ++frame) {
    sleep_ms(20);
    drain(session);
    cf_session_get_stats(session, &stats);
    if (stats.loaded_chunks == view && stats.queued_events == 0) break;
  }
  printf("walked to x = %g: %llu chunks loaded, %llu downloaded, %llu from the local cache\n", x,
         (unsigned long long)stats.loaded_chunks, (unsigned long long)stats.chunks_downloaded,
         (unsigned long long)stats.chunks_from_cache);
  cf_session_free(session);
  cf_client_free(client);
  return 0;
}
