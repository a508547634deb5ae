/* File: chunkforge_c.h
 *
 * The C ABI of the chunkforge client SDK (libchunkforge_c.so): for engines and languages that
 * load a plain C library (Unity and C# through P/Invoke, Godot through GDExtension, Unreal as
 * an external module, any custom engine). docs/engines.md is the guide.
 *
 *   cf_client* client = NULL;
 *   if (cf_client_connect("127.0.0.1:50051", NULL, &client) != CF_OK) puts(cf_last_error());
 *   cf_session_options options;
 *   cf_session_options_init(&options);
 *   options.generate_locally = 1;                    // pristine chunks made here (ABI 2)
 *   cf_session* session = NULL;
 *   cf_session_open(client, 0, 0, &options, &session);  // never blocks (ABI 2)
 *   ...every frame, on the game's thread:
 *   const cf_event* events; size_t n;
 *   cf_session_poll(session, 64, &events, &n);       // valid until the next poll
 *   for (size_t i = 0; i < n; ++i) if (events[i].kind == CF_EVENT_LOAD) spawn(events[i].chunk);
 *   cf_session_free(session); cf_client_free(client);
 *
 * Rules of the ABI:
 * - Every function but the *_free/_release ones, cf_abi_version, cf_last_error and
 *   cf_status_name returns a cf_status: CF_OK (0) or a gRPC status code (1..16) with the same
 *   meaning as in the C++ SDK. cf_last_error() then gives the message ("INVALID_ARGUMENT:
 *   coord.x: must be in ..."), per thread, valid until that thread's next failing call.
 * - No C++ exception ever crosses the boundary: every function catches all (CF_INTERNAL).
 * - Handles are opaque; free each with its own function (NULL is ignored). A handle may be used
 *   from any thread: a client from many at once; a session, chunk, region or edit batch from
 *   one thread at a time.
 * - Structs are plain data with fixed-size fields (blittable); pointers inside them borrow
 *   memory whose lifetime each function states. Positions are world units, doubles.
 * - No callbacks: a session's events are polled on the caller's thread.
 * - Option structs (cf_connect_options, cf_chunk_options, cf_session_options): a field left 0
 *   is its documented default, so a zeroed struct (`= {0}` or memset, with struct_size set) is
 *   the defaults, as cf_*_options_init gives them; NULL options are the defaults too. A value
 *   outside a field's documented range is refused before anything is made: CF_INVALID_ARGUMENT,
 *   "INVALID_ARGUMENT: options.deadline_ms: must be in [1, 3600000] ms, 0 for the default 10000
 *   (got 4000000000)".
 */
#ifndef CHUNKFORGE_C_H
#define CHUNKFORGE_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Windows: the library is built with CF_BUILDING_LIBRARY (it exports); a game including the
 * header imports. Elsewhere: default visibility (the version script keeps only cf_*). */
#if defined(_WIN32) && defined(CF_BUILDING_LIBRARY)
#define CF_API __declspec(dllexport)
#elif defined(_WIN32)
#define CF_API __declspec(dllimport)
#else
#define CF_API __attribute__((visibility("default")))
#endif

/* The ABI's version: it rises with every addition, and a caller built against an older header
 * keeps working (nothing existing changes meaning; grown option structs take the old
 * struct_size). Check cf_abi_version() >= CF_ABI_VERSION at start-up.
 * 2: the chunk hash, LOD tiles and local generation in sessions, cf_session_open (never
 *    blocks), the local generator (cf_generator_*). */
#define CF_ABI_VERSION 2
CF_API uint32_t cf_abi_version(void);

