/* A player walking east through the world, through the C ABI: a polled session drained on
 * the program's own (game) thread each "frame", printing each chunk as it loads and unloads;
 * with --generate-locally it makes the pristine chunks itself, with --lod-radius N it shows the
 * LOD tiles of N chunks around. The session is opened without blocking (cf_session_open).
 *
 *   chunkforge-c-walker [HOST:PORT] [STEPS] [TOKEN] [--generate-locally] [--lod-radius N]
 */
#define _POSIX_C_SOURCE 199309L /* NOLINT(bugprone-reserved-identifier): the POSIX feature macro */
#include <chunkforge_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static size_t tiles_held = 0;

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
    } else if (e->kind == CF_EVENT_TILE) {
      cf_tile* tile = NULL; /* a game keeps it (and its view) until the tile unloads */
      cf_tile_view view;
      if (cf_session_event_tile(session, i, &tile) == CF_OK && cf_tile_get_view(tile, &view) == CF_OK) ++tiles_held;
      cf_tile_release(tile);
    } else if (e->kind == CF_EVENT_TILE_UNLOAD) {
      --tiles_held;
    } else {
      fprintf(stderr, "session: %s\n", e->error_message);
    }
  }
  return loads;
}

/* The last steps' chunks (and, with a LOD radius, the first tiles) may still be on their way:
 * more frames, up to 20 s (under valgrind on a busy machine a tile takes a while); then where
 * the walk ended, what loaded, and the bytes the server sent per chunk. */
static void finish(cf_session* session, const cf_session_options* options, double x) {
  cf_session_stats stats;
  const uint64_t view = (2 * options->view_radius + 1) * (2 * options->view_radius + 1);
  for (int frame = 0; frame < 1000; ++frame) {
    sleep_ms(20);
    drain(session);
    cf_session_get_stats(session, &stats);
    if (stats.loaded_chunks == view && stats.queued_events == 0 && (options->lod_radius == 0 || tiles_held > 0)) break;
  }
  cf_session_counters more = {.struct_size = sizeof more};
  cf_session_get_counters(session, &more);
  const uint64_t entered = stats.chunks_downloaded + more.chunks_generated + stats.chunks_from_cache;
  printf(
      "walked to x = %g: %llu chunks loaded, %llu downloaded, %llu generated here, %llu from the local cache, "
      "%zu tiles held; %llu bytes received, %.1f per chunk that entered the view\n",
      x, (unsigned long long)stats.loaded_chunks, (unsigned long long)stats.chunks_downloaded,
      (unsigned long long)more.chunks_generated, (unsigned long long)stats.chunks_from_cache, tiles_held,
      (unsigned long long)more.bytes_received, entered ? (double)more.bytes_received / (double)entered : 0.0);
}

/* The flags anywhere; HOST:PORT, STEPS and TOKEN in that order as `words`. */
static int read_arguments(int argc, char** argv, cf_session_options* options, const char* words[3]) {
  int n = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--generate-locally") == 0) {
      options->generate_locally = 1;
    } else if (strcmp(argv[i], "--lod-radius") == 0 && i + 1 < argc) {
      options->lod_radius = (uint32_t)strtoul(argv[++i], NULL, 10);
    } else if (n < 3) {
      words[n++] = argv[i];
    } else {
      return 0;
    }
  }
  return 1;
}

int main(int argc, char** argv) {
  cf_session_options options;
  cf_session_options_init(&options);
  options.view_radius = 2;
  const char* words[3] = {"127.0.0.1:50051", "40", NULL};
  if (!read_arguments(argc, argv, &options, words) ||
      (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))) {
    printf(
        "usage: chunkforge-c-walker [HOST:PORT] [STEPS] [TOKEN] [--generate-locally] [--lod-radius N]\n\n"
        "Walks a player east through the world served at HOST:PORT (default 127.0.0.1:50051),\n"
        "STEPS steps of 8 units (default 40), through the C ABI, printing loads and unloads.\n"
        "TOKEN: the server's --auth-token-file token, if it has one. --generate-locally makes\n"
        "the pristine chunks here; --lod-radius N shows the LOD tiles of N chunks around.\n");
    return 0;
  }
  const char* target = words[0];
  const int steps = atoi(words[1]);
  if (cf_abi_version() < CF_ABI_VERSION) {
    fprintf(stderr, "libchunkforge_c has ABI %u, this program was built for %u\n", cf_abi_version(), CF_ABI_VERSION);
    return 1;
  }
  cf_connect_options connect;
  cf_connect_options_init(&connect);
  connect.bearer_token = words[2];
  cf_client* client = NULL;
  cf_session* session = NULL;
  double x = 0;
  if (cf_client_connect(target, &connect, &client) != CF_OK ||
      cf_session_open(client, x, 0, &options, &session) != CF_OK) {
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
  finish(session, &options, x);
  cf_session_free(session);
  cf_client_free(client);
  return 0;
}
