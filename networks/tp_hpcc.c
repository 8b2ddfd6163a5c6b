/* transport type="hpcc": HPCC, High Precision Congestion Control (Li et
 * al., SIGCOMM 2019, sec. 3 and Algorithm 1), with the update rules and
 * defaults of the authors' ns-3 code (alibaba-edu/High-Precision-
 * Congestion-Control, simulation/src/point-to-point/model/rdma-hw.cc,
 * RdmaHw::HandleAckHp / UpdateRateHp, and run.py's `hp` configuration:
 * MULTI_RATE 0, i.e. one window for the path's most loaded hop, as the
 * paper). Meant for lossless fabrics (network.flow-control="pfc").
 *
 * INT (network.h, net_int): every data segment carries a record; each
 * switch egress it crosses writes (ts, txBytes, qLen, B) as the packet goes
 * on the wire (swnet.c, net_switch.c; the host NIC does not). The segment
 * is int-header bytes longer on the wire (default 42 B: the ns-3 code's
 * IntHeader in its NORMAL mode reserves maxHop = 5 hops of 8 B plus a 2-B
 * hop count in every data packet, whatever the hops, and its ACK copies
 * the header: so ACKs are header + 42 B here too). The receiver acks every
 * segment (set transport.delayed-ack="1": ns-3's L2_ACK_INTERVAL 1; with
 * more, an ACK echoes the latest segment's record).
 *
 * Sender, per ACK carrying a record of at most NET_INT_HOPS hops
 * (a record that overflowed is ignored, as the ns-3 code does):
 *   - the first ACK of a flow only stores the record (L) and sets
 *     lastUpdateSeq = snd_nxt;
 *   - MeasureInflight: for each hop i with an earlier record of the same
 *     port (tau_i = ts - L.ts > 0; where routes change packet by packet,
 *     hop i of two records may be two ports, whose counters tell nothing
 *     together: skipped. The paper and the ns-3 code assume one path per
 *     flow, ECMP, so the configuration refuses hpcc on routings that pick
 *     a path per packet, the fat tree's anca and the dragonfly's ugal:
 *     net_ops.per_packet_paths, app/config/config_check.c; the skip stays
 *     as the library's guard): txRate_i = (txBytes - L.txBytes) / tau_i, u_i =
 *     min(qLen, L.qLen) / (B_i T) + txRate_i / B_i (the paper's and the
 *     code's min of the two queue samples); u = max_i u_i, tau = its tau_i,
 *     tau = min(tau, T); U = (1 - tau/T) U + (tau/T) u (U starts at 1, the
 *     code's hp.u); L = the record;
 *   - ComputeWind: if U >= eta or incStage >= maxStage: W = W_c / (U/eta)
 *     + W_AI, else W = W_c + W_AI; if the ACK acks beyond lastUpdateSeq
 *     (once per RTT: the code's `ack_seq > m_lastUpdateSeq`), W_c = W,
 *     incStage = 0 or incStage + 1 respectively, and lastUpdateSeq =
 *     snd_nxt; otherwise (the code's fast reaction) W_c and incStage stay;
 *   - W is held within [min-rate T, B T] (the code bounds its rate by
 *     MinRate, run.py's 1 Gb/s, and the line rate B); the pacing rate is R
 *     = W / T and at most W bytes are outstanding (ns-3: VarWin, window =
 *     BDP x R / B; the new rate applies from the next segment's gap, the
 *     code also moves its pending send time).
 * Parameters: eta = 0.95 (U_TARGET), maxStage = 5 (the paper's; run.py's
 * default MI_THRESH is 0, transport.max-stage="0" for it), W_AI = 10 Mb/s
 * per 25 Gb/s of B (run.py's RATE_AI for hp) times T, T = the flow's
 * zero-load round trip (transport.base-rtt sets one T for every flow, as
 * the code's GLOBAL_T 1 does with the largest pair RTT), W starts at B T
 * (line rate).
 * Losses (a pfc-headroom below the round trip, failing links): HPCC has
 * none of its own; transport.c recovers them as for dcqcn (NewReno's fast
 * retransmit, else the RTO's go-back-N from the first unacked segment), and
 * a loss does not cut W (the code's NACK only rewinds snd_nxt): cwnd is W
 * after every ACK, in recovery too (transport.c skips NewReno's window
 * arithmetic for `windowed` ops), and the timeout's loss window of 1 mss
 * is undone (on_timeout); the next ACK's INT sets W again. */
#include <math.h>

#include "transport.h"

