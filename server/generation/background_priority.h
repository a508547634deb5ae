// File: server/generation/background_priority.h
//
// Generation runs below the threads that answer calls: a worker lowers its own CPU priority as
// it starts, so that a warm GetChunk, /healthz and the gRPC and HTTP threads that only copy
// cached bytes get a core at once even while every worker is busy making chunks (a flood of far
// views, structure searches, edits). Generation still gets every cycle nobody else wants; on an
// idle machine nothing changes. Linux keeps a nice value per thread; elsewhere this does nothing.
#pragma once

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#endif

namespace chunkforge::server {

// How many nice levels below the process the generation workers run by default (--generation-nice).
// CFS gives each level about 1.25 times less CPU weight: at 10, a thread answering a call gets
// about 9 times a worker's share of a core both want, and is scheduled as soon as it wakes.
inline constexpr int kBackgroundNice = 10;

// Lowers the calling thread's priority by `steps` nice levels (never raises it; failure is
// harmless: the thread then runs at the process's priority).
inline void lower_this_thread_priority(int steps) {
  if (steps <= 0) return;
#if defined(__linux__)
  const auto thread = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, thread);
  if (errno != 0) return;
  ::setpriority(PRIO_PROCESS, thread, std::min(19, now + steps));
#else
  (void)steps;
#endif
}

}  // namespace chunkforge::server
