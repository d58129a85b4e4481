// SPDX-License-Identifier: GPL-2.0+
#include "args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

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
"               [--seconds S] [--warmup S]\n"
"               [--one-way | --response-bytes N]\n"
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

namespace {

// What parse_options() needs besides the Options themselves.
struct ParseState {
	bool protocol_set = false;
	bool first_port_set = false;
	long first_port = 0;
};

// Sets an option from its value @val: false with the reason (appended to
// "bad value ...", possibly empty) in @why when the value is bad.
typedef bool (*Setter)(const std::string &val, Options *o, ParseState *st,
		       std::string *why);

// Which command an option belongs to.
enum Scope { kCommon, kServerOnly, kClientOnly };

struct OptionSpec {
	const char *name;
	Scope scope;
	bool flag;	// takes no value
	Setter set;
};

// An integer option in lo..hi into @dst; @want overrides the reason
// " (want lo..hi)".
bool set_int(const std::string &val, long lo, long hi, int *dst,
	     std::string *why, const char *want = nullptr)
{
	long n;

	if (!parse_int(val, lo, hi, &n)) {
		*why = want ? want : " (want " + std::to_string(lo) + ".." +
					     std::to_string(hi) + ")";
		return false;
	}
	*dst = static_cast<int>(n);
	return true;
}

// A floating-point option in lo..hi into @dst.
bool set_double(const std::string &val, double lo, double hi, double *dst,
		std::string *why, const char *want)
{
	if (!parse_double(val, lo, hi, dst)) {
		*why = want;
		return false;
	}
	return true;
}

// A string option that must not be empty.
bool set_string(const std::string &val, std::string *dst)
{
	if (val.empty())
		return false;
	*dst = val;
	return true;
}

bool set_protocol(const std::string &val, Options *o, ParseState *st,
		  std::string *why)
{
	if (val != "homa" && val != "tcp") {
		*why = " (want homa or tcp)";
		return false;
	}
	o->tcp = val == "tcp";
	st->protocol_set = true;
	return true;
}

bool set_first_port(const std::string &val, Options *, ParseState *st,
		    std::string *why)
{
	if (!parse_int(val, 1, 65535, &st->first_port)) {
		*why = " (want 1..65535)";
		return false;
	}
	st->first_port_set = true;
	return true;
}

// --servers A,B,...: no empty address.
bool set_servers(const std::string &val, Options *o, ParseState *,
		 std::string *why)
{
	size_t start = 0;

	o->servers.clear();
	for (;;) {
		size_t c = val.find(',', start);
		std::string s = val.substr(start, c == std::string::npos ?
						  std::string::npos :
						  c - start);
		if (s.empty()) {
			*why = " (empty address)";
			return false;
		}
		o->servers.push_back(s);
		if (c == std::string::npos)
			return true;
		start = c + 1;
	}
}

// --seed: decimal or 0x hex, unsigned.
bool set_seed(const std::string &val, Options *o, ParseState *,
	      std::string *why)
{
	char *end;

	errno = 0;
	unsigned long long s = std::strtoull(val.c_str(), &end, 0);
	if (val.empty() || val[0] == '-' || *end != 0 || errno != 0) {
		*why = " (want an unsigned integer)";
		return false;
	}
	o->seed = s;
	o->seed_set = true;
	return true;
}

// Every option, by name.
const OptionSpec kOptions[] = {
	{"--protocol", kCommon, false, set_protocol},
	{"--ports", kCommon, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 1, 1000, &o->ports, w);
	 }},
	{"--first-port", kCommon, false, set_first_port},
	{"--ipv6", kCommon, true,
	 [](const std::string &, Options *o, ParseState *, std::string *) {
		 return o->ipv6 = true;
	 }},
	{"--bpages", kCommon, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 1, 65536, &o->bpages, w);
	 }},
	{"--threads-per-port", kServerOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 1, 1000, &o->threads_per_port, w);
	 }},
	{"--servers", kClientOnly, false, set_servers},
	{"--server-ports", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 1, 1000, &o->server_ports, w);
	 }},
	{"--workload", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *) {
		 return set_string(v, &o->workload);
	 }},
	{"--gbps", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_double(v, 0, 1e6, &o->gbps, w,
				   " (want a number >= 0)");
	 }},
	{"--client-max", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 1, 100000, &o->client_max, w);
	 }},
	{"--seconds", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_double(v, 0.001, 1e7, &o->seconds, w,
				   " (want a number > 0)");
	 }},
	{"--warmup", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_double(v, 0, 1e7, &o->warmup, w,
				   " (want a number >= 0)");
	 }},
	{"--one-way", kClientOnly, true,
	 [](const std::string &, Options *o, ParseState *, std::string *) {
		 return o->one_way = true;
	 }},
	{"--response-bytes", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 1, kMaxMessage, &o->response_bytes, w);
	 }},
	{"--unloaded", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *w) {
		 return set_int(v, 0, 100000000, &o->unloaded, w,
				" (want a count >= 0)");
	 }},
	{"--output", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *) {
		 return set_string(v, &o->output);
	 }},
	{"--seed", kClientOnly, false, set_seed},
	{"--workload-dir", kClientOnly, false,
	 [](const std::string &v, Options *o, ParseState *, std::string *) {
		 return set_string(v, &o->workload_dir);
	 }},
};

const OptionSpec *find_option(const std::string &name)
{
	for (const OptionSpec &spec : kOptions)
		if (name == spec.name)
			return &spec;
	return nullptr;
}

// The command (args[0]) and --help anywhere: false with @err for a bad
// command.
bool parse_command(const std::vector<std::string> &args, Options *o,
		   std::string *err)
{
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
	return true;
}

// The option at args[*i] (--name value or --name=value); advances *i past
// its value.
bool parse_one(const std::vector<std::string> &args, size_t *i, Options *o,
	       ParseState *st, std::string *err)
{
	std::string name = args[*i], val;
	bool has_val = false;
	size_t eq = name.find('=');

	if (name.compare(0, 2, "--") == 0 && eq != std::string::npos) {
		val = name.substr(eq + 1);
		name = name.substr(0, eq);
		has_val = true;
	}
	const OptionSpec *spec = find_option(name);
	if (!spec) {
		*err = "unknown option '" + name + "'";
		return false;
	}
	if ((o->mode == Options::kServer && spec->scope == kClientOnly) ||
	    (o->mode == Options::kClient && spec->scope == kServerOnly)) {
		*err = "option " + name + " is not valid for " + args[0];
		return false;
	}
	if (spec->flag && has_val) {
		*err = "option " + name + " takes no value";
		return false;
	}
	if (!spec->flag && !has_val) {
		if (*i + 1 >= args.size()) {
			*err = "option " + name + " needs a value";
			return false;
		}
		val = args[++*i];
	}
	std::string why;
	if (!spec->set(val, o, st, &why)) {
		*err = "bad value '" + val + "' for " + name + why;
		return false;
	}
	return true;
}

// What no single option can say: required options, exclusions, and the
// ports' range (resolving the first port).
bool check_options(Options *o, const ParseState &st, std::string *err)
{
	if (!st.protocol_set) {
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
	long first_port = st.first_port_set ? st.first_port :
			  o->tcp ? 5000 : 4000;
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

}  // namespace

bool parse_options(const std::vector<std::string> &args, Options *o,
		   std::string *err)
{
	ParseState st;

	*o = Options();
	if (!parse_command(args, o, err))
		return false;
	if (o->help)
		return true;
	for (size_t i = 1; i < args.size(); i++)
		if (!parse_one(args, &i, o, &st, err))
			return false;
	return check_options(o, st, err);
}

}  // namespace cpnode
