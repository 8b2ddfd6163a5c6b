/* transport type="dcqcn": DCQCN's reaction point (Zhu et al., "Congestion
 * Control for Large-Scale RDMA Deployments", SIGCOMM 2015), as the HPCC
 * ns-3 code (alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc,
 * the Mellanox variant its run.py calls `dcqcn`) implements it, with that
 * code's defaults: g = 1/256, alpha updated every 1 us, a rate decrease
 * checked every 4 us, rate increase timer 300 us, F = 1 fast recovery
 * stage, additive increase 5 Mb/s and hyper increase 50 Mb/s per 25 Gb/s
 * of line rate, minimum rate 1 Gb/s, rate on the first CNP = the current
 * rate, target rate not clamped on a decrease in stage 0. Segments are
 * paced at the current rate Rc (no window: transport.c's rate-based
 * sender), starting at line rate; the receiver (notification point) sends a
 * CNP for a CE-marked segment at most once per cnp-interval (50 us) per
 * flow. Meant for lossless fabrics (network.flow-control="pfc"), with ports
 * marking by RED on the instantaneous queue (Kmin, Kmax, Pmax: ecn="red",
 * red-weight="1"); losses, if any, are recovered by transport.c's timer.
 *   On a CNP: both "CNP arrived" flags set; the first CNP of a flow sets
 *     alpha = 1 and starts the alpha and decrease timers (the decrease 1 ns
 *     after the alpha update), Rt = Rc.
 *   Every alpha interval: alpha = (1 - g) alpha + g if a CNP arrived since
 *     the last update, else (1 - g) alpha.
 *   Every decrease interval, if a CNP arrived since: Rt = Rc unless in stage
 *     0, Rc = max(min-rate, Rc (1 - alpha / 2)), stage = 0, and the increase
 *     timer restarts.
 *   Every increase period: stage < F: Rc = (Rc + Rt) / 2 (fast recovery);
 *     stage = F: Rt += AI (at most B), Rc = (Rc + Rt) / 2; stage > F: Rt +=
 *     HAI, Rc = (Rc + Rt) / 2; then stage++. */
#include "transport.h"

enum { EV_ALPHA = 0, EV_DEC = 1, EV_INC = 2 };

static void ev_timer(sim *s, void *ctx, uint64_t arg);

static sim_event_id timer_at(tp_flow *f, int64_t t, int kind)
{
    tp_flow_hold(f, +1);
    return sim_schedule_at(tp_flow_sim(f), t, ev_timer, f, (uint64_t)kind);
}

static double rai(const tp_flow *f)
{
    const tp_params *p = tp_flow_params(f);
    return p->rate_ai_bps > 0 ? p->rate_ai_bps : 5e6 * tp_flow_line_bps(f) / 25e9;
}

static double rhai(const tp_flow *f)
{
    const tp_params *p = tp_flow_params(f);
    return p->rate_hai_bps > 0 ? p->rate_hai_bps : 50e6 * tp_flow_line_bps(f) / 25e9;
}

static void increase(tp_flow *f)
{
    const tp_params *p = tp_flow_params(f);
    double line = tp_flow_line_bps(f);
    if (f->stage == p->fast_recovery) {
        f->target_bps += rai(f);
    } else if (f->stage > p->fast_recovery) {
        f->target_bps += rhai(f);
    }
    if (f->target_bps > line)
        f->target_bps = line;
    f->rate_bps = f->rate_bps / 2 + f->target_bps / 2;
}

static void ev_timer(sim *s, void *ctx, uint64_t arg)
{
    tp_flow *f = ctx;
    const tp_params *p = tp_flow_params(f);
    int64_t now = sim_now(s);
    if (f->done_snd || !f->timers) {
        tp_flow_hold(f, -1);
        return;
    }
    switch ((int)arg) {
    case EV_ALPHA:
        f->alpha = (1 - p->dcqcn_g) * f->alpha + (f->alpha_cnp ? p->dcqcn_g : 0);
        f->alpha_cnp = 0;
        timer_at(f, now + p->alpha_interval_ps, EV_ALPHA);
        break;
    case EV_DEC:
        timer_at(f, now + p->decrease_interval_ps, EV_DEC);
        if (f->dec_cnp) {
            if (f->stage != 0)
                f->target_bps = f->rate_bps;
            double r = f->rate_bps * (1 - f->alpha / 2);
            f->rate_bps = r > p->min_rate_bps ? r : p->min_rate_bps;
            f->stage = 0;
            f->dec_cnp = 0;
            if (f->inc_ev) {
                sim_cancel(s, f->inc_ev);
                tp_flow_hold(f, -1);
            }
            f->inc_ev = timer_at(f, now + p->increase_timer_ps, EV_INC);
        }
        break;
    default: /* EV_INC */
        f->inc_ev = timer_at(f, now + p->increase_timer_ps, EV_INC);
        increase(f);
        f->stage++;
        tp_flow_output(f);
        break;
    }
    tp_flow_hold(f, -1);
}

static void dcqcn_init(tp_flow *f)
{
    f->first_cnp = 1;
    f->alpha = 1;
    f->stage = 0;
    f->timers = 0;
    f->inc_ev = 0;
}

static void dcqcn_on_cnp(tp_flow *f)
{
    f->alpha_cnp = 1;
    f->dec_cnp = 1;
    if (!f->first_cnp)
        return;
    const tp_params *p = tp_flow_params(f);
    int64_t now = sim_now(tp_flow_sim(f));
    f->first_cnp = 0;
    f->alpha = 1;
    f->alpha_cnp = 0;
    f->timers = 1;
    timer_at(f, now + p->alpha_interval_ps, EV_ALPHA);
    timer_at(f, now + p->decrease_interval_ps + 1000, EV_DEC); /* 1 ns after the alpha update */
    f->target_bps = f->rate_bps; /* rate on the first CNP: 1.0 x the current */
}

static void dcqcn_on_done(tp_flow *f)
{
    f->timers = 0; /* pending timers release the record as they fire */
}

static void dcqcn_on_ack(tp_flow *f, uint64_t acked_bytes, int ece)
{
    (void)f;
    (void)acked_bytes;
    (void)ece;
}

const tp_cc_ops tp_dcqcn_ops = {
    .name = "dcqcn",
    .description = "DCQCN (Zhu et al. 2015, HPCC ns-3 defaults): rate-based, CNPs from the receiver, over PFC",
    .ect = 1,
    .rate_based = 1,
    .init = dcqcn_init,
    .on_ack = dcqcn_on_ack,
    .ssthresh = tp_reno_ssthresh,
    .on_cnp = dcqcn_on_cnp,
    .on_done = dcqcn_on_done,
};
