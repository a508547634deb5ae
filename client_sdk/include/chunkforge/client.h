// File: chunkforge/client.h
//
// The chunkforge client SDK in one include: Client (client/client.h) for world info, chunks,
// regions, health and edits (client/edit.h); ViewSession (client/view_session.h) for a moving
// player, with callbacks or polled events (client/view_event.h) and LOD tiles of its horizon
// (client/lod_tile.h); the typed chunk view (client/chunk.h). docs/sdk.md is the guide.
#pragma once

#include "chunkforge/client/chunk.h"
#include "chunkforge/client/client.h"
#include "chunkforge/client/edit.h"
#include "chunkforge/client/lod_tile.h"
#include "chunkforge/client/status.h"
#include "chunkforge/client/view_event.h"
#include "chunkforge/client/view_session.h"
#include "chunkforge/client/world_info.h"
