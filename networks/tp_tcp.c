/* transport type="tcp": TCP NewReno (RFC 6582 over RFC 5681), without ECN.
 * Slow start from init-cwnd segments, congestion avoidance, fast
 * retransmit and fast recovery on three duplicate ACKs, the RTO of RFC 6298
 * with min-rto: the loss recovery and the timer are transport.c's (shared
 * with dctcp); this file is the window's growth and its cut, which are
 * Reno's: tp_reno_grow per ACK of new data (cwnd += mss below ssthresh,
 * += max(1, mss^2 / cwnd) above: ns-3's TcpNewReno, one mss per ACK in slow
 * start whatever the ACK covers, as RFC 5681 sec. 3.1 allows), and
 * ssthresh = max(FlightSize / 2, 2 mss) on a loss (RFC 5681 eq. 4).
 * transport.growth="linux" grows as Linux instead (tp_grow: per segment
 * acked, ns-3's TcpLinuxReno). transport.sack="on" replaces NewReno's
 * recovery by RFC 6675's and transport.limited-transmit="on" adds RFC 3042
 * (transport.c), for tcp and dctcp alike. */
#include "transport.h"

static void tcp_init(tp_flow *f) { (void)f; }

static void tcp_on_ack(tp_flow *f, uint64_t acked_bytes, int ece)
{
    (void)ece;
    tp_grow(f, acked_bytes);
}

const tp_cc_ops tp_tcp_ops = {
    .name = "tcp",
    .description = "TCP NewReno (RFC 6582): slow start, congestion avoidance, fast retransmit and recovery, RTO",
    .ect = 0,
    .init = tcp_init,
    .on_ack = tcp_on_ack,
    .ssthresh = tp_reno_ssthresh,
};
