/* The C ABI's option structs from C11 (chunkforge_c.h, "Option structs"): a zeroed struct is the
 * defaults, and a value out of a field's range is refused naming the field. Against the real
 * server bindings_with_server starts (CF_TEST_*), a socket of our own that accepts connections
 * and never answers (what a stopped server looks like to a client: its kernel still completes
 * the handshake), and a port nothing listens on.
 * Exit 0 when every check holds; each failed check is printed. */
#define _POSIX_C_SOURCE 200112L
#include <arpa/inet.h>
#include <chunkforge_c.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "capi_check.h"

/* A call that never returns fails the test instead of hanging it. */
static void on_alarm(int signal_number) {
  (void)signal_number;
  static const char message[] = "capi_options_test: a call had not returned after 60 s: FAILED\n";
  (void)!write(STDERR_FILENO, message, sizeof message - 1);
  _exit(1);
}

/* A loopback socket bound to a free port, listening (accepts, by the kernel, and never answers)
 * or closed right away (refuses); *fd is -1 when closed. The port, 0 on failure. */
static int loopback_port(int listening, int* fd) {
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  *fd = socket(AF_INET, SOCK_STREAM, 0);
  if (*fd < 0 || bind(*fd, (struct sockaddr*)&address, size) != 0 ||
      getsockname(*fd, (struct sockaddr*)&address, &size) != 0 || (listening && listen(*fd, 16) != 0)) {
    return 0;
  }
  if (!listening) {
    close(*fd);
    *fd = -1;
  }
  return ntohs(address.sin_port);
}

static cf_client* connect_zeroed(int port) {
  cf_connect_options options = {0};
  options.struct_size = sizeof options;
  char target[32];
  snprintf(target, sizeof target, "127.0.0.1:%d", port);
  cf_client* client = NULL;
  CHECK(cf_client_connect(target, &options, &client) == CF_OK);
  return client;
}

/* deadline_ms 0 is the default 10 s, not "no deadline"; max_attempts 0 is the default 4. */
static void test_zeroed_connect_options_have_a_deadline(void) {
  int silent_fd = -1, refused_fd = -1;
  const int silent = loopback_port(1, &silent_fd), refused = loopback_port(0, &refused_fd);
  CHECK(silent != 0 && refused != 0);
  if (silent == 0 || refused == 0) return;

  cf_client* client = connect_zeroed(silent);
  cf_world_info info;
  double start = seconds_now();
  CHECK(client != NULL && cf_client_world_info(client, &info) == CF_DEADLINE_EXCEEDED);
  double took = seconds_now() - start;
  printf("zeroed options, a server that never answers: %s after %.2f s\n", cf_last_error(), took);
  CHECK(took >= 9.5 && took < 13);
  cf_client_free(client);
  close(silent_fd);

  client = connect_zeroed(refused);
  start = seconds_now();
  CHECK(client != NULL && cf_client_world_info(client, &info) == CF_UNAVAILABLE);
  took = seconds_now() - start;
  printf("zeroed options, a port that refuses: %s after %.2f s\n", cf_last_error(), took);
  CHECK(took < 10);
  cf_client_free(client);
}

/* The init function writes what a 0 stands for. */
static void test_init_writes_the_defaults(void) {
  cf_connect_options connect;
  cf_connect_options_init(&connect);
  CHECK(connect.struct_size == sizeof connect && connect.deadline_ms == 10000 && connect.max_attempts == 4);
  CHECK(connect.tls == 0 && connect.bearer_token == NULL);
  cf_session_options session;
  cf_session_options_init(&session);
  CHECK(session.struct_size == sizeof session && session.view_radius == 4);
  CHECK(session.cache_bytes == 64u << 20 && session.event_queue_bytes == 16u << 20);
  CHECK(session.chunk.terrain_step == 0 && session.chunk.layers == NULL && session.chunk.layer_count == 0);
}

/* A zeroed cf_session_options (event_queue_bytes 0 above all) is the default session: it loads
 * the radius-4 view, 81 chunks. */
static void test_zeroed_session_options_load_the_default_view(void) {
  cf_connect_options connect = {0};
  connect.struct_size = sizeof connect;
  connect.bearer_token = env("CF_TEST_READ_TOKEN");
  cf_client* client = NULL;
  CHECK(cf_client_connect(env("CF_TEST_TARGET"), &connect, &client) == CF_OK);
  cf_session_options options;
  memset(&options, 0, sizeof options);
  options.struct_size = sizeof options;
  cf_session* session = NULL;
  CHECK(cf_session_start(client, 32, 32, &options, &session) == CF_OK);
  size_t loads = 0;
  for (int frame = 0; frame < 2000 && loads < 81 && session != NULL; ++frame) {
    const cf_event* events = NULL;
    size_t count = 0;
    CHECK(cf_session_poll(session, 64, &events, &count) == CF_OK);
    for (size_t i = 0; i < count; ++i) {
      CHECK(events[i].kind == CF_EVENT_LOAD);
      if (events[i].kind == CF_EVENT_LOAD) ++loads;
    }
    if (count == 0) sleep_ms(10);
  }
  printf("zeroed session options: %zu loads\n", loads);
  CHECK(loads == 81);
  CHECK(session != NULL && cf_session_running(session));
  cf_session_free(session);
  cf_client_free(client);
}

