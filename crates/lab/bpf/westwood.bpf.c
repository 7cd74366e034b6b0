// SPDX-License-Identifier: GPL-2.0
/*
 * TCP Westwood+ as a BPF tcp_congestion_ops (struct_ops), with eMPTCP's
 * increment coefficient a per socket, for pathpool's kernel lab
 * (docs/lab.md, "Westwood+ on the lab"). Written from the algorithm: Mascolo
 * et al., MobiCom 2001; Grieco and Mascolo, CCR 2004; the bandwidth filter,
 * the sampling window and the adaptive decrease as Linux's
 * net/ipv4/tcp_westwood.c; the increment of eMPTCP (Nuha et al. 2024,
 * eqs. 14, 21 and 31). Same algorithm as the simulator's
 * crates/sim/src/cc/westwood.rs:
 *
 *   ACK:  W <- W + a/W per ACKed segment in congestion avoidance
 *   LOSS: ssthresh = max(2, BWE * RTTmin / MSS)
 *
 * Integer arithmetic only: time in microseconds (tp->tcp_mstamp), the
 * estimate in bytes per second, a in fixed point (A_ONE = 1.0).
 *
 * Maps (user space: crates/lab/src/bpf/):
 *   pp_ww_flow_a  server port -> a     the flow's [tcp.cc_params] increment
 *   pp_ww_sk_a    4-tuple -> a         set by a controller (SetIncrement)
 *   pp_ww_est     4-tuple -> estimate  BWE, RTTmin and a, for user space
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

char _license[] SEC("license") = "GPL";

/* a = 1.0 in fixed point (16 fractional bits; user space scales the same). */
#define A_ONE 65536u
/* Linux TCP_WESTWOOD_RTT_MIN: a bandwidth sample spans at least 50 ms. */
#define RTT_MIN_WINDOW_US 50000u
/* Linux TCP_WESTWOOD_INIT_RTT: the RTT assumed before the first sample. */
#define INIT_RTT_US 20000000u
#define USEC_PER_SEC 1000000ull

/* A socket's ends as the lab names them: addresses in network order, ports in host order. */
struct tuple {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
};

struct estimate {
	__u64 bw_est;     /* BWE, bytes of payload per second */
	__u32 rtt_min_us; /* RTTmin */
	__u32 a;          /* the increment coefficient in use, fixed point */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u16);
	__type(value, __u32);
} pp_ww_flow_a SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tuple);
	__type(value, __u32);
} pp_ww_sk_a SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tuple);
	__type(value, struct estimate);
} pp_ww_est SEC(".maps");

/* Per-socket state in icsk_ca_priv (Linux struct westwood, times in µs). */
struct westwood {
	__u64 bw_ns_est;   /* once-filtered bandwidth, bytes/s */
	__u64 bw_est;      /* twice-filtered: the BWE, bytes/s */
	__u64 rtt_win_sx;  /* start of the sampling window, µs */
	__u64 credit;      /* ACKed segments towards the next increase, times a */
	__u32 bk;          /* bytes delivered in the window */
	__u32 delivered;   /* tp->delivered at the last ACK */
	__u32 rtt;         /* latest RTT sample, µs */
	__u32 rtt_min;     /* µs */
	__u8 reset_rtt_min;
};

