// File: tests/hostile/adversary/fan_out.h
//
// The fan-out request of a method: the one whose answer is largest per request byte, found from
// the method's base and maxima (derive.h) by calling the server: the best of the base and each
// field at its maximum alone, then, greedily, each other field's maximum added while the ratio
// grows. A streamed answer is read for `window` only (a radius-16 region with terrain is
// hundreds of MB): bytes per request byte in that time.
#pragma once

#include <chrono>

#include "derive.h"

namespace chunkforge::hostile::adversary {

void choose_fan_out(MethodInputs& inputs, Prober& prober, std::chrono::milliseconds window);

}  // namespace chunkforge::hostile::adversary
