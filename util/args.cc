// SPDX-License-Identifier: GPL-2.0+
#include "args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "dist.h"

namespace cpnode {

const char *usage_text()
{
	return
"Usage: cp_node server --protocol homa|tcp [--ports N] [--first-port P]\n"
"               [--threads-per-port T] [--bpages B] [--ipv6]\n"
"       cp_node client --protocol homa|tcp --servers ADDR[,ADDR...]\n"
"               [--server-ports N] [--first-port P] [--ports N]\n"
"               [--workload w1|w2|w3|w4|w5|starve|BYTES|FILE.csv]\n"
"               [--workload-dir DIR] [--gbps G] [--client-max M]\n"
"               [--seconds S] [--one-way | --response-bytes N]\n"
"               [--unloaded N] [--output FILE]\n"
"               [--seed X] [--bpages B] [--ipv6]\n"
"See util/README.md.\n";
}

static bool parse_int(const std::string &s, long lo, long hi, long *out)
{
	char *end;

	if (s.empty())
		return false;
	errno = 0;
	long v = std::strtol(s.c_str(), &end, 10);
	if (*end != 0 || errno != 0 || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool parse_double(const std::string &s, double lo, double hi,
			 double *out)
{
	char *end;

	if (s.empty())
		return false;
	errno = 0;
	double v = std::strtod(s.c_str(), &end);
	if (*end != 0 || errno != 0 || !std::isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool parse_options(const std::vector<std::string> &args, Options *o,
		   std::string *err)
{
	static const std::set<std::string> common = {
		"--protocol", "--ports", "--first-port", "--ipv6", "--bpages"};
	static const std::set<std::string> server_only = {
		"--threads-per-port"};
	static const std::set<std::string> client_only = {
		"--servers", "--server-ports", "--workload", "--gbps",
		"--client-max", "--seconds", "--one-way", "--response-bytes",
		"--unloaded",
		"--output", "--seed", "--workload-dir"};
	static const std::set<std::string> flags = {"--ipv6", "--one-way"};
	bool protocol_set = false, first_port_set = false;
	long first_port = 0;

	*o = Options();
	if (args.empty()) {
		*err = "missing command (server or client)";
		return false;
	}
	for (const std::string &a : args)
		if (a == "--help" || a == "-h") {
			o->help = true;
			return true;
		}
	if (args[0] == "server") {
		o->mode = Options::kServer;
	} else if (args[0] == "client") {
		o->mode = Options::kClient;
	} else {
		*err = "unknown command '" + args[0] +
		       "' (want server or client)";
		return false;
	}
	for (size_t i = 1; i < args.size(); i++) {
		std::string name = args[i], val;
		bool has_val = false;
		size_t eq = name.find('=');
		if (name.compare(0, 2, "--") == 0 && eq != std::string::npos) {
			val = name.substr(eq + 1);
			name = name.substr(0, eq);
			has_val = true;
		}
		bool known = common.count(name) || server_only.count(name) ||
			     client_only.count(name);
		if (!known) {
			*err = "unknown option '" + name + "'";
			return false;
		}
		if ((o->mode == Options::kServer && client_only.count(name)) ||
		    (o->mode == Options::kClient && server_only.count(name))) {
			*err = "option " + name + " is not valid for " +
			       args[0];
			return false;
		}
		if (flags.count(name)) {
			if (has_val) {
				*err = "option " + name + " takes no value";
				return false;
			}
		} else if (!has_val) {
			if (i + 1 >= args.size()) {
				*err = "option " + name + " needs a value";
				return false;
			}
			val = args[++i];
		}
		long n;
		double d;
		std::string bad = "bad value '" + val + "' for " + name;
		if (name == "--protocol") {
			if (val != "homa" && val != "tcp") {
				*err = bad + " (want homa or tcp)";
				return false;
			}
			o->tcp = val == "tcp";
			protocol_set = true;
		} else if (name == "--ipv6") {
			o->ipv6 = true;
		} else if (name == "--one-way") {
			o->one_way = true;
		} else if (name == "--response-bytes") {
			if (!parse_int(val, 1, kMaxMessage, &n)) {
				*err = bad + " (want 1.." +
				       std::to_string(kMaxMessage) + ")";
				return false;
			}
			o->response_bytes = static_cast<int>(n);
		} else if (name == "--ports") {
			if (!parse_int(val, 1, 1000, &n)) {
				*err = bad + " (want 1..1000)";
				return false;
			}
			o->ports = static_cast<int>(n);
		} else if (name == "--first-port") {
			if (!parse_int(val, 1, 65535, &first_port)) {
				*err = bad + " (want 1..65535)";
				return false;
			}
			first_port_set = true;
		} else if (name == "--threads-per-port") {
			if (!parse_int(val, 1, 1000, &n)) {
				*err = bad + " (want 1..1000)";
				return false;
			}
			o->threads_per_port = static_cast<int>(n);
		} else if (name == "--bpages") {
			if (!parse_int(val, 1, 65536, &n)) {
				*err = bad + " (want 1..65536)";
				return false;
			}
			o->bpages = static_cast<int>(n);
		} else if (name == "--servers") {
			o->servers.clear();
			size_t start = 0;
			for (;;) {
				size_t c = val.find(',', start);
				std::string s = val.substr(start, c == std::string::npos ? std::string::npos : c - start);
				if (s.empty()) {
					*err = bad + " (empty address)";
					return false;
				}
				o->servers.push_back(s);
				if (c == std::string::npos)
					break;
				start = c + 1;
			}
		} else if (name == "--server-ports") {
			if (!parse_int(val, 1, 1000, &n)) {
				*err = bad + " (want 1..1000)";
				return false;
			}
			o->server_ports = static_cast<int>(n);
		} else if (name == "--workload") {
			if (val.empty()) {
				*err = bad;
				return false;
			}
			o->workload = val;
		} else if (name == "--workload-dir") {
			if (val.empty()) {
				*err = bad;
				return false;
			}
			o->workload_dir = val;
		} else if (name == "--gbps") {
			if (!parse_double(val, 0, 1e6, &d)) {
				*err = bad + " (want a number >= 0)";
				return false;
			}
			o->gbps = d;
		} else if (name == "--client-max") {
			if (!parse_int(val, 1, 100000, &n)) {
				*err = bad + " (want 1..100000)";
				return false;
			}
			o->client_max = static_cast<int>(n);
		} else if (name == "--seconds") {
			if (!parse_double(val, 0.001, 1e7, &d)) {
				*err = bad + " (want a number > 0)";
				return false;
			}
			o->seconds = d;
		} else if (name == "--unloaded") {
			if (!parse_int(val, 0, 100000000, &n)) {
				*err = bad + " (want a count >= 0)";
				return false;
			}
			o->unloaded = static_cast<int>(n);
		} else if (name == "--output") {
			if (val.empty()) {
				*err = bad;
				return false;
			}
			o->output = val;
		} else if (name == "--seed") {
			char *end;
			errno = 0;
			unsigned long long s =
				std::strtoull(val.c_str(), &end, 0);
			if (val.empty() || val[0] == '-' || *end != 0 ||
			    errno != 0) {
				*err = bad + " (want an unsigned integer)";
				return false;
			}
			o->seed = s;
			o->seed_set = true;
		}
	}
	if (!protocol_set) {
		*err = "--protocol homa|tcp is required";
		return false;
	}
	if (o->one_way && o->response_bytes >= 0) {
		*err = "--one-way and --response-bytes exclude each other";
		return false;
	}
	if (o->mode == Options::kClient && o->servers.empty()) {
		*err = "--servers is required for client";
		return false;
	}
	long nports = o->mode == Options::kServer ? o->ports : o->server_ports;
	if (!first_port_set)
		first_port = o->tcp ? 5000 : 4000;
	long limit = o->tcp ? 65535 : 0x7fff;	// Homa server ports < 0x8000
	if (first_port + nports - 1 > limit) {
		*err = "ports " + std::to_string(first_port) + ".." +
		       std::to_string(first_port + nports - 1) +
		       " exceed " + std::to_string(limit);
		return false;
	}
	o->first_port = static_cast<int>(first_port);
	return true;
}

}  // namespace cpnode
