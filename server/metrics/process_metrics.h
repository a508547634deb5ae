// File: server/metrics/process_metrics.h
//
// The process_* metrics every Prometheus exporter publishes under the same names (CPU seconds,
// resident and virtual memory, open and allowed file descriptors, start time, threads), read
// from /proc/self when the page is rendered; and chunkforge_build_info, the build's version as
// a label. Alerts and dashboards find a chunkforge-server's memory where they find any
// process's (docs/deploy.md, "Sizing", is about RSS).
#pragma once

#include "metrics/metrics_page.h"

namespace chunkforge::server {

// Appends the process_* metrics and chunkforge_build_info to `page` (a metric is left out if
// /proc cannot be read, as outside Linux).
void render_process(MetricsPage& page);

}  // namespace chunkforge::server