/* cf_client_connect with one field changed from the defaults: its status, *out NULL on refusal,
 * and the error naming `field`. */
static void expect_connect_refused(cf_connect_options options, const char* field) {
  cf_client* client = NULL;
  const cf_status status = cf_client_connect("127.0.0.1:1", &options, &client);
  CHECK(status == CF_INVALID_ARGUMENT && client == NULL);
  CHECK(strstr(cf_last_error(), field) != NULL);
  if (status != CF_INVALID_ARGUMENT || strstr(cf_last_error(), field) == NULL) fprintf(stderr, "  (%s)\n", field);
  cf_client_free(client);
}

static void test_connect_values_out_of_range_are_refused(void) {
  cf_connect_options base;
  cf_connect_options_init(&base);
  cf_connect_options o = base;
  o.deadline_ms = 3600001;
  expect_connect_refused(o, "options.deadline_ms: must be in [1, 3600000] ms, 0 for the default 10000 (got 3600001)");
  o = base;
  o.max_attempts = -1;
  expect_connect_refused(o, "options.max_attempts: must be in [1, 100], 0 for the default 4 (got -1)");
  o.max_attempts = 101;
  expect_connect_refused(o, "options.max_attempts");
  o = base;
  o.struct_size = 0; /* memset without struct_size */
  expect_connect_refused(o, "options.struct_size");
  o = base;
  o.deadline_ms = 3600000; /* the bounds themselves are taken */
  o.max_attempts = 100;
  cf_client* client = NULL;
  CHECK(cf_client_connect("127.0.0.1:1", &o, &client) == CF_OK);
  cf_client_free(client);
}

static void expect_session_refused(cf_client* client, cf_session_options options, const char* field) {
  cf_session* session = NULL;
  const cf_status status = cf_session_start(client, 0, 0, &options, &session);
  CHECK(status == CF_INVALID_ARGUMENT && session == NULL);
  CHECK(strstr(cf_last_error(), field) != NULL);
  if (status != CF_INVALID_ARGUMENT || strstr(cf_last_error(), field) == NULL) fprintf(stderr, "  (%s)\n", field);
  cf_session_free(session);
}

static void test_session_and_chunk_values_out_of_range_are_refused(void) {
  cf_connect_options connect;
  cf_connect_options_init(&connect);
  connect.bearer_token = env("CF_TEST_READ_TOKEN");
  cf_client* client = NULL;
  CHECK(cf_client_connect(env("CF_TEST_TARGET"), &connect, &client) == CF_OK);
  cf_session_options base;
  cf_session_options_init(&base);
  cf_session_options o = base;
  o.view_radius = 65;
  expect_session_refused(client, o, "options.view_radius: must be in [1, 64] chunks, 0 for the default 4 (got 65)");
  o = base;
  o.cache_bytes = ((uint64_t)64 << 30) + 1;
  expect_session_refused(client, o, "options.cache_bytes: must be in [1, 68719476736] bytes");
  o = base;
  o.event_queue_bytes = 1000; /* smaller than one chunk's event */
  expect_session_refused(client, o, "options.event_queue_bytes: must be in [65536, 68719476736] bytes");
  o = base;
  o.chunk.layer_count = 2; /* with layers NULL */
  expect_session_refused(client, o, "options.chunk.layers: must not be NULL when layer_count is 2");
  o = base;
  o.struct_size = 0;
  expect_session_refused(client, o, "options.struct_size");

  const uint32_t layer = 0;
  cf_chunk_options chunk_options = {0, 0, &layer, 5000};
  cf_chunk* chunk = NULL;
  CHECK(cf_client_chunk(client, 0, 0, &chunk_options, &chunk) == CF_INVALID_ARGUMENT && chunk == NULL);
  CHECK(strstr(cf_last_error(), "options.layer_count: must be at most 1024 (got 5000)") != NULL);
  cf_region* region = NULL;
  chunk_options.layers = NULL;
  chunk_options.layer_count = 1;
  CHECK(cf_client_region(client, 0, 0, 1, &chunk_options, &region) == CF_INVALID_ARGUMENT && region == NULL);
  CHECK(strstr(cf_last_error(), "options.layers: must not be NULL") != NULL);
  cf_client_free(client);
}

int main(void) {
  signal(SIGALRM, on_alarm);
  alarm(60);
  test_init_writes_the_defaults();
  test_connect_values_out_of_range_are_refused();
  test_session_and_chunk_values_out_of_range_are_refused();
  test_zeroed_session_options_load_the_default_view();
  test_zeroed_connect_options_have_a_deadline();
  printf("capi_options_test: %s (%d failed checks)\n", failures == 0 ? "ok" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
