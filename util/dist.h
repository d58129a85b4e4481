// SPDX-License-Identifier: GPL-2.0+
// Message-size distributions (workloads), Poisson arrival times and the
// request streams drawn from them for cp_node. No I/O beyond reading a
// workload file; deterministic for a seed.

#ifndef CPNODE_DIST_H
#define CPNODE_DIST_H

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace cpnode {

// Largest message cp_node sends (Homa's limit); longer workload sizes are
// truncated to it.
constexpr uint32_t kMaxMessage = 1000000;

using Rng = std::mt19937_64;

// A uniform double in [0, 1) from 53 random bits.
double uniform01(Rng &rng);

// An exponentially distributed sample with the given mean.
double exponential(Rng &rng, double mean);

// Mean time between requests, in ns, so that requests of @mean_bytes
// total @gbps Gbit/s of payload.
double mean_interarrival_ns(double mean_bytes, double gbps);

class Workload {
public:
	// Parse CSV text: "length,relative frequency" lines; blank lines and
	// lines starting with '#' are ignored. Lengths above kMaxMessage are
	// truncated to it. Returns false and sets @err on bad input.
	bool parse(const std::string &text, std::string *err);

	// A workload in which every message has @bytes bytes.
	void set_fixed(uint32_t bytes);

	// Resolve a --workload argument: a decimal byte count, a path (it
	// holds '/' or ends in ".csv"), or a name looked up as DIR/NAME.csv.
	bool load(const std::string &spec, const std::string &dir,
		  std::string *err);

	uint32_t sample(Rng &rng) const;
	double mean() const { return mean_; }
	// Distinct lengths, ascending, and their probabilities.
	const std::vector<uint32_t> &sizes() const { return sizes_; }
	double probability(size_t i) const;
	// At most @max lengths spread over the distribution (quantiles),
	// ascending and distinct; all of them if there are no more than @max.
	std::vector<uint32_t> representative(size_t max) const;

private:
	std::vector<uint32_t> sizes_;
	std::vector<double> cdf_;	// cumulative probability, last is 1
	double mean_ = 0;
};

// One request of a client's load: its length and its server's index.
struct Request {
	uint32_t length;
	size_t dest;
};

// The requests of one client port. Lengths and arrival gaps come from
// one random stream and servers from another, each request's server
// drawn with its length, so that a seed gives every protocol the same
// requests at the same times to the same servers, however the client's
// sends and completions interleave with the arrivals.
class RequestStream {
public:
	RequestStream(const Workload &w, size_t ndests, uint64_t seed);
	// The next request: a length from the workload and a server.
	Request next();
	// The next time between arrivals, ns, exponential with @mean_ns.
	double gap(double mean_ns);
	// A server alone (a request whose length is chosen elsewhere).
	size_t dest();

private:
	const Workload &w_;
	size_t ndests_;
	Rng rng_;
	Rng dest_rng_;
};

}  // namespace cpnode

#endif
