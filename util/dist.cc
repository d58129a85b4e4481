// SPDX-License-Identifier: GPL-2.0+
#include "dist.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace cpnode {

double uniform01(Rng &rng)
{
	return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

double exponential(Rng &rng, double mean)
{
	return -mean * std::log1p(-uniform01(rng));
}

double mean_interarrival_ns(double mean_bytes, double gbps)
{
	// Gbit/s is bits per ns.
	return mean_bytes * 8.0 / gbps;
}

static std::string trim(const std::string &s)
{
	size_t b = s.find_first_not_of(" \t\r");
	size_t e = s.find_last_not_of(" \t\r");

	return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool Workload::parse(const std::string &text, std::string *err)
{
	std::map<uint32_t, double> freq;
	std::istringstream in(text);
	std::string line;
	int lineno = 0;

	while (std::getline(in, line)) {
		lineno++;
		line = trim(line);
		if (line.empty() || line[0] == '#')
			continue;
		size_t comma = line.find(',');
		std::string a = trim(line.substr(0, comma));
		std::string b = comma == std::string::npos ? "" :
				trim(line.substr(comma + 1));
		char *end;
		errno = 0;
		unsigned long long len = std::strtoull(a.c_str(), &end, 10);
		bool len_ok = !a.empty() && a[0] != '-' && *end == 0 &&
			      errno == 0 && len > 0;
		errno = 0;
		double f = std::strtod(b.c_str(), &end);
		bool f_ok = !b.empty() && *end == 0 && errno == 0 &&
			    std::isfinite(f) && f >= 0;
		if (!len_ok || !f_ok) {
			*err = "line " + std::to_string(lineno) +
			       ": want \"length,frequency\", got \"" + line +
			       "\"";
			return false;
		}
		if (len > kMaxMessage)
			len = kMaxMessage;
		freq[static_cast<uint32_t>(len)] += f;
	}
	double total = 0;
	for (auto &kv : freq)
		total += kv.second;
	if (!(total > 0)) {
		*err = "no lengths with a positive frequency";
		return false;
	}
	sizes_.clear();
	cdf_.clear();
	mean_ = 0;
	double cum = 0;
	for (auto &kv : freq) {
		if (kv.second == 0)
			continue;
		cum += kv.second;
		sizes_.push_back(kv.first);
		cdf_.push_back(cum / total);
		mean_ += kv.first * (kv.second / total);
	}
	cdf_.back() = 1.0;
	return true;
}

void Workload::set_fixed(uint32_t bytes)
{
	sizes_.assign(1, bytes);
	cdf_.assign(1, 1.0);
	mean_ = bytes;
}

bool Workload::load(const std::string &spec, const std::string &dir,
		    std::string *err)
{
	if (!spec.empty() &&
	    spec.find_first_not_of("0123456789") == std::string::npos) {
		errno = 0;
		unsigned long long n = std::strtoull(spec.c_str(), nullptr, 10);
		if (errno || n < 1 || n > kMaxMessage) {
			*err = "fixed message length " + spec +
			       " out of range 1.." +
			       std::to_string(kMaxMessage);
			return false;
		}
		set_fixed(static_cast<uint32_t>(n));
		return true;
	}
	std::string path = spec;
	bool is_path = spec.find('/') != std::string::npos ||
		       (spec.size() > 4 &&
			spec.compare(spec.size() - 4, 4, ".csv") == 0);
	if (!is_path)
		path = (dir.empty() ? std::string(".") : dir) + "/" + spec +
		       ".csv";
	std::ifstream f(path);
	if (!f) {
		*err = "cannot open workload file " + path;
		return false;
	}
	std::stringstream ss;
	ss << f.rdbuf();
	std::string perr;
	if (!parse(ss.str(), &perr)) {
		*err = path + ": " + perr;
		return false;
	}
	return true;
}

uint32_t Workload::sample(Rng &rng) const
{
	double u = uniform01(rng);
	size_t i = std::upper_bound(cdf_.begin(), cdf_.end(), u) -
		   cdf_.begin();

	if (i >= sizes_.size())
		i = sizes_.size() - 1;
	return sizes_[i];
}

double Workload::probability(size_t i) const
{
	return i == 0 ? cdf_[0] : cdf_[i] - cdf_[i - 1];
}

std::vector<uint32_t> Workload::representative(size_t max) const
{
	if (sizes_.size() <= max || max == 0)
		return max == 0 ? std::vector<uint32_t>() : sizes_;
	std::vector<uint32_t> out;
	for (size_t i = 0; i < max; i++) {
		double q = max == 1 ? 0.5 : static_cast<double>(i) / (max - 1);
		size_t k = std::lower_bound(cdf_.begin(), cdf_.end(), q) -
			   cdf_.begin();
		if (k >= sizes_.size())
			k = sizes_.size() - 1;
		if (out.empty() || out.back() != sizes_[k])
			out.push_back(sizes_[k]);
	}
	return out;
}

RequestStream::RequestStream(const Workload &w, size_t ndests,
			     uint64_t seed)
	: w_(w), ndests_(ndests ? ndests : 1), rng_(seed),
	  dest_rng_(seed ^ 0x9e3779b97f4a7c15ull)
{
}

size_t RequestStream::dest()
{
	size_t d = static_cast<size_t>(uniform01(dest_rng_) * ndests_);

	return d < ndests_ ? d : ndests_ - 1;
}

Request RequestStream::next()
{
	Request req;

	req.length = w_.sample(rng_);
	req.dest = dest();
	return req;
}

double RequestStream::gap(double mean_ns)
{
	return exponential(rng_, mean_ns);
}

}  // namespace cpnode
