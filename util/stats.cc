// SPDX-License-Identifier: GPL-2.0+
#include "stats.h"

#include <algorithm>
#include <cmath>

namespace cpnode {

static size_t rank_index(size_t n, double p)
{
	double r = std::ceil(p * static_cast<double>(n) / 100.0);

	if (r < 1)
		r = 1;
	if (r > static_cast<double>(n))
		r = static_cast<double>(n);
	return static_cast<size_t>(r) - 1;
}

uint64_t percentile(std::vector<uint64_t> &v, double p)
{
	if (v.empty())
		return 0;
	size_t k = rank_index(v.size(), p);
	std::nth_element(v.begin(), v.begin() + k, v.end());
	return v[k];
}

std::vector<uint64_t> percentiles(std::vector<uint64_t> &v,
				  const std::vector<double> &ps)
{
	std::vector<uint64_t> out;

	for (double p : ps)
		out.push_back(percentile(v, p));
	return out;
}

}  // namespace cpnode
