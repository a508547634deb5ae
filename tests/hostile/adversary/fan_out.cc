// File: tests/hostile/adversary/fan_out.cc
//
// The greedy search of fan_out.h.
#include "fan_out.h"

namespace chunkforge::hostile::adversary {

void choose_fan_out(MethodInputs& inputs, Prober& prober, std::chrono::milliseconds window) {
  const int before = prober.calls();
  auto ratio = [&](const Message& request) {
    const size_t answer = prober.answer_bytes(inputs.method, request, window);
    return static_cast<double>(answer) / static_cast<double>(request.ByteSizeLong() + 5);  // 5: gRPC's prefix
  };
  std::unique_ptr<Message> best = clone(*inputs.base);
  double best_ratio = ratio(*best);
  for (const Maximum& m : inputs.maxima) {
    if (const double r = ratio(*m.request); r > best_ratio) {
      best = clone(*m.request);
      best_ratio = r;
    }
  }
  for (const Maximum& m : inputs.maxima) {
    std::unique_ptr<Message> candidate = clone(*best);
    copy_field(*candidate, *m.request, m.path);
    if (candidate->SerializeAsString() == best->SerializeAsString()) continue;
    // 5 % better at least: a streamed answer's bytes in a window vary by a little from call to call.
    if (const double r = ratio(*candidate); r > best_ratio * 1.05) {
      best = std::move(candidate);
      best_ratio = r;
    }
  }
  inputs.fan_out = std::move(best);
  inputs.fan_out_ratio = best_ratio;
  inputs.probes += prober.calls() - before;
}

}  // namespace chunkforge::hostile::adversary
