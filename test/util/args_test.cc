// SPDX-License-Identifier: GPL-2.0+
// Command-line parsing: defaults, every option, and rejected input.

#include <gtest/gtest.h>

#include <sstream>

#include "args.h"

using namespace cpnode;

namespace {

std::vector<std::string> split(const std::string &s)
{
	std::istringstream in(s);
	std::vector<std::string> out;
	std::string w;

	while (in >> w)
		out.push_back(w);
	return out;
}

Options good(const std::string &cmd)
{
	Options o;
	std::string err;
	EXPECT_TRUE(parse_options(split(cmd), &o, &err))
		<< cmd << ": " << err;
	return o;
}

std::string bad(const std::string &cmd)
{
	Options o;
	std::string err;
	EXPECT_FALSE(parse_options(split(cmd), &o, &err)) << cmd;
	EXPECT_FALSE(err.empty()) << cmd;
	return err;
}

}  // namespace

TEST(Args, parse_options__server_defaults)
{
	Options o = good("server --protocol homa");
	EXPECT_EQ(o.mode, Options::kServer);
	EXPECT_FALSE(o.tcp);
	EXPECT_EQ(o.ports, 1);
	EXPECT_EQ(o.first_port, 4000);
	EXPECT_EQ(o.threads_per_port, 1);
	EXPECT_FALSE(o.ipv6);
	EXPECT_EQ(o.bpages, 1000);
	o = good("server --protocol tcp");
	EXPECT_TRUE(o.tcp);
	EXPECT_EQ(o.first_port, 5000);
}

TEST(Args, parse_options__server_all)
{
	Options o = good("server --protocol tcp --ports 3 --first-port 6000 "
			 "--threads-per-port 4 --ipv6 --bpages 64");
	EXPECT_EQ(o.ports, 3);
	EXPECT_EQ(o.first_port, 6000);
	EXPECT_EQ(o.threads_per_port, 4);
	EXPECT_TRUE(o.ipv6);
	EXPECT_EQ(o.bpages, 64);
}

TEST(Args, parse_options__client_defaults)
{
	Options o = good("client --protocol homa --servers 10.0.0.2");
	EXPECT_EQ(o.mode, Options::kClient);
	ASSERT_EQ(o.servers.size(), 1u);
	EXPECT_EQ(o.servers[0], "10.0.0.2");
	EXPECT_EQ(o.server_ports, 1);
	EXPECT_EQ(o.first_port, 4000);
	EXPECT_EQ(o.ports, 1);
	EXPECT_EQ(o.workload, "w4");
	EXPECT_EQ(o.gbps, 0);
	EXPECT_EQ(o.client_max, 20);
	EXPECT_EQ(o.seconds, 10);
	EXPECT_EQ(o.warmup, 0);
	EXPECT_FALSE(o.one_way);
	EXPECT_EQ(o.response_bytes, -1);
	EXPECT_EQ(o.unloaded, 0);
	EXPECT_EQ(o.output, "");
	EXPECT_FALSE(o.seed_set);
	EXPECT_EQ(o.workload_dir, "");
}

TEST(Args, parse_options__client_all)
{
	Options o = good(
		"client --protocol tcp --servers a,b,fd00::2 --server-ports 4 "
		"--first-port 7000 --ports 2 --workload 100000 --gbps 0.5 "
		"--client-max 7 --seconds 2.5 --warmup 1.5 --one-way "
		"--unloaded 10 "
		"--output /tmp/x --seed 0x10 --ipv6 --workload-dir /w "
		"--bpages 20");
	ASSERT_EQ(o.servers.size(), 3u);
	EXPECT_EQ(o.servers[2], "fd00::2");
	EXPECT_EQ(o.server_ports, 4);
	EXPECT_EQ(o.first_port, 7000);
	EXPECT_EQ(o.ports, 2);
	EXPECT_EQ(o.workload, "100000");
	EXPECT_DOUBLE_EQ(o.gbps, 0.5);
	EXPECT_EQ(o.client_max, 7);
	EXPECT_DOUBLE_EQ(o.seconds, 2.5);
	EXPECT_DOUBLE_EQ(o.warmup, 1.5);
	EXPECT_TRUE(o.one_way);
	EXPECT_EQ(o.unloaded, 10);
	EXPECT_EQ(o.output, "/tmp/x");
	EXPECT_TRUE(o.seed_set);
	EXPECT_EQ(o.seed, 16u);
	EXPECT_TRUE(o.ipv6);
	EXPECT_EQ(o.workload_dir, "/w");
	EXPECT_EQ(o.bpages, 20);
}

