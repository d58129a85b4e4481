// SPDX-License-Identifier: GPL-2.0+
// Percentiles of RTT samples for cp_node.

#ifndef CPNODE_STATS_H
#define CPNODE_STATS_H

#include <cstdint>
#include <vector>

namespace cpnode {

// The @p-th percentile (0 < p <= 100) of @v by the nearest-rank method:
// the smallest value with at least p% of the samples at or below it.
// Reorders @v; returns 0 for an empty vector.
uint64_t percentile(std::vector<uint64_t> &v, double p);

// Several percentiles of the same samples (each as percentile() would
// give), ascending @ps for efficiency but any order works.
std::vector<uint64_t> percentiles(std::vector<uint64_t> &v,
				  const std::vector<double> &ps);

}  // namespace cpnode

#endif