typedef int32_t cf_status;
enum {
  CF_OK = 0,
  CF_CANCELLED = 1,
  CF_UNKNOWN = 2,
  CF_INVALID_ARGUMENT = 3,
  CF_DEADLINE_EXCEEDED = 4,
  CF_NOT_FOUND = 5,
  CF_ALREADY_EXISTS = 6,
  CF_PERMISSION_DENIED = 7,
  CF_RESOURCE_EXHAUSTED = 8,
  CF_FAILED_PRECONDITION = 9,
  CF_ABORTED = 10,
  CF_OUT_OF_RANGE = 11,
  CF_UNIMPLEMENTED = 12,
  CF_INTERNAL = 13,
  CF_UNAVAILABLE = 14,
  CF_DATA_LOSS = 15,
  CF_UNAUTHENTICATED = 16
};
/* The message of this thread's last failed call ("" if none); valid until its next failure. */
CF_API const char* cf_last_error(void);
/* "UNAVAILABLE" and so on; static storage. */
CF_API const char* cf_status_name(cf_status status);

typedef struct cf_client cf_client;
typedef struct cf_chunk cf_chunk;
typedef struct cf_region cf_region;
typedef struct cf_edit_batch cf_edit_batch;
typedef struct cf_session cf_session;
typedef struct cf_tile cf_tile;           /* since ABI 2 */
typedef struct cf_generator cf_generator; /* since ABI 2 */

/* ---- Connecting ---- */

typedef struct cf_connect_options {
  /* sizeof(cf_connect_options), set by cf_connect_options_init; any other value (0 included)
   * is refused: a caller built against another header. */
  uint32_t struct_size;
  /* Deadline of each unary call (each attempt) and of a whole region stream, in ms: 0 is the
   * default 10000; at most 3600000 (an hour). Every call has one: a server that accepts and
   * never answers gives CF_DEADLINE_EXCEEDED. */
  uint32_t deadline_ms;
  /* Attempts of a call failing with UNAVAILABLE (1: no retry): 0 is the default 4; 1 to 100. */
  int32_t max_attempts;
  int32_t tls;                       /* 0 (the default): plaintext; any other value: TLS */
  const char* tls_root_certificates; /* PEM text; NULL or "" (the default): the system's roots */
  const char* tls_server_name;       /* NULL or "" (the default): the target's host */
  /* NULL or "" (the default): none. No line breaks. The write token also reads. */
  const char* bearer_token;
} cf_connect_options;
/* Writes struct_size and every default (the values a 0 stands for). */
CF_API void cf_connect_options_init(cf_connect_options* options);

/* Makes the client; connects lazily on the first call. options may be NULL (the defaults); a
 * field out of its range is CF_INVALID_ARGUMENT naming it. */
CF_API cf_status cf_client_connect(const char* target, const cf_connect_options* options, cf_client** out);
CF_API void cf_client_free(cf_client* client);

/* ---- World info ---- */

typedef struct cf_catalog_entry {
  uint32_t id;
  uint32_t reserved;
  const char* name;
  const char* color;       /* "#rrggbb" */
  double footprint_radius; /* resource layers */
  double size_x, size_z;   /* structures */
  double height;           /* structures */
} cf_catalog_entry;

typedef struct cf_world_info {
  const char* name;
  const char* fingerprint;
  uint64_t seed;
  uint32_t generator_version;
  uint32_t chunk_size;
  double sea_level;
  const cf_catalog_entry* biomes;
  size_t biome_count;
  const cf_catalog_entry* materials;
  size_t material_count;
  const cf_catalog_entry* resources;
  size_t resource_count;
  const cf_catalog_entry* structures;
  size_t structure_count;
} cf_world_info;
/* Fetched once, then from memory. Its pointers stay valid until cf_client_free. */
CF_API cf_status cf_client_world_info(cf_client* client, cf_world_info* out);

/* CF_OK with *serving 1 when the server's standard health check says SERVING, else 0. */
CF_API cf_status cf_client_health(cf_client* client, int32_t* serving);

/* ---- Chunks ---- */

/* What a chunk request includes; all zero (or NULL options): objects and structures of every
 * layer, no terrain. */