TEST(Args, parse_options__response_bytes)
{
	Options o = good("client --protocol homa --servers a "
			 "--response-bytes 100000 --workload 100");
	EXPECT_EQ(o.response_bytes, 100000);
	EXPECT_FALSE(o.one_way);
	o = good("client --protocol tcp --servers a --response-bytes=1");
	EXPECT_EQ(o.response_bytes, 1);
	o = good("client --protocol tcp --servers a --response-bytes 1000000");
	EXPECT_EQ(o.response_bytes, 1000000);
	bad("client --protocol homa --servers a --response-bytes 0");
	bad("client --protocol homa --servers a --response-bytes 1000001");
	bad("client --protocol homa --servers a --response-bytes -5");
	bad("client --protocol homa --servers a --response-bytes 1k");
	bad("client --protocol homa --servers a --response-bytes");
	bad("server --protocol homa --response-bytes 100");	// client only
	std::string err = bad("client --protocol homa --servers a --one-way "
			      "--response-bytes 10");
	EXPECT_NE(err.find("--one-way"), std::string::npos) << err;
}

TEST(Args, parse_options__equals_form)
{
	Options o = good("client --protocol=tcp --servers=h --gbps=2 "
			 "--workload=w1");
	EXPECT_TRUE(o.tcp);
	EXPECT_EQ(o.servers[0], "h");
	EXPECT_DOUBLE_EQ(o.gbps, 2);
	EXPECT_EQ(o.workload, "w1");
}

TEST(Args, parse_options__help)
{
	Options o = good("client --help");
	EXPECT_TRUE(o.help);
	o = good("-h");
	EXPECT_TRUE(o.help);
}

TEST(Args, parse_options__bad)
{
	bad("");
	bad("serve --protocol homa");
	bad("server");				// no protocol
	bad("server --protocol udp");
	bad("server --protocol");		// missing value
	bad("server --protocol homa --ports 0");
	bad("server --protocol homa --ports x");
	bad("server --protocol homa --ports 3x");
	bad("server --protocol homa --threads-per-port 0");
	bad("server --protocol homa --bpages 0");
	bad("server --protocol homa --first-port 32767 --ports 2");
	bad("server --protocol homa --first-port 40000");
	bad("server --protocol tcp --first-port 70000");
	bad("server --protocol homa --servers a");	// client only
	bad("server --protocol homa --bogus 1");
	bad("server --protocol homa extra");
	bad("client --protocol homa");			// no servers
	bad("client --protocol homa --servers a,,b");
	bad("client --protocol homa --servers a --threads-per-port 2");
	bad("client --protocol homa --servers a --gbps -1");
	bad("client --protocol homa --servers a --gbps inf");
	bad("client --protocol homa --servers a --client-max 0");
	bad("client --protocol homa --servers a --seconds 0");
	bad("client --protocol homa --servers a --seconds abc");
	bad("client --protocol homa --servers a --warmup -1");
	bad("server --protocol homa --warmup 1");
	bad("client --protocol homa --servers a --unloaded -1");
	bad("client --protocol homa --servers a --seed -3");
	bad("client --protocol homa --servers a --one-way=1");
	bad("client --protocol homa --servers a --server-ports 0");
	bad("client --protocol homa --servers a --first-port 32000 "
	    "--server-ports 1000");
	std::string err = bad("client --protocol homa --servers a --ports");
	EXPECT_NE(err.find("--ports"), std::string::npos) << err;
}
