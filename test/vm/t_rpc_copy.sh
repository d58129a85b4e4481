#!/usr/bin/env bash
# Early copies: a thread waiting in recvmsg copies a message's packets into
# its buffers in batches of copy_batch bytes (at least two packets) while
# the rest arrives. Echo RPCs must arrive byte for byte with batches of
# every size (0: whole messages only; 1: the smallest, two packets), for
# shared and private RPCs, with packet loss and with several RPCs at once;
# the copy_early counters must rise only when batches are on; nothing may
# be left behind.
#
#   [cp1] veth1 10.6.0.1 fd06::1 ---- veth2 10.6.0.2 fd06::2 [cp2]
# shellcheck source=test/vm/lib.sh
source "$(dirname "$0")/lib.sh"

link_pair cp1 cp2 10.6.0 fd06
serve cp2 4 60
serve cp2 6 61

# early: the batches both hosts copied early so far.
early() {
	echo $(($(metric cp1 copy_early_batches) +
		$(metric cp2 copy_early_batches)))
}

for batch in 0 1 1500 32768 1000000; do
	homa_set copy_batch="$batch" cp1 cp2
	before=$(early)
	check "copy_batch $batch: IPv4 echo 1 MB" in_ns cp1 "$HOMA_TEST" \
		client 10.6.0.2 60 4 1000000 1
	check "copy_batch $batch: IPv6 echo 100000 B, 4 at once" in_ns cp1 \
		"$HOMA_TEST" client fd06::2 61 20 100000 4
	check "copy_batch $batch: random sizes, 8 at once" in_ns cp1 \
		"$HOMA_TEST" client 10.6.0.2 60 40 0 8
	check "copy_batch $batch: private echo 500000 B" in_ns cp1 \
		"$HOMA_TEST" pclient 10.6.0.2 60 4 500000
	copied=$(($(early) - before))
	case $batch in
	0 | 1000000)
		# 1000000: a batch is never complete before its message.
		check_eq "copy_batch $batch: no early copies" "$copied" 0 ;;
	*)
		check "copy_batch $batch: early copies ($copied)" \
			test "$copied" -gt 0 ;;
	esac
done

# Loss: retransmitted packets land in buffers partly copied already.
homa_set copy_batch=1 cp1 cp2
check "one RPC before the loss" in_ns cp1 "$HOMA_TEST" client \
	10.6.0.2 60 1 100 1
tc -n cp1 qdisc replace dev veth1 root netem loss 5% duplicate 5%
tc -n cp2 qdisc replace dev veth2 root netem loss 5% duplicate 5%
check "5% loss, copy_batch 1: 10 RPCs up to 1 MB" in_ns cp1 "$HOMA_TEST" \
	client 10.6.0.2 60 10 0 2
check "5% loss, copy_batch 1: private echo 300000 B" in_ns cp1 \
	"$HOMA_TEST" pclient 10.6.0.2 60 3 300000
tc -n cp1 qdisc del dev veth1 root
tc -n cp2 qdisc del dev veth2 root
homa_set copy_batch=32768 cp1 cp2
live_zero cp1 cp2
finish