typedef struct cf_chunk_options {
  int32_t include_terrain; /* 0 (the default): no terrain; any other value: the terrain grid */
  /* World units between terrain samples: 0 is the default 1; otherwise a divisor of the world's
   * chunk size (1, 2, 4 ... for 64), which the server checks: INVALID_ARGUMENT naming
   * options.terrain_step (for a session, its error event). Read only with include_terrain. */
  uint32_t terrain_step;
  /* Ids of the resource layers to include (cf_world_info.resources): layer_count 0 (the
   * default): every layer. At most 1024 ids; layers must not be NULL when layer_count > 0. The
   * server refuses an id the world does not have. */
  const uint32_t* layers;
  size_t layer_count;
} cf_chunk_options;

typedef struct cf_object {
  uint64_t id;    /* stable across requests and replicas */
  double x, z;    /* world units */
  float y;        /* the terrain's elevation at the object */
  float yaw;      /* degrees about y, [0, 360) */
  uint32_t layer; /* cf_world_info.resources[layer] */
  uint32_t variant;
} cf_object;

typedef struct cf_structure {
  uint64_t id;
  int64_t x, z; /* the box's lowest corner, world units */
  double y;
  double size_x, size_y, size_z;
  uint32_t type; /* cf_world_info.structures[type] */
  uint32_t yaw_degrees;
  int32_t tilted;
  uint32_t reserved;
} cf_structure;

/* A chunk read in place. Its pointers borrow from the chunk handle: valid while it lives. */
typedef struct cf_chunk_view {
  int64_t x, z;              /* chunk coordinates */
  double origin_x, origin_z; /* world position of its lowest corner */
  uint32_t chunk_size;
  uint32_t generator_version;
  uint64_t edit_version; /* 0: never edited */
  const cf_object* objects;
  size_t object_count;
  const cf_structure* structures;
  size_t structure_count;
  uint32_t terrain_size; /* samples per side; 0: no terrain */
  uint32_t terrain_step;
  const float* elevation; /* terrain_size^2 each, sample (i, j) at [j * size + i] */
  const uint32_t* biome;
  const uint32_t* material;
} cf_chunk_view;

/* One chunk; free it with cf_chunk_release. options may be NULL. */
CF_API cf_status cf_client_chunk(cf_client* client, int64_t x, int64_t z, const cf_chunk_options* options,
                                 cf_chunk** out);
CF_API cf_status cf_chunk_get_view(const cf_chunk* chunk, cf_chunk_view* out);
/* The chunk's canonical encoding (chunkforge.v1.Chunk, the bytes the server caches and sends),
 * made on first call; borrows from the chunk. */
CF_API cf_status cf_chunk_get_bytes(const cf_chunk* chunk, const uint8_t** bytes, size_t* size);
/* An object's state set by an edit (size 0: none); borrows from the chunk. */
CF_API cf_status cf_chunk_object_state(const cf_chunk* chunk, uint64_t object_id, const uint8_t** state, size_t* size);
/* chunkforge::chunk_hash of the chunk (since ABI 2): the hash the server records for each
 * version, to compare a copy with the server's (docs/edits.md, "Checking a copy"). Defined
 * for a chunk as GetChunk serves it by default: all layers, no terrain. */
CF_API cf_status cf_chunk_hash(const cf_chunk* chunk, uint64_t* out);
/* A second handle to the same chunk, released on its own: keeps a polled event's chunk. */
CF_API cf_chunk* cf_chunk_retain(const cf_chunk* chunk);
CF_API void cf_chunk_release(cf_chunk* chunk);

/* The square of `radius` chunks around (x, z), nearest first: cf_region_next gives each chunk
 * (release it), then CF_OK with *out NULL at the end, or the error that ended the stream. */
CF_API cf_status cf_client_region(cf_client* client, int64_t x, int64_t z, uint32_t radius,
                                  const cf_chunk_options* options, cf_region** out);
CF_API cf_status cf_region_next(cf_region* region, cf_chunk** out);
CF_API void cf_region_free(cf_region* region);

