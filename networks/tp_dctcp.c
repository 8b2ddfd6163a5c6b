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
 *   / 2, 2 mss)). g = transport.g (1/16).
 *
 * variant="ns-3" (transport.variant; the default "rfc" is all of the
 * above): ns-3 3.37's TcpDctcp over its TcpSocketBase (Debian's libns3-dev
 * 3.37, the ns-3 used for cross-validation: README's "Against ns-3"), which
 * departs from RFC 8257 / 5681 / 3168 in four ways this variant
 * reproduces. It is for comparing with published ns-3 studies, not a
 * model of DCTCP: each departure makes flows wait for the RTO where the
 * RFCs recover sooner. Sources, ns-3.37 (src/internet/model/):
 *   (a) On a loss, ssthresh = (1 - alpha / 2) cwnd, not max(FlightSize / 2,
 *     2 mss): TcpDctcp::GetSsThresh (tcp-dctcp.cc) returns (1 - m_alpha /
 *     2) m_cWnd whatever bytesInFlight, and TcpSocketBase calls it for
 *     fast retransmit too (EnterRecovery, tcp-socket-base.cc) and on a
 *     timeout (ReTxTimeout), where cwnd is the value before the timeout
 *     (in fast recovery ssthresh: TcpClassicRecovery sets m_cWnd =
 *     m_ssThresh and inflates m_cWndInfl only). No 2-mss floor. A timeout that comes again before una reaches the
 *     recovery point of the one before, its head already sent again
 *     (ns-3's CA_LOSS with IsHeadRetransmitted), keeps ssthresh
 *     (ReTxTimeout's condition; RFC 5681 sec. 3.1 says the same).
 *   (b) No fast retransmit in CWR: while in CWR (an ECN cut, until una
 *     passes its nxt), a duplicate ACK is counted and does nothing else,
 *     neither fast retransmit nor limited transmit: TcpSocketBase::DupAck
 *     acts in CA_RECOVERY and CA_DISORDER only, and an ACK with ECE moves
 *     CA_OPEN to CA_CWR (EnterCwr), never to CA_DISORDER. A segment lost
 *     in CWR waits for the RTO (RFC 5681 sec. 3.2 and RFC 3168 sec. 6.1.2
 *     would retransmit it on the third duplicate ACK).
 *   (c) No 2-segment floor under the ECN cut: cwnd = ssthresh = (1 -
 *     alpha / 2) cwnd (EnterCwr: GetSsThresh, then
 *     TcpClassicRecovery::EnterRecovery in tcp-recovery-ops.cc sets m_cWnd
 *     = m_ssThresh). A window below one segment sends nothing but a last
 *     segment that fits (TcpSocketBase::SendPendingData's silly-window
 *     rule: transport.c, output_ns3), so such a flow waits for the RTO.
 *     RFC 8257 sec. 3.3 cuts as RFC 3168 sec. 6.1.2 does, to no less
 *     than 2 segments (Linux's dctcp_ssthresh: max(.., 2)).
 *   (e) The receiver's ACK on a change of CE (RFC 8257 sec. 3.2: ack the
 *     segments held back at once, with the old ECE) acknowledges rcv_nxt
 *     - 1: it leaves out the last segment held back, so it is a duplicate
 *     ACK (transport.c, ack_extra). TcpDctcp::CeState0to1 / CeState1to0
 *     send it with m_priorRcvNxt, which is NextRxSequence taken at the
 *     previous segment's CE event; TcpSocketBase::ForwardUp raises that
 *     event before DoForwardUp adds the segment, so it is rcv_nxt from
 *     before the previous segment. SendEmptyPacket cancels the delayed
 *     ACK too, so the segment left out is acked with the next pair.
 * Not reproduced: ns-3's first observation window ends one window late
 * (PktsAcked takes m_nextSeq = m_nextTxSequence at the first ACK, not at
 * the start: "f"), and its windows end at una >= the end, counting the
 * one segment ProcessAck passes to PktsAcked for every duplicate ACK.
 * The three together are ns-3's alpha rule; (f) alone, over this file's
 * RFC window, would be neither, and correcting (f) in ns-3 moved its
 * web-search mean within one run's noise (+7.8 %, /work/notes
 * i22dctcp.md). Nor: an ECE during fast recovery turning it into CWR,
 * the receiver keeping m_delayedAckReserved after its own CE-change ACK
 * or a delayed-ACK timeout. */
#include "transport.h"

static void dctcp_init(tp_flow *f)
{
    f->alpha = 1.0;
    f->win_end = f->nxt;
    f->win_acked = f->win_marked = 0;
    f->in_cwr = 0;
    f->cwr_end = 0;
}

/* on_ack of both variants; ns3 (a constant) leaves out the floor ((c)) and
 * ends a timeout's recovery when una reaches recover ((a)) */
static inline __attribute__((always_inline)) void dctcp_ack(tp_flow *f, uint64_t acked_bytes, int ece, const int ns3)
{
    if (ns3 && f->in_loss && f->una >= f->recover)
        f->in_loss = 0;
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
        if (!ns3 && c < 2 * f->mss)
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

static void dctcp_on_ack(tp_flow *f, uint64_t acked_bytes, int ece) { dctcp_ack(f, acked_bytes, ece, 0); }
static void dctcp_ns3_on_ack(tp_flow *f, uint64_t acked_bytes, int ece) { dctcp_ack(f, acked_bytes, ece, 1); }

/* A timeout ends CWR (RFC 3168 sec. 6.1.2: the sender is in loss
 * recovery now; ns-3 and Linux leave CWR for the Loss state): the window
 * grows again in slow start from 1 mss. */
static void dctcp_on_timeout(tp_flow *f) { f->in_cwr = 0; }

static void dctcp_ns3_init(tp_flow *f)
{
    dctcp_init(f);
    f->in_loss = 0;
}

/* (a): ns-3's TcpDctcp::GetSsThresh, as ReTxTimeout calls it (kept on a
 * timeout repeated in CA_LOSS: in_loss, and the head sent again since the
 * last one, una < nxt; ev_rto asks before it moves nxt back to una and
 * ends fast recovery). Its m_cWnd is cwnd, except in fast recovery, where
 * TcpClassicRecovery keeps m_cWnd = ssthresh and the inflation apart
 * (m_cWndInfl): a timeout there cuts ssthresh, not the inflated cwnd. */
static uint64_t dctcp_ns3_ssthresh(const tp_flow *f)
{
    if (f->in_loss && f->una < f->nxt)
        return f->ssthresh;
    uint64_t w = f->in_fr ? f->ssthresh : f->cwnd;
    return (uint64_t)((double)w * (1 - f->alpha / 2));
}

static void dctcp_ns3_on_timeout(tp_flow *f)
{
    f->in_cwr = 0;
    f->in_loss = 1;
}

const tp_cc_ops tp_dctcp_ops = {
    .name = "dctcp",
    .description = "DCTCP (RFC 8257): ECN-capable, window cut by alpha/2 once per window of marks",
    .ect = 1,
    .init = dctcp_init,
    .on_ack = dctcp_on_ack,
    .on_timeout = dctcp_on_timeout,
    .ssthresh = tp_reno_ssthresh,
};

const tp_cc_ops tp_dctcp_ns3_ops = {
    .name = "dctcp",
    .description = "DCTCP as ns-3 3.37's TcpDctcp (transport.variant=\"ns-3\")",
    .ect = 1,
    .init = dctcp_ns3_init,
    .on_ack = dctcp_ns3_on_ack,
    .on_timeout = dctcp_ns3_on_timeout,
    .ssthresh = dctcp_ns3_ssthresh,
};