static struct westwood *ca(struct sock *sk)
{
	return (struct westwood *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static struct tcp_sock *tcp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static void sock_tuple(struct sock *sk, struct tuple *t)
{
	t->saddr = sk->__sk_common.skc_rcv_saddr;
	t->daddr = sk->__sk_common.skc_daddr;
	t->sport = sk->__sk_common.skc_num;
	t->dport = bpf_ntohs(sk->__sk_common.skc_dport);
}

/* The socket's a: a controller's (by 4-tuple), else its flow's (the lab's
 * server port 5001 + flow id is one of its ports), else 1. */
static __u32 increment(struct sock *sk)
{
	struct tuple t = {};
	__u32 *a;

	sock_tuple(sk, &t);
	a = bpf_map_lookup_elem(&pp_ww_sk_a, &t);
	if (!a)
		a = bpf_map_lookup_elem(&pp_ww_flow_a, &t.dport);
	if (!a)
		a = bpf_map_lookup_elem(&pp_ww_flow_a, &t.sport);
	return a ? *a : A_ONE;
}

/* Linux tcp_westwood_bw_rttmin: max(2, BWE * RTTmin / MSS) segments. */
static __u32 bw_rttmin(struct sock *sk)
{
	struct westwood *w = ca(sk);
	__u32 mss = tcp(sk)->mss_cache ?: 1;
	__u64 segs = w->bw_est * w->rtt_min / USEC_PER_SEC / mss;

	return segs > 2 ? (__u32)segs : 2;
}

static void export(struct sock *sk)
{
	struct westwood *w = ca(sk);
	struct estimate e = { .bw_est = w->bw_est, .rtt_min_us = w->rtt_min, .a = increment(sk) };
	struct tuple t = {};

	sock_tuple(sk, &t);
	bpf_map_update_elem(&pp_ww_est, &t, &e, BPF_ANY);
}

SEC("struct_ops")
void BPF_PROG(ww_init, struct sock *sk)
{
	struct westwood *w = ca(sk);

	/* Linux tcp_westwood_init. */
	w->bw_ns_est = 0;
	w->bw_est = 0;
	w->bk = 0;
	w->credit = 0;
	w->rtt = INIT_RTT_US;
	w->rtt_min = INIT_RTT_US;
	w->reset_rtt_min = 1;
	w->rtt_win_sx = tcp(sk)->tcp_mstamp;
	w->delivered = tcp(sk)->delivered;
}

/* Linux westwood_filter / westwood_do_filter: x <- (7x + sample) / 8, twice;
 * the first sample fills both. */
static void filter(struct westwood *w, __u64 window_us)
{
	__u64 sample = (__u64)w->bk * USEC_PER_SEC / window_us;

	if (w->bw_ns_est == 0 && w->bw_est == 0) {
		w->bw_ns_est = sample;
		w->bw_est = sample;
	} else {
		w->bw_ns_est = (7 * w->bw_ns_est + sample) >> 3;
		w->bw_est = (7 * w->bw_est + w->bw_ns_est) >> 3;
	}
}

/* Every ACK (called from tcp_clean_rtx_queue, after SACK and cumulative
 * delivery are counted). Linux westwood_update_window, then the delivered
 * bytes, then update_rtt_min. Linux estimates the delivered bytes from
 * snd_una and duplicate ACKs (westwood_acked_count); tp->delivered counts
 * them exactly, as the simulator's SACK scoreboard does. */
SEC("struct_ops")
void BPF_PROG(ww_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp(sk);
	struct westwood *w = ca(sk);
	__u64 now = tp->tcp_mstamp;
	__u64 window = now - w->rtt_win_sx;
	__u32 least;

	/* Linux tcp_westwood_pkts_acked: the latest RTT sample. */
	if (sample->rtt_us > 0)
		w->rtt = sample->rtt_us;
	least = w->rtt > RTT_MIN_WINDOW_US ? w->rtt : RTT_MIN_WINDOW_US;
	if (window > least) {
		filter(w, window);
		w->bk = 0;
		w->rtt_win_sx = now;
		export(sk);
	}
	w->bk += (tp->delivered - w->delivered) * tp->mss_cache;
	w->delivered = tp->delivered;
	if (w->reset_rtt_min) {
		w->rtt_min = w->rtt;
		w->reset_rtt_min = 0;
	} else if (w->rtt < w->rtt_min) {
		w->rtt_min = w->rtt;
	}
}

/* Linux tcp_is_cwnd_limited (include/net/tcp.h). */
static bool cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
void BPF_PROG(ww_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp(sk);
	struct westwood *w = ca(sk);
	__u64 need, grow;

	if (!cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		/* Slow start: W <- W + 1 per ACKed segment (Reno's, eMPTCP eq. 11). */
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	/* W <- W + a/W per ACKed segment (eq. 14): one segment per W/a ACKed. */
	w->credit += (__u64)increment(sk) * acked;
	need = (__u64)tp->snd_cwnd * A_ONE;
	if (w->credit >= need) {
		grow = w->credit / need;
		w->credit -= grow * need;
		tp->snd_cwnd += grow;
	}
	if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

/* Entering recovery or CWR: the adaptive decrease (eq. 14). */
SEC("struct_ops")
__u32 BPF_PROG(ww_ssthresh, struct sock *sk)
{
	ca(sk)->credit = 0;
	return bw_rttmin(sk);
}

/* Linux tcp_westwood_event: at the end of recovery cwnd = ssthresh =
 * BWE * RTTmin; on a timeout ssthresh likewise, and RTTmin is re-learnt. */
SEC("struct_ops")
void BPF_PROG(ww_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp(sk);

	if (event == CA_EVENT_COMPLETE_CWR) {
		tp->snd_ssthresh = bw_rttmin(sk);
		tp->snd_cwnd = tp->snd_ssthresh;
	} else if (event == CA_EVENT_LOSS) {
		tp->snd_ssthresh = bw_rttmin(sk);
		ca(sk)->reset_rtt_min = 1;
		ca(sk)->credit = 0;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(ww_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

/* The socket's entries go with it: a later socket may reuse its 4-tuple. */
SEC("struct_ops")
void BPF_PROG(ww_release, struct sock *sk)
{
	struct tuple t = {};

	sock_tuple(sk, &t);
	bpf_map_delete_elem(&pp_ww_est, &t);
	bpf_map_delete_elem(&pp_ww_sk_a, &t);
}

SEC(".struct_ops")
struct tcp_congestion_ops pp_westwood = {
	.init = (void *)ww_init,
	.release = (void *)ww_release,
	.ssthresh = (void *)ww_ssthresh,
	.cong_avoid = (void *)ww_cong_avoid,
	.cwnd_event = (void *)ww_cwnd_event,
	.pkts_acked = (void *)ww_pkts_acked,
	.undo_cwnd = (void *)ww_undo_cwnd,
	.name = "pp_westwood",
};