/* The structures of the type named `type` whose origin lies within `radius` world units of
 * (x, z), nearest first, at most `limit`; up to `capacity` are written to `out`, *count says
 * how many were found. */
CF_API cf_status cf_client_locate(cf_client* client, const char* type, int64_t x, int64_t z, double radius,
                                  uint32_t limit, cf_structure* out, size_t capacity, size_t* count);

/* ---- Edits (docs/edits.md): all or nothing, needs the write token ---- */

CF_API cf_status cf_edit_batch_new(cf_edit_batch** out);
CF_API void cf_edit_batch_free(cf_edit_batch* batch);
/* Positions are chunk-relative: [0, chunk_size). */
CF_API cf_status cf_edit_remove_object(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id);
CF_API cf_status cf_edit_add_object(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint32_t layer, float x,
                                    float z, float yaw, uint32_t variant);
CF_API cf_status cf_edit_move_object(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id, float x,
                                     float z, float yaw);
CF_API cf_status cf_edit_remove_structure(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id);
CF_API cf_status cf_edit_set_state(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t id,
                                   const void* state, size_t size);
CF_API cf_status cf_edit_expect(cf_edit_batch* batch, int64_t chunk_x, int64_t chunk_z, uint64_t version);
CF_API cf_status cf_edit_request_id(cf_edit_batch* batch, const char* request_id);
/* The player the edit is made for (needs the write token; docs/edits.md, "Moderation"). */
CF_API cf_status cf_edit_author(cf_edit_batch* batch, const char* player);

typedef struct cf_chunk_version {
  int64_t x, z;
  uint64_t version;
} cf_chunk_version;

typedef struct cf_edit_result {
  const cf_chunk_version* versions; /* the new version of every chunk changed */
  size_t version_count;
  const uint64_t* added_ids; /* of the add operations, in order */
  size_t added_count;
  const char* request_id;
} cf_edit_result;
/* Applies the batch. out (may be NULL) borrows from the batch: valid until it is sent again
 * or freed. */
CF_API cf_status cf_client_edit(cf_client* client, cf_edit_batch* batch, cf_edit_result* out);

/* ---- A moving player's view, polled ---- */

typedef struct cf_session_options {
  /* sizeof(cf_session_options), set by cf_session_options_init; any other value (0 included)
   * is refused. */
  uint32_t struct_size;
  /* Chunks around the player's chunk kept loaded: 0 is the default 4; 1 to 64. The server
   * allows at most its --max-radius (16 by default): past it the session ends with an error
   * event. (A view of the player's chunk alone: cf_session_set_radius(session, 0).) */
  uint32_t view_radius;
  /* Bytes of encoded chunks kept beyond the view: 0 is the default 64 MiB; 1 (keeps none) to
   * 64 GiB. */
  uint64_t cache_bytes;
  /* Bytes of events kept for polling: 0 is the default 16 MiB; 64 KiB (a chunk with its
   * terrain) to 64 GiB. At the bound the session stops reading and the server waits: nothing
   * is dropped. */
  uint64_t event_queue_bytes;
  cf_chunk_options chunk; /* every chunk the session loads; all zero: the defaults */
  /* Since ABI 2 (a caller built against ABI 1 passes its smaller struct_size: these are 0). */
  /* Chunks around the player to show as LOD tiles (docs/lod.md): 0 (the default) none; at most
   * 65536 (the server allows its --max-lod-radius, 1024 by default). Tile events follow. */
  uint32_t lod_radius;
  /* The finest tile level wanted: 0 (the default) the world's finest; at most 24. */
  uint32_t lod_finest_level;
  /* 0 (the default): the server sends every chunk. Otherwise the session makes the world's
   * pristine chunks and tiles here, the same bytes (docs/client-generation.md), and the server
   * sends only which chunks to show and what players changed; a server that refuses sends chunks
   * whole and an error event says why, once. */
  int32_t generate_locally;
  /* Threads generating, with generate_locally: 0 is the default 2; 1 to 64. */
  uint32_t generator_threads;
} cf_session_options;
/* Writes struct_size and every default (the values a 0 stands for). */
CF_API void cf_session_options_init(cf_session_options* options);

