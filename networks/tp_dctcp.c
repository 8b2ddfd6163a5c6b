/* transport type="dctcp": DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010)
 * over the NewReno machinery of transport.c.
 *   Segments are ECN-capable (ECT(0)); ports mark CE above their threshold
 *   (networks/port.h); the receiver echoes CE with RFC 8257 sec. 3.2's
 *   state machine (transport.c).
 *   Sender (RFC 8257 sec. 3.3): per ACK of new data, bytes_acked += its
 *   bytes, and bytes_marked too if it carries ECE; when una passes the end
 *   of the observation window (the nxt of when the window began, one RTT
 *   of data), alpha = (1 - g) alpha + g M with M = bytes_marked /
 *   bytes_acked, and a new window begins. alpha starts at 1 (RFC 8257 sec.
 *   3.3, ns-3's TcpDctcp). The first window ends with the first ACK of
 *   data (WindowEnd starts at SND.UNA), and an ACK that reaches the
 *   window's end exactly does not end it (sec. 3.3 step 4: "less than or
 *   equal to DCTCP.WindowEnd, stop processing"). Linux's
 *   dctcp_update_alpha ends a window at una >= its end, one ACK earlier, and
 *   so does ns-3's TcpDctcp::PktsAcked, whose first window moreover ends
 *   only when the initial window is acked (m_nextSeq taken at the first
 *   ACK): its alpha lags tasknet's by one update early in a flow. On an ECE, at most once per window of data
 *   (until una passes the nxt of the cut: the CWR state of RFC 3168), cwnd
 *   = max(cwnd (1 - alpha / 2), 2 mss) and ssthresh = cwnd (RFC 8257 sec.
 *   3.3, floor as ns-3's); while in CWR the window does not grow. Without
 *   ECE the window grows as transport.growth says: Reno's by default,
 *   "linux" as ns-3's TcpDctcp (a TcpLinuxReno: per segment acked). Losses are Reno's (ssthresh = max(Flight
 *   / 2, 2 mss)). g = transport.g (1/16). */
#include "transport.h"

static void dctcp_init(tp_flow *f)
{
    f->alpha = 1.0;
    f->win_end = f->nxt;
    f->win_acked = f->win_marked = 0;
    f->in_cwr = 0;
    f->cwr_end = 0;
}

static void dctcp_on_ack(tp_flow *f, uint64_t acked_bytes, int ece)
{
    f->win_acked += acked_bytes;
    if (ece)
        f->win_marked += acked_bytes;
    if (f->una > f->win_end) {
        double M = f->win_acked ? (double)f->win_marked / (double)f->win_acked : 0;
        double g = tp_flow_params(f)->g;
        f->alpha = (1 - g) * f->alpha + g * M;
        f->win_acked = f->win_marked = 0;
        f->win_end = f->nxt;
    }
    if (f->in_cwr && f->una > f->cwr_end)
        f->in_cwr = 0;
    if (ece && !f->in_cwr) {
        uint64_t c = (uint64_t)((double)f->cwnd * (1 - f->alpha / 2));
        if (c < 2 * f->mss)
            c = 2 * f->mss;
        f->cwnd = c;
        f->ssthresh = c;
        f->in_cwr = 1;
        f->cwr_end = f->nxt;
        return;
    }
    if (!f->in_cwr)
        tp_grow(f, acked_bytes);
}

/* A timeout ends CWR (RFC 3168 sec. 6.1.2: the sender is in loss
 * recovery now; ns-3 and Linux leave CWR for the Loss state): the window
 * grows again in slow start from 1 mss. */
static void dctcp_on_timeout(tp_flow *f) { f->in_cwr = 0; }

const tp_cc_ops tp_dctcp_ops = {
    .name = "dctcp",
    .description = "DCTCP (RFC 8257): ECN-capable, window cut by alpha/2 once per window of marks",
    .ect = 1,
    .init = dctcp_init,
    .on_ack = dctcp_on_ack,
    .on_timeout = dctcp_on_timeout,
    .ssthresh = tp_reno_ssthresh,
};