static void hpcc_set(tp_flow *f, double w)
{
    tp_hpcc_state *h = tp_hpcc_of(f);
    const tp_params *p = tp_flow_params(f);
    double T = (double)h->T * 1e-12, line = tp_flow_line_bps(f);
    double lo = p->min_rate_bps * T / 8, hi = line * T / 8;
    if (lo > hi)
        lo = hi;
    if (!(w >= lo)) /* also NaN */
        w = lo;
    if (w > hi)
        w = hi;
    h->w = w;
    f->cwnd = w >= 1 ? (uint64_t)w : 1;
    f->rate_bps = w * 8 / T;
}

static void hpcc_init(tp_flow *f)
{
    tp_hpcc_state *h = tp_hpcc_of(f);
    const tp_params *p = tp_flow_params(f);
    double line = tp_flow_line_bps(f);
    h->T = p->base_rtt_ps > 0 ? p->base_rtt_ps : tp_flow_base_rtt_ps(f);
    if (h->T < 1)
        h->T = 1;
    double T = (double)h->T * 1e-12;
    h->wai = p->w_ai_bytes > 0 ? (double)p->w_ai_bytes : 10e6 * line / 25e9 * T / 8;
    h->u = 1;
    h->stage = 0;
    h->started = 0;
    h->updates = 0;
    h->wc = line * T / 8;
    hpcc_set(f, h->wc);
}

static void hpcc_on_int(tp_flow *f, const net_int *in, uint32_t ack)
{
    tp_hpcc_state *h = tp_hpcc_of(f);
    if (in->nhop == 0 || in->nhop > NET_INT_HOPS)
        return;
    if (!h->started) {
        h->started = 1;
        h->L = *in;
        h->last_seq = f->nxt;
        return;
    }
    const tp_params *p = tp_flow_params(f);
    double T = (double)h->T * 1e-12;
    double umax = 0;
    int64_t tau = 0;
    for (uint32_t i = 0; i < in->nhop; i++) {
        const net_int_hop *x = &in->hop[i];
        if (i >= h->L.nhop)
            continue;
        const net_int_hop *o = &h->L.hop[i];
        int64_t dt = x->ts_ps - o->ts_ps;
        if (dt <= 0 || !(x->bps > 0) || x->port != o->port)
            continue; /* another port at hop i (the route changed): its counters are not o's */
        double tx = (double)(x->tx_bytes - o->tx_bytes) * 8 / ((double)dt * 1e-12);
        uint64_t q = x->qlen_bytes < o->qlen_bytes ? x->qlen_bytes : o->qlen_bytes;
        double u = (double)q * 8 / (x->bps * T) + tx / x->bps;
        if (u > umax) {
            umax = u;
            tau = dt;
        }
    }
    h->L = *in;
    if (tau > h->T)
        tau = h->T;
    h->u = (h->u * (double)(h->T - tau) + umax * (double)tau) / (double)h->T;
    double c = h->u / p->eta, w;
    uint32_t stage;
    if (c >= 1 || h->stage >= p->max_stage) {
        w = h->wc / c + h->wai;
        stage = 0;
    } else {
        w = h->wc + h->wai;
        stage = h->stage + 1;
    }
    hpcc_set(f, w);
    if (ack > h->last_seq) { /* once per RTT: the reference window moves */
        h->wc = h->w;
        h->stage = stage;
        h->last_seq = f->nxt;
        h->updates++;
    }
}

static void hpcc_on_ack(tp_flow *f, uint64_t acked_bytes, int ece)
{
    (void)f;
    (void)acked_bytes;
    (void)ece;
}

/* a loss does not cut HPCC's window (head comment) */
static uint64_t hpcc_ssthresh(const tp_flow *f) { return f->cwnd; }

static void hpcc_on_timeout(tp_flow *f)
{
    tp_hpcc_state *h = tp_hpcc_of(f);
    hpcc_set(f, h->w); /* transport.c's loss window of 1 mss undone: go-back-N at W */
}

const tp_cc_ops tp_hpcc_ops = {
    .name = "hpcc",
    .description = "HPCC (Li et al. 2019, ns-3 code's rules): INT-based window and rate, over PFC",
    .ect = 0,
    .rate_based = 1,
    .telemetry = 1,
    .windowed = 1,
    .init = hpcc_init,
    .on_ack = hpcc_on_ack,
    .ssthresh = hpcc_ssthresh,
    .on_timeout = hpcc_on_timeout,
    .on_int = hpcc_on_int,
    .state_bytes = sizeof(tp_hpcc_state),
};