/* Starts a polled session at (x, z); options may be NULL (the defaults); a field out of its
 * range is CF_INVALID_ARGUMENT naming it. BLOCKS for the world info (a round trip, with the
 * client's retries: up to its deadline times its attempts) and, with generate_locally, the
 * world's definition: call it off the game's main thread, or use cf_session_open. */
CF_API cf_status cf_session_start(cf_client* client, double x, double z, const cf_session_options* options,
                                  cf_session** out);
/* The same without blocking (since ABI 2): checks the options (CF_INVALID_ARGUMENT as above)
 * and returns at once; the session starts on a thread of its own. Until it has started,
 * polls give no event, cf_session_running gives 1, and positions and radii set are kept for
 * it. If it cannot start, the next poll gives the CF_EVENT_ERROR saying why and
 * cf_session_running turns 0. cf_session_free never waits for a start under way. */
CF_API cf_status cf_session_open(cf_client* client, double x, double z, const cf_session_options* options,
                                 cf_session** out);
CF_API cf_status cf_session_set_position(cf_session* session, double x, double z);
CF_API cf_status cf_session_set_radius(cf_session* session, uint32_t view_radius);
/* cf_session_options.lod_radius and .lod_finest_level, changed (since ABI 2). */
CF_API cf_status cf_session_set_lod(cf_session* session, uint32_t lod_radius, uint32_t lod_finest_level);
/* 1 while the session runs; 0 once stopped by an error no retry fixes (reported as an event). */
CF_API int32_t cf_session_running(const cf_session* session);
/* Stops the session (joins its threads) and frees it, with the events of its last poll. */
CF_API void cf_session_free(cf_session* session);

/* CF_EVENT_TILE and CF_EVENT_TILE_UNLOAD (since ABI 2) come only to a session with a LOD radius. */
enum {
  CF_EVENT_LOAD = 0,
  CF_EVENT_UNLOAD = 1,
  CF_EVENT_CHANGE = 2,
  CF_EVENT_ERROR = 3,
  CF_EVENT_TILE = 4,       /* a tile entering the horizon, or new bytes for a tile held */
  CF_EVENT_TILE_UNLOAD = 5 /* a tile that left it: the tiles covering its ground came first */
};

typedef struct cf_event {
  int32_t kind;              /* CF_EVENT_* */
  cf_status error_code;      /* CF_EVENT_ERROR */
  int64_t x, z;              /* the chunk for chunk events; the tile's place for tile events */
  cf_chunk* chunk;           /* load, change: borrowed until the next poll (cf_chunk_retain) */
  const char* error_message; /* CF_EVENT_ERROR */
  uint64_t previous_version; /* change: the version before */
  int32_t replaced;          /* change: sent whole; the id lists are empty */
  uint32_t tile_level;       /* tile events: the level (ABI 1 named it `reserved`, always 0) */
  const uint64_t* removed_objects;
  size_t removed_object_count;
  const uint64_t* placed_objects; /* added or moved */
  size_t placed_object_count;
  const uint64_t* states_changed;
  size_t states_changed_count;
  const uint64_t* removed_structures;
  size_t removed_structure_count;
} cf_event;

/* Takes up to max_events of the oldest events. *events and everything they point to stay valid
 * until the next cf_session_poll or cf_session_free of this session. */
CF_API cf_status cf_session_poll(cf_session* session, size_t max_events, const cf_event** events, size_t* count);

/* ---- LOD tiles (since ABI 2; docs/lod.md) ---- */

/* A tile read in place: 2^level x 2^level chunks from chunk (x * 2^level, z * 2^level). Its
 * pointers borrow from the tile handle: valid while it lives. */
