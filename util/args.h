// SPDX-License-Identifier: GPL-2.0+
// cp_node's command line.

#ifndef CPNODE_ARGS_H
#define CPNODE_ARGS_H

#include <cstdint>
#include <string>
#include <vector>

namespace cpnode {

struct Options {
	enum Mode { kNone, kServer, kClient } mode = kNone;
	bool help = false;
	bool tcp = false;		// --protocol tcp (else homa)
	int ports = 1;			// server sockets, or client ports
	int first_port = 0;		// resolved: 4000 homa, 5000 tcp
	int threads_per_port = 1;
	bool ipv6 = false;
	int bpages = 1000;		// Homa receive region, in bpages
	std::vector<std::string> servers;
	int server_ports = 1;
	std::string workload = "w4";
	double gbps = 0;
	int client_max = 20;
	double seconds = 10;
	// Load generated before the counted seconds, not counted (so the
	// window starts in steady state rather than empty).
	double warmup = 0;
	bool one_way = false;
	int response_bytes = -1;	// --response-bytes (-1: not given)
	int unloaded = 0;
	std::string output;
	bool seed_set = false;
	uint64_t seed = 0;
	std::string workload_dir;
};

// Parse the arguments after the program name. Returns false with a
// message in @err for a bad command line.
bool parse_options(const std::vector<std::string> &args, Options *o,
		   std::string *err);

// Usage text.
const char *usage_text();

}  // namespace cpnode

#endif