typedef struct cf_tile_view {
  uint32_t level;
  uint32_t chunk_size;
  int64_t x, z;
  int64_t min_x, min_z, max_x, max_z; /* the ground it covers, world units: [min, max) */
  uint32_t generator_version;
  uint32_t samples;           /* terrain samples per side (32 at every level); 0: no grid */
  uint32_t step;              /* world units between samples; sample (i, j) at (min_x + i step, min_z + j step) */
  int32_t structures_planned; /* 1 at fine levels; 0: `structures` is empty, which proves nothing */
  const float* height;        /* samples^2 each, sample (i, j) at [j * samples + i] */
  const uint32_t* biome;
  const uint32_t* material;
  const cf_structure* structures; /* touching the tile, each once */
  size_t structure_count;
  uint32_t cells;                /* resource cells per side (8): cell (ci, cj) holds samples / cells squared samples */
  uint32_t layer_count;          /* resource layers with densities */
  const uint32_t* layers;        /* their ids, ascending */
  const float* expected_objects; /* layer_count x cells^2: layer k's cell (ci, cj) at [(k * cells + cj) * cells + ci] */
} cf_tile_view;

/* The tile of event `index` of the last poll (a CF_EVENT_TILE) as a handle of its own, valid
 * until cf_tile_release (a load of the same key later replaces it: drop the old one then). */
CF_API cf_status cf_session_event_tile(cf_session* session, size_t index, cf_tile** out);
CF_API cf_status cf_tile_get_view(const cf_tile* tile, cf_tile_view* out);
CF_API void cf_tile_release(cf_tile* tile);

typedef struct cf_session_stats {
  uint64_t chunks_downloaded;
  uint64_t chunks_from_cache;
  uint64_t duplicates_ignored;
  uint64_t changes_applied;
  uint64_t chunks_replaced;
  uint64_t reconnects;
  uint64_t cached_bytes;
  uint64_t loaded_chunks;
  uint64_t queued_events;
  uint64_t queued_bytes;
} cf_session_stats;
CF_API cf_status cf_session_get_stats(const cf_session* session, cf_session_stats* out);

/* More of a session's figures (since ABI 2; cf_session_stats cannot grow: a caller built
 * against ABI 1 allocates it). Set struct_size to sizeof(cf_session_counters) first; a later
 * ABI that adds fields fills only the ones a caller's size holds. */
typedef struct cf_session_counters {
  uint32_t struct_size;
  int32_t generating_locally; /* 1 once the server agreed to keys instead of pristine chunks */
  uint64_t bytes_received;    /* encoded bytes of every message the servers sent */
  uint64_t chunks_generated;  /* chunks made here and loaded */
  uint64_t tiles_loaded;      /* tile events (loads and replacements) */
  uint64_t tiles_generated;   /* of those, tiles made here */
  uint64_t tile_bytes_received;
  uint64_t held_tiles;
} cf_session_counters;
CF_API cf_status cf_session_get_counters(const cf_session* session, cf_session_counters* out);

/* ---- Generating here (since ABI 2; docs/client-generation.md) ---- */

/* The world of `client`'s server made here: pristine chunks (nobody edited them) with exactly
 * the bytes GetChunk serves. BLOCKS for the world's definition (one call, with retries). The
 * server's FAILED_PRECONDITION when it keeps its definition (--client-generation off). */
CF_API cf_status cf_generator_new(cf_client* client, cf_generator** out);
/* The pristine chunk (x, z) made here; options as cf_client_chunk's (NULL: all layers, no
 * terrain). Any thread, several at once. Release the chunk with cf_chunk_release. */
CF_API cf_status cf_generator_chunk(cf_generator* generator, int64_t x, int64_t z, const cf_chunk_options* options,
                                    cf_chunk** out);
CF_API void cf_generator_free(cf_generator* generator);

#ifdef __cplusplus
}
#endif

#endif /* CHUNKFORGE_C_H */
