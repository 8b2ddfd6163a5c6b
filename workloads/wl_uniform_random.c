/* The uniform-random workload: fabric characterisation without a scheduler.
 *
 * Every node 0..N-1 generates messages as a Poisson process of rate
 *   lambda = offered_load * B / (8 * mean message size)   (messages/s per node)
 * so that, on average, it offers offered_load * B bit/s. Each message goes to
 * a destination drawn uniformly among the N-1 other nodes; its size is drawn
 * from workload.message-size and rounded to the nearest byte (negative draws
 * are impossible for valid distributions; a draw below 0.5 B gives 0 B).
 * The rate uses the distribution's exact mean, so a continuous distribution
 * loses nothing measurable to the rounding.
 * Generation starts at t = 0 on every node (the first message of a node comes
 * one exponential gap later) and stops either
 *   - duration mode (duration_ps > 0): at the first arrival at or after
 *     duration_ps, which is not generated (a Poisson process on [0, D));
 *   - messages mode (messages > 0): after the node's `messages`-th message.
 * Arrival times are accumulated exactly (double ps) and rounded to the
 * picosecond only when scheduled, so rounding never accumulates.
 * workload.injection = bernoulli (BookSim2's default injection process):
 * time is cut into slots of one byte's time at B (8 / B: with BookSim2's
 * units, 1-byte flits at 8 Gb/s, its cycle) and a node generates a message
 * in each slot with probability q = lambda 8 / B = offered_load / (mean
 * size in bytes) (at most 1), at the slot's start: geometric gaps of whole
 * slots, the same mean rate lambda. workload.injection = on-off (BookSim2's
 * on_off, src/injection.cpp of commit 28f43299): each node is a two-state
 * Markov chain over the same slots; at every slot it first moves (off -> on
 * with probability alpha = burst-alpha, on -> off with beta = burst-beta),
 * then, if on, generates a message with probability r1 = q (alpha + beta) /
 * alpha (at most 1). The chain spends alpha / (alpha + beta) of the slots on,
 * so the long-run rate is r1 alpha / (alpha + beta) = q, Bernoulli's; the
 * messages come in bursts (on-runs of 1 / beta slots on average, off-runs of
 * 1 / alpha). Each node starts on or off with probability 1/2 (BookSim2's
 * RandomInt(1)), drawn in node order from "uniform-arrivals" at set-up.
 * The slots are not stepped one by one: from an on slot, the next message
 * is g ~ Geometric(r1) slots on and the chain stays on for l ~
 * Geometric(beta) - 1 more slots; g <= l: the message comes at g; else the
 * node turns off at slot l + 1 and on again m ~ Geometric(alpha) slots
 * later, where it tries r1 once and, failing, goes on from that on slot
 * (every draw memoryless, so this is the slot-by-slot chain exactly).
 * workload.self-traffic = on: the
 * destination is uniform over all N nodes, the source included (BookSim2's
 * `uniform`); off (the default): over the N - 1 others.
 *
 * workload.traffic (BookSim2's configuration key `traffic`; the pattern
 * workload owns workload.pattern, with other values): BookSim2's traffic
 * patterns (src/traffic.cpp of github.com/booksim/booksim2, commit 28f43299;
 * definitions re-derived here, no code taken), node ids in binary s = s_{b-1} .. s_0 (N = 2^b) or in
 * base-k digits s = sum_i d_i k^i (digit 0 lowest: the torus's dimension 0,
 * networks/topo_torus.c, as BookSim2's k-ary n-cube numbers its nodes):
 *   uniform   (default) as above;
 *   bitcomp   d = ~s & (N - 1)            (N a power of two);
 *   transpose N = 2^(2h): d = (s >> h) | ((s << h) & (N - 1)), the two
 *             halves of the bits swapped (row and column of a 2^h x 2^h
 *             matrix; N an even power of two);
 *   bitrev    the b bits reversed (N a power of two);
 *   shuffle   the b bits rotated left by one: d = ((s << 1) & (N - 1)) |
 *             s_{b-1} (N a power of two);
 *   tornado   every base-k digit d_i -> (d_i + ceil(k/2) - 1) mod k (BookSim2's
 *             (xr k + 1) / 2 - 1 with xr = 1): k = traffic-radix, n digits with
 *             k^n = N (traffic-digits, derived from N when not given);
 *   neighbor  every digit d_i -> (d_i + 1) mod k (same k, n);
 *   randperm  a uniformly random permutation drawn once per run from the
 *             stream "uniform-permutation" (BookSim2 draws it from perm_seed);
 *   hotspot   a destination among hotspot-nodes, node j with probability
 *             share_j / sum of shares (hotspot-shares, integer weights, 1 each
 *             by default; fewer shares than nodes repeat the last: BookSim2's
 *             hotspot(nodes, rates)); every message goes to a hotspot.
 * The permutations fix a destination per source. A source that a pattern
 * sends to itself does so through the fabric under self-traffic = on (as
 * BookSim2 does), and generates nothing under self-traffic = off (the
 * default): then it is idle, its share of the offered load is not offered,
 * and throughput (over all N) is below offered-load by that share. hotspot
 * with self-traffic = off draws among the other hotspots (their shares
 * renormalised); a sole hotspot is idle. Sizes BookSim2 cannot take
 * (a bit pattern on N not a power of two, transpose on an odd power, k^n !=
 * N) are refused.
 *
 * Streams (never shared with the fabric, so the same seed offers the same
 * traffic to every fabric): "uniform-arrivals" (gaps), "uniform-destinations",
 * "uniform-sizes", "uniform-permutation" (randperm only). Separate size and destination streams keep the arrival
 * times and destinations common between runs that differ only in the size
 * distribution's shape (for the same mean).
 *
 * Accepted throughput. Measurement window W = [0, T_end]:
 *   duration mode: T_end = duration_ps;
 *   messages mode: T_end = the instant the first node generates its last
 *     message (during W every node generates, so the offered load is
 *     stationary over the whole window).
 * throughput = 8 * (bytes of messages delivered at a time <= T_end)
 *              / (N * B * T_end).
 * No warm-up is excluded: the fabric starts empty, so the deficit is about
 * the messages in flight at T_end (rate N lambda times the mean latency),
 * negligible when T_end is much longer than a latency. Below saturation it
 * estimates offered_load; above, the fabric's saturation throughput.
 *
 * Measurement as BookSim2 does it (src/trafficmanager.cpp, commit 28f43299:
 * warm-up, a measurement period, then a drain). workload.warmup W (default
 * 0) and workload.measure-period M (workload.measure is the core's all |
 * window, another thing): the measured messages are those generated in
 * [W, W + M); with M not given, in [W, T_end] (the throughput window's end
 * above). With M given, the sources go on generating past the duration
 * until every measured message has been delivered (the drain: the measured
 * messages cross a fabric under the same load to the last), then stop; W + M
 * must fit in the duration. The drain generates for at most another
 * duration: a fabric past its saturation (or one that starves a source)
 * may never deliver them while the sources keep adding load, and BookSim2
 * then gives up too (its latency threshold, "unstable"). At 2 x duration the
 * sources stop, the measured messages still in flight arrive without that
 * load, and `saturated` is 1 (0 when they all arrived by then). Over the measured messages:
 *   window_latency_s    mean of delivery - generation;
 *   network_latency_s   mean of delivery - t_inject, t_inject the instant the
 *                       message's first byte left its source's NIC queue for
 *                       the fabric (net_msg_inject_ps: the head entering
 *                       the fabric, BookSim2's network latency); every
 *                       fabric stamps it: swnet's and the input-queued
 *                       routers when a host link starts the message's
 *                       first packet, the host NIC (electrical switch,
 *                       ideal fabric with mtu or scheduling) likewise,
 *                       the switch's source FIFO when it starts the
 *                       message, the ideal fabric at hand-over (it has
 *                       no source queue), SPINet at its first packet's
 *                       first try (retries are network latency);
 *   source_queueing_s   mean of t_inject - generation (the difference);
 * and over the window [W, W + M) (or [W, T_end]) by delivery time, all
 * messages (BookSim2's accepted rate counts every flit ejected in it):
 *   accepted            8 (bytes delivered) / (N B window), a fraction of B;
 *   accepted_min, _max  the least and the greatest node's 8 (bytes it
 *                       received) / (B window).
 *
 * BookSim2's latency mode (sim_type = latency; TrafficManager::_SingleSim,
 * same file): workload.sample-period S instead of duration, messages,
 * warmup and measure-period. The run is cut into periods of S from its
 * start. State warming, then running, then draining:
 *   - statistics: while warming, every message delivered since the last
 *     clear (its latency, generation to delivery); while running, the
 *     measured messages (generated while running) delivered so far; the
 *     accepted rate is 8 (bytes delivered since the last clear) / (N B
 *     (now - last clear)), every message;
 *   - at a period's end: latency change = |lat - prev| / lat, the same for
 *     the accepted rate (prev: the last period's; a period with no
 *     delivery, or a zero rate, changes infinitely). With latency-threshold
 *     X, (the latencies delivered since the clear + the ages of every
 *     message in flight) / their count > X aborts: saturated.
 *     warming: warm once warmup-periods periods are done (3), or with
 *     warmup-periods = 0 once both changes are <= warmup-threshold; then
 *     running, the statistics cleared, and messages generated from then on
 *     are measured (BookSim2 marks a packet `record` when generated while
 *     running). running: a period with both changes <= stopping-threshold
 *     adds one to `converged`, another resets it;
 *   - the loop ends after max-samples periods or 3 converged in a row; a
 *     run still warming is saturated (BookSim2: "too many sample periods",
 *     unstable); else it drains: the window ends, the sources go on, and
 *     once every measured message has arrived the sources stop at their
 *     next arrival. Each period of the drain re-checks the threshold (BookSim2
 *     every 1000 cycles) and a drain past max-samples periods (BookSim2 has
 *     no limit without a threshold) is saturated too;
 *   - the statistics are cleared at the start of every second warming
 *     period (periods 3, 5, ...: BookSim2's total_phases % 2 == 0) and of
 *     the first running one.
 * The window's figures above are then over the measured messages, and
 * the accepted rate over [start of running, end of the last period) by
 * delivery time; throughput's T_end is that end. Saturated runs report no
 * latency (BookSim2 prints none for an unstable run). One difference:
 * BookSim2's threshold averages flits in flight, this messages (the same
 * with 1-flit packets).
 *
 * Exactly-once check: each node counts the messages it generated and those
 * of its messages delivered, and sums h(seq) over both (h: the splitmix64
 * finaliser, a bijection on 64 bits, seq: the message's per-source sequence
 * number). Equal counts and equal sums per source mean every message arrived
 * once: a loss compensated by a duplicate would need h(a) = h(b) for a != b,
 * impossible for one pair, and a ~2^-64 accident for several. A delivery of a
 * message already released (its marker is cleared on release), from a node to
 * itself or from an unknown node is counted as bad. finish() also checks the
 * fabric's counters (sent, delivered, bytes) and that the pool has no message
 * left.
 *
 * No malloc in the event loop: messages come from a net_msg_pool, per-node
 * records are allocated in init. */
/* GSL's own inline bodies of gsl_rng_uniform_int and gsl_rng_uniform_pos
 * (gsl_rng.h under HAVE_INLINE, GSL's documented switch): the same draws,
 * without a call into the library for each (a destination and a gap per
 * message). */
#define HAVE_INLINE 1
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "network.h"
#include "rng.h"
#include "sim.h"
#include "units.h"
#include "trace.h"
#include "workload.h"

enum { UR_PAT_UNIFORM, UR_PAT_TRANSPOSE, UR_PAT_BITCOMP, UR_PAT_BITREV, UR_PAT_SHUFFLE, UR_PAT_TORNADO,
       UR_PAT_NEIGHBOR, UR_PAT_RANDPERM, UR_PAT_HOTSPOT };
#define UR_HOT_MAX 64 /* hotspot nodes at most */

/* The workload's parameters (rows below). */
typedef struct ur_params {
    dist message_size;   /* bytes */
    double offered_load; /* fraction of B per node */
    int64_t duration_ps; /* stop generating after this (0 = use messages) */
    int64_t warmup_ps;   /* messages generated before it are not measured */
    int64_t measure_ps;  /* > 0: the measurement window's length, and a drain */
    int64_t sample_ps;   /* > 0: BookSim2's latency mode, sample periods of this length */
    uint32_t warmup_periods; /* sample mode: warm-up periods (0: until the changes fall below warmup_thres) */
    uint32_t max_samples;    /* sample mode: sample periods at most */
    double warmup_thres;     /* sample mode: relative change that ends the warm-up */
    double stopping_thres;   /* sample mode: relative change that counts a period as converged */
    int64_t latency_thres_ps; /* sample mode: > 0: abort above this mean latency (BookSim2's latency_thres) */
    uint64_t messages;   /* messages per node (0 = use duration) */
    int injection;       /* 0 poisson, 1 bernoulli, 2 on-off */
    double burst_alpha;  /* on-off: P(off -> on) per slot */
    double burst_beta;   /* on-off: P(on -> off) per slot */
    int self_traffic;    /* 1: destinations include the source */
    int pattern;         /* UR_PAT_* */
    uint32_t radix;      /* tornado, neighbor: BookSim2's k (0: not given) */
    uint32_t digits;     /* tornado, neighbor: BookSim2's n (0: log_k N) */
    uint32_t hot[UR_HOT_MAX];   /* hotspot: nodes */
    uint32_t nhot;
    uint32_t share[UR_HOT_MAX]; /* hotspot: weights (fewer: the last repeats; none: 1 each) */
    uint32_t nshare;
} ur_params;

static const char *const ur_injection_names[] = {"poisson", "bernoulli", "on-off", NULL};
static const char *const ur_onoff_names[] = {"off", "on", NULL};
static const char *const ur_pattern_names[] = {"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado",
                                               "neighbor", "randperm", "hotspot", NULL};

static const param_row ur_rows[] = {
    {.path = "workload.message-size", .type = "distribution(size)", .unit = "B",
     .help = "uniform-random: bytes of each message (values >= 1)", .kind = PARAM_DIST, .dim = UNIT_SIZE,
     .off = offsetof(ur_params, message_size), .flags = PARAM_MIN1 | PARAM_REQUIRED, .example = "1kB",
     .note = "a message carries at least one byte"},
    {.path = "workload.offered-load", .type = "number", .unit = "",
     .help = "uniform-random: offered load per node, a fraction of B (> 0)", .kind = PARAM_REAL,
     .dim = UNIT_NONE, .off = offsetof(ur_params, offered_load),
     .flags = PARAM_POS | PARAM_UNSET0 | PARAM_REQUIRED, .example = "0.5"},
    {.path = "workload.duration", .type = "time", .unit = "s",
     .help = "uniform-random: generate messages for this long (> 0); or workload.messages", .kind = PARAM_PS,
     .off = offsetof(ur_params, duration_ps), .flags = PARAM_POS | PARAM_UNSET0,
     .alt = "workload.messages", .example = "100us"},
    {.path = "workload.messages", .type = "integer", .unit = "",
     .help = "uniform-random: messages generated by every node (>= 1); or workload.duration (better for "
             "throughput: with messages, T ends when the first node is done, which biases throughput low "
             "below ~1000)",
     .kind = PARAM_U64, .off = offsetof(ur_params, messages), .flags = PARAM_UNSET0, .min = 1, .max = UINT64_MAX,
     .alt = "workload.duration", .example = "1000"},
    {.path = "workload.warmup", .type = "time", .unit = "s", .def = "0s",
     .help = "uniform-random: messages generated before this are not measured (BookSim2's warm-up)",
     .kind = PARAM_PS, .off = offsetof(ur_params, warmup_ps), .flags = PARAM_NONNEG, .example = "5us"},
    {.path = "workload.measure-period", .type = "time", .unit = "s",
     .help = "uniform-random: the measurement window after the warm-up: the messages generated in it are "
             "measured, and the sources go on generating past the duration until they are all delivered "
             "(BookSim2's drain); default: the window runs to the end of generation, without a drain",
     .kind = PARAM_PS, .off = offsetof(ur_params, measure_ps), .flags = PARAM_POS | PARAM_UNSET0, .example = "20us"},
    {.path = "workload.sample-period", .type = "time", .unit = "s",
     .help = "uniform-random: BookSim2's latency mode (sim_type = latency): sample periods of this length (its "
             "sample_period in cycles): warm up, measure until latency and accepted rate converge, drain; "
             "instead of duration, messages, warmup and measure-period",
     .kind = PARAM_PS, .off = offsetof(ur_params, sample_ps), .flags = PARAM_POS | PARAM_UNSET0, .example = "1us"},
    {.path = "workload.warmup-periods", .type = "integer", .unit = "", .def = "3",
     .help = "uniform-random: sample-period: the warm-up's periods (BookSim2's warmup_periods, 3); 0: warm up "
             "until latency and accepted rate change by at most warmup-threshold from one period to the next",
     .kind = PARAM_U32, .off = offsetof(ur_params, warmup_periods), .min = 0, .max = UINT32_MAX, .example = "0"},
    {.path = "workload.max-samples", .type = "integer", .unit = "", .def = "10",
     .help = "uniform-random: sample-period: sample periods at most (BookSim2's max_samples, 10); still warming "
             "up after them: saturated",
     .kind = PARAM_U32, .off = offsetof(ur_params, max_samples), .min = 1, .max = 1000000, .example = "20"},
    {.path = "workload.warmup-threshold", .type = "number", .unit = "", .def = "0.05",
     .help = "uniform-random: sample-period with warmup-periods 0: the relative change of latency and of "
             "accepted rate that ends the warm-up (BookSim2's warmup_thres and acc_warmup_thres)",
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(ur_params, warmup_thres), .flags = PARAM_NONNEG,
     .example = "0.02"},
    {.path = "workload.stopping-threshold", .type = "number", .unit = "", .def = "0.05",
     .help = "uniform-random: sample-period: a measured period whose latency and accepted rate change by at most "
             "this counts as converged; 3 in a row end the measurement (BookSim2's stopping_thres, "
             "acc_stopping_thres)",
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(ur_params, stopping_thres), .flags = PARAM_NONNEG,
     .example = "0.02"},
    {.path = "workload.latency-threshold", .type = "time", .unit = "s",
     .help = "uniform-random: sample-period: abort when the mean latency (delivered and in flight) exceeds this: "
             "saturated, no latency reported (BookSim2's latency_thres, 500 cycles); default: no abort",
     .kind = PARAM_PS, .off = offsetof(ur_params, latency_thres_ps), .flags = PARAM_POS | PARAM_UNSET0,
     .example = "500ns"},
    {.path = "workload.injection", .type = "choice", .unit = "", .def = "poisson",
     .help = "uniform-random: arrivals per node: poisson | bernoulli (a message per slot of one byte's time "
             "with probability offered-load / mean size: BookSim2's, whose cycle is that slot with 1-byte flits) | "
             "on-off (bernoulli in bursts: BookSim2's on_off, a two-state Markov chain per node, burst-alpha, "
             "burst-beta; the same mean rate)",
     .kind = PARAM_CHOICE, .off = offsetof(ur_params, injection), .choices = ur_injection_names,
     .example = "bernoulli"},
    {.path = "workload.burst-alpha", .type = "number", .unit = "",
     .help = "uniform-random: on-off: probability per slot that an off node turns on (BookSim2's burst_alpha; "
             "0 < alpha <= 1; required by on-off)",
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(ur_params, burst_alpha), .flags = PARAM_POS | PARAM_UNSET0,
     .example = "0.01", .when = "workload.injection=on-off"},
    {.path = "workload.burst-beta", .type = "number", .unit = "",
     .help = "uniform-random: on-off: probability per slot that an on node turns off (BookSim2's burst_beta; "
             "0 < beta <= 1; required by on-off)",
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(ur_params, burst_beta), .flags = PARAM_POS | PARAM_UNSET0,
     .example = "0.04", .when = "workload.injection=on-off"},
    {.path = "workload.self-traffic", .type = "choice", .unit = "", .def = "off",
     .help = "uniform-random: off (destinations among the N-1 others) | on (among all N, BookSim2's uniform)",
     .kind = PARAM_CHOICE, .off = offsetof(ur_params, self_traffic), .choices = ur_onoff_names, .example = "on"},
    {.path = "workload.traffic", .type = "choice", .unit = "", .def = "uniform",
     .help = "uniform-random: destinations as BookSim2's traffic patterns: uniform | transpose | bitcomp | bitrev | "
             "shuffle (N a power of two; transpose an even one) | tornado | neighbor (base traffic-radix digits) | "
             "randperm (a random permutation per run) | hotspot (hotspot-nodes, hotspot-shares)",
     .kind = PARAM_CHOICE, .off = offsetof(ur_params, pattern), .choices = ur_pattern_names, .example = "tornado"},
    {.path = "workload.traffic-radix", .type = "integer", .unit = "",
     .help = "uniform-random: tornado and neighbor: the digits' base k (BookSim2's k; an 8x8 torus: 8), required "
             "by them",
     .kind = PARAM_U32, .off = offsetof(ur_params, radix), .flags = PARAM_UNSET0, .min = 2, .max = UINT32_MAX,
     .example = "8", .note = "a digit needs at least 2 values"},
    {.path = "workload.traffic-digits", .type = "integer", .unit = "",
     .help = "uniform-random: tornado and neighbor: the number n of digits (BookSim2's n), traffic-radix^n = "
             "nodes; default: derived from the nodes",
     .kind = PARAM_U32, .off = offsetof(ur_params, digits), .flags = PARAM_UNSET0, .min = 1, .max = 32,
     .example = "2"},
    {.path = "workload.hotspot-nodes", .type = "list", .unit = "",
     .help = "uniform-random: hotspot: the nodes every message goes to (required by it)", .kind = PARAM_U32_LIST,
     .off = offsetof(ur_params, hot), .count_off = offsetof(ur_params, nhot), .min = 0, .max = UR_HOT_MAX,
     .example = "0 63", .when = "workload.traffic=hotspot"},
    {.path = "workload.hotspot-shares", .type = "list", .unit = "",
     .help = "uniform-random: hotspot: integer weight of each hotspot node (fewer than the nodes: the last "
             "repeats; default 1 each)",
     .kind = PARAM_U32_LIST, .off = offsetof(ur_params, share), .count_off = offsetof(ur_params, nshare), .min = 1,
     .max = UR_HOT_MAX, .example = "3 1", .note = "a hotspot's weight is at least 1",
     .when = "workload.traffic=hotspot"},
};

#define UR_METRICS(X)                                                                           \
    X(offered_load, "configured offered load per node, a fraction of B")                        \
    X(throughput, "accepted load: bits delivered by the end T of generation / (N B T)")                 \
    X(measured, "messages measured: generated in [warmup, warmup + measure-period), or [warmup, T] without it") \
    X(window_latency_s, "mean latency of the measured messages, generation to delivery")                 \
    X(network_latency_s, "mean network latency of the measured messages: their first byte leaves the "  \
                         "source's NIC to delivery (BookSim2's; empty where the fabric does not say)")   \
    X(source_queueing_s, "mean wait of the measured messages at their source before their first byte "  \
                         "leaves (empty as network_latency_s)")                                          \
    X(accepted, "accepted load in the measurement window: bits delivered in it / (N B window)")         \
    X(accepted_min, "the least node's accepted load in the window: bits it received / (B window)")      \
    X(accepted_max, "the greatest node's accepted load in the window")                                  \
    X(saturated, "measure-period: 1 if the drain reached twice the duration with measured messages in "   \
                 "flight (the sources then stopped: a saturated fabric, BookSim2's unstable), else 0; "     \
                 "sample-period: 1 if the latency threshold was exceeded, the warm-up did not end within "  \
                 "max-samples or the drain took more than max-samples periods")                              \
    X(samples, "sample-period: sample periods simulated, warm-up and measurement (BookSim2's)")
enum { UR_METRICS(METRIC_ENUM) UR_NMETRICS };
static const metric_def ur_metrics_def[] = {UR_METRICS(METRIC_DEF)};

#define UR_LIVE 0x5552u /* net_msg.kind of a message in flight ("UR") */
#define UR_DEAD 0xdeadu /* net_msg.kind once delivered and released */

typedef struct ur_node {
    double next_ps;      /* exact time of the node's next arrival, ps */
    uint64_t generated;  /* messages generated (the next one's seq) */
    uint64_t delivered;  /* of its messages, delivered */
    uint64_t gen_hash;   /* sum of h(seq) over generated messages (mod 2^64) */
    uint64_t dlv_hash;   /* sum of h(seq) over delivered messages (mod 2^64) */
} ur_node;

typedef struct ur {
    const ur_params *p;       /* borrowed for the run */
    sim *s;
    net *n;
    uint32_t nodes;           /* N */
    double bandwidth_bps;     /* B */
    double mean_gap_ps;       /* 1 / lambda, ps */
    double slot_ps;           /* bernoulli: one byte's time at B, ps (0: poisson) */
    double q;                 /* bernoulli: probability of a message per slot */
    double q_log;             /* log(1 - q) (ur_geometric), when q < 1 */
    int64_t duration_ps;      /* > 0: duration mode */
    uint64_t messages;        /* > 0: messages mode, per node */
    net_msg_pool pool;
    gsl_rng *rng_arrivals;    /* inter-arrival gaps */
    gsl_rng *rng_dst;         /* destinations */
    gsl_rng *rng_size;        /* message sizes */
    ur_node *node;            /* [N] */
    uint64_t generated;       /* messages generated, all nodes */
    uint64_t bytes_generated; /* their bytes */
    uint64_t delivered;       /* messages delivered */
    uint64_t bytes_delivered; /* their bytes */
    uint64_t bad;             /* deliveries that failed a check */
    int64_t first_gen_ps;     /* first generation, -1 before */
    int64_t last_dlv_ps;      /* last delivery, -1 before */
    int64_t window_end_ps;    /* T_end; INT64_MAX until known (messages mode) */
    uint64_t window_bytes;    /* bytes delivered at times <= T_end */
    int up;                   /* init succeeded */
    uint32_t sources_ended;   /* nodes whose generation has ended */
    int stopped;              /* stop(): generate nothing more (a background workload) */
    uint8_t *on;              /* on-off: [N] 1 while the node's chain is on (NULL: other injections) */
    int64_t win_start_ps;     /* W */
    int64_t win_end_ps;       /* W + measure-period (exclusive); INT64_MAX: window_end_ps (inclusive) */
    int drained;              /* measure: every measured message delivered after the window */
    int64_t drained_ps;       /* when (-1: not yet) */
    uint64_t meas_gen;        /* measured messages generated */
    uint64_t meas_dlv;        /* of them, delivered */
    uint64_t meas_lat_ps;     /* sum of their latencies, ps */
    uint64_t meas_net_n;      /* of them, with t_inject known */
    uint64_t meas_net_ps;     /* sum of delivery - t_inject over those */
    uint64_t meas_srcq_ps;    /* sum of t_inject - generation over those */
    uint64_t *acc_bytes;      /* [N] bytes delivered to each node in the window */
    double r1;                /* on-off: probability of a message per on slot */
    uint32_t *dest;           /* [N] a permutation's destination per source (NULL: none) */
    uint8_t *idle;            /* [N] 1: the source generates nothing (its pattern sends it to itself) */
    uint64_t hot_total;       /* hotspot: sum of the shares */
    uint32_t hot_share[UR_HOT_MAX]; /* hotspot: each node's share (the last repeated) */
    struct trace *trace; /* the timeline (--trace; NULL: none): every message */
    int lane;            /* the arrivals' calendar lane (sim_lane_cal; -1: sim_schedule_at) */
    /* sample-period (BookSim2's latency mode, the file head) */
    int smode;                /* UR_WARMING .. UR_DONE; 0 without sample-period */
    int gen_stop;             /* the sources stop at their next arrival */
    uint32_t phases;          /* sample periods done (BookSim2's total_phases) */
    uint32_t converged;       /* measured periods in a row within stopping-threshold */
    int clear_next;           /* clear the statistics at the next period's start (clear_last) */
    double prev_lat, prev_acc;/* the last period's latency (ps) and accepted rate */
    uint64_t st_n, st_ps;     /* warming: messages delivered since the last clear, their latency sum */
    uint64_t clr_bytes;       /* bytes delivered since the last clear */
    int64_t reset_ps;         /* the last clear */
    uint64_t live_n, live_tsum; /* messages in flight, sum of their generation times (mod 2^64) */
    int64_t drain_start_ps;   /* the drain's start (-1: not yet) */
    int aborted;              /* latency threshold exceeded, or never warm within max-samples, or drain cut */
} ur;

enum { UR_OFF, UR_WARMING, UR_RUNNING, UR_DRAINING, UR_DONE };

static uint64_t ur_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static void ur_arrival(sim *s, void *ctx, uint64_t arg);

/* llround(x), without the library call for 0 <= x < 2^52: there x -
 * trunc(x) is exact (a double's bits below its binary point), so rounding
 * half away from zero is trunc(x) + (x - trunc(x) >= 0.5); else llround. */
static inline int64_t ur_llround(double x)
{
    if (x >= 0 && x < 0x1p52) {
        int64_t t = (int64_t)x;
        return t + (x - (double)t >= 0.5);
    }
    return llround(x);
}

/* The pattern's rules on the node count N (file head); the number of base-k
 * digits of tornado and neighbor in *digits. 0, or -1 + err. */
static int ur_pattern_check(const ur_params *p, uint32_t N, uint32_t *digits, char *err, size_t errlen)
{
    const char *name = ur_pattern_names[p->pattern];
    int perm_digits = p->pattern == UR_PAT_TORNADO || p->pattern == UR_PAT_NEIGHBOR;
    *digits = 0;
    if (!perm_digits && (p->radix || p->digits))
        return tn_error(err, errlen, "uniform-random: workload.traffic-%s applies to the patterns tornado and "
                        "neighbor, and the pattern is %s", p->radix ? "radix" : "digits", name);
    switch (p->pattern) {
    case UR_PAT_TRANSPOSE:
    case UR_PAT_BITCOMP:
    case UR_PAT_BITREV:
    case UR_PAT_SHUFFLE:
        if (N & (N - 1))
            return tn_error(err, errlen, "uniform-random: pattern %s permutes the bits of node ids: it needs a "
                            "power of two of nodes, and there are %u", name, N);
        if (p->pattern == UR_PAT_TRANSPOSE) {
            uint32_t b = 0;
            while ((1u << b) < N)
                b++;
            if (b % 2)
                return tn_error(err, errlen, "uniform-random: pattern transpose swaps the two halves of the bits "
                                "of node ids: it needs an even power of two of nodes (4, 16, 64, ...), and there "
                                "are %u = 2^%u", N, b);
        }
        return 0;
    case UR_PAT_TORNADO:
    case UR_PAT_NEIGHBOR: {
        if (!p->radix)
            return tn_error(err, errlen, "uniform-random: pattern %s needs workload.traffic-radix, the base k of "
                            "the node ids' digits (BookSim2's k: 8 on an 8x8 torus)", name);
        uint64_t pow = 1;
        uint32_t n = 0;
        if (p->digits) {
            for (n = 0; n < p->digits && pow <= N; n++)
                pow *= p->radix;
        } else {
            while (pow < N) {
                pow *= p->radix;
                n++;
            }
        }
        if (pow != N)
            return tn_error(err, errlen, "uniform-random: pattern %s needs traffic-radix^n = nodes, and %u^%u %s "
                            "%u nodes", name, p->radix, p->digits ? p->digits : n, pow < N ? "<" : ">", N);
        *digits = n;
        return 0;
    }
    case UR_PAT_HOTSPOT:
        if (p->nhot == 0)
            return tn_error(err, errlen, "uniform-random: pattern hotspot needs workload.hotspot-nodes, the nodes "
                            "its messages go to");
        if (p->nshare > p->nhot)
            return tn_error(err, errlen, "uniform-random: %u hotspot-shares for %u hotspot-nodes", p->nshare,
                            p->nhot);
        for (uint32_t i = 0; i < p->nhot; i++) {
            if (p->hot[i] >= N)
                return tn_error(err, errlen, "uniform-random: hotspot node %u: the nodes are 0..%u", p->hot[i],
                                N - 1);
            for (uint32_t j = 0; j < i; j++)
                if (p->hot[j] == p->hot[i])
                    return tn_error(err, errlen, "uniform-random: hotspot node %u is listed twice (give it "
                                    "its weight in hotspot-shares)", p->hot[i]);
        }
        return 0;
    default: return 0;
    }
}

/* The measurement window's rules. 0, or -1 + err. */
static int ur_window_check(const ur_params *p, char *err, size_t errlen)
{
    if (p->warmup_ps < 0)
        return tn_error(err, errlen, "uniform-random: negative warmup");
    if (p->sample_ps > 0) {
        const char *other = p->duration_ps > 0 ? "duration" : p->messages > 0 ? "messages" :
                            p->measure_ps > 0 ? "measure-period" : p->warmup_ps > 0 ? "warmup" : NULL;
        if (other)
            return tn_error(err, errlen, "uniform-random: workload.sample-period runs BookSim2's latency mode, "
                            "which decides the warm-up, the measurement and the run's end itself (warmup-periods, "
                            "max-samples, stopping-threshold): workload.%s does not apply; give one or the other",
                            other);
        if ((double)p->sample_ps * 2.0 * p->max_samples * 1e-12 > WL_HORIZON_S)
            return tn_error(err, errlen, "uniform-random: %u sample periods of %.6g s and a drain as long span more "
                            "than the %g s a run can", p->max_samples, (double)p->sample_ps * 1e-12, WL_HORIZON_S);
    } else if (p->latency_thres_ps > 0) {
        return tn_error(err, errlen, "uniform-random: workload.latency-threshold applies to workload.sample-period "
                        "(BookSim2's latency mode), which is not given");
    }
    if (p->measure_ps > 0 && p->duration_ps <= 0)
        return tn_error(err, errlen, "uniform-random: workload.measure-period needs workload.duration (generation "
                        "runs at least that long, then on until the measured messages are delivered)");
    if (p->duration_ps > 0 && p->warmup_ps + (p->measure_ps > 0 ? p->measure_ps : 1) > p->duration_ps)
        return tn_error(err, errlen, "uniform-random: warmup %.6g s%s leaves no measurement window in the "
                        "duration %.6g s", (double)p->warmup_ps * 1e-12, p->measure_ps > 0 ? " + measure-period" : "",
                        (double)p->duration_ps * 1e-12);
    return 0;
}

/* A permutation pattern's destination of source s (N nodes, *digits base-k
 * digits for tornado and neighbor): the file head's definitions. */
static uint32_t ur_perm_dest(const ur_params *p, uint32_t N, uint32_t digits, uint32_t s)
{
    uint32_t b = 0;
    while ((1u << b) < N)
        b++;
    switch (p->pattern) {
    case UR_PAT_BITCOMP: return ~s & (N - 1);
    case UR_PAT_TRANSPOSE: {
        uint32_t h = b / 2, lo = (1u << h) - 1;
        return ((s >> h) & lo) | ((s << h) & (lo << h));
    }
    case UR_PAT_BITREV: {
        uint32_t d = 0;
        for (uint32_t i = 0; i < b; i++)
            d = (d << 1) | ((s >> i) & 1u);
        return d;
    }
    case UR_PAT_SHUFFLE: return b ? ((s << 1) & (N - 1)) | (s >> (b - 1)) : s;
    case UR_PAT_TORNADO:
    case UR_PAT_NEIGHBOR: {
        uint32_t k = p->radix, shift = p->pattern == UR_PAT_TORNADO ? (k + 1) / 2 - 1 : 1, d = 0;
        uint64_t place = 1;
        for (uint32_t i = 0; i < digits; i++, place *= k)
            d += (uint32_t)(place * (((s / place) % k + shift) % k));
        return d;
    }
    default: return s;
    }
}

/* Node src's destination under the pattern (it is not idle). */
static uint32_t ur_pick_dest(ur *w, uint32_t src)
{
    const ur_params *p = w->p;
    if (w->dest)
        return w->dest[src];
    if (p->pattern == UR_PAT_HOTSPOT) {
        /* a share-weighted draw among the hotspots (without src under self-traffic off) */
        uint64_t total = w->hot_total;
        uint32_t own = UINT32_MAX;
        if (!p->self_traffic)
            for (uint32_t i = 0; i < p->nhot; i++)
                if (p->hot[i] == src) {
                    own = i;
                    total -= w->hot_share[i];
                }
        if (p->nhot == 1)
            return p->hot[0]; /* no draw, as BookSim2 */
        uint64_t x = gsl_rng_uniform_int(w->rng_dst, total);
        for (uint32_t i = 0; i < p->nhot; i++) {
            if (i == own)
                continue;
            if (x < w->hot_share[i])
                return p->hot[i];
            x -= w->hot_share[i];
        }
        return p->hot[p->nhot - 1]; /* not reached */
    }
    uint32_t dst;
    if (p->self_traffic) {
        dst = (uint32_t)gsl_rng_uniform_int(w->rng_dst, w->nodes); /* over all N */
    } else {
        dst = (uint32_t)gsl_rng_uniform_int(w->rng_dst, w->nodes - 1);
        if (dst >= src)
            dst++; /* uniform over the N-1 others */
    }
    return dst;
}

static inline int p_measure(const ur *w) { return w->p->measure_ps > 0; }

/* Is time t in the measurement window? */
static inline int ur_in_window(const ur *w, int64_t t)
{
    if (t < w->win_start_ps)
        return 0;
    return w->win_end_ps != INT64_MAX ? t < w->win_end_ps : t <= w->window_end_ps;
}

/* measure: the window is over and every measured message delivered */
static inline void ur_check_drained(ur *w, int64_t now)
{
    if (w->p->measure_ps > 0 && now >= w->win_end_ps && w->meas_dlv == w->meas_gen && !w->drained) {
        w->drained = 1;
        w->drained_ps = now;
    }
}

/* sample-period: the measurement is over (drained, cut or aborted): the
 * sources stop at their next arrival, and no period follows. */
static void ur_sample_end(ur *w, int64_t now, int aborted)
{
    w->smode = UR_DONE;
    w->gen_stop = 1;
    w->aborted = aborted;
    if (!aborted)
        w->drained_ps = now;
    if (w->window_end_ps == INT64_MAX) /* never measured: the throughput window ends here */
        w->window_end_ps = now;
}

/* sample-period: the mean latency of the messages delivered since the last
 * clear (n of them, sum ps) and of every message in flight, aged to now,
 * above the latency threshold? (BookSim2 adds its flits in flight: it
 * counts flits, this counts messages.) */
static int ur_over_threshold(const ur *w, int64_t now, uint64_t n, uint64_t sum)
{
    if (w->p->latency_thres_ps <= 0)
        return 0;
    /* the ages' sum, exact mod 2^64 and far below it */
    uint64_t ages = w->live_n * (uint64_t)now - w->live_tsum;
    double cnt = (double)(n + w->live_n);
    return cnt > 0 && ((double)sum + (double)ages) / cnt > (double)w->p->latency_thres_ps;
}

static void ur_sample(sim *s, void *ctx, uint64_t arg);

/* Relative change from *prev to cur (then *prev = cur); no value or a zero
 * one: infinite (not converged). */
static double ur_change(double cur, double *prev)
{
    double c = cur > 0 && isfinite(cur) ? fabs((cur - *prev) / cur) : INFINITY;
    *prev = cur;
    return c;
}

/* sample-period: the end of a sample period (BookSim2's _SingleSim loop,
 * src/trafficmanager.cpp, re-derived in the file head), or a drain check. */
static void ur_sample(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    ur *w = ctx;
    const ur_params *p = w->p;
    int64_t now = sim_now(s);
    if (w->stopped || w->smode == UR_DONE)
        return;
    if (w->smode == UR_DRAINING) {
        /* BookSim2 checks the threshold every 1000 cycles of the drain;
         * this every period, and cuts the drain after max-samples periods */
        if (ur_over_threshold(w, now, w->meas_dlv, w->meas_lat_ps) ||
            now - w->drain_start_ps >= (int64_t)p->max_samples * p->sample_ps) {
            ur_sample_end(w, now, 1);
            return;
        }
        sim_schedule_at(s, now + p->sample_ps, ur_sample, w, 0);
        return;
    }
    int warming = w->smode == UR_WARMING;
    uint64_t n = warming ? w->st_n : w->meas_dlv, sum = warming ? w->st_ps : w->meas_lat_ps;
    double lat = n ? (double)sum / (double)n : NAN;
    double acc = now > w->reset_ps
                     ? 8.0 * (double)w->clr_bytes / ((double)w->nodes * w->bandwidth_bps * units_ps_to_s(now - w->reset_ps))
                     : NAN;
    double dlat = ur_change(lat, &w->prev_lat), dacc = ur_change(acc, &w->prev_acc);
    if (ur_over_threshold(w, now, n, sum)) {
        w->phases++; /* the period that ended counts */
        ur_sample_end(w, now, 1);
        return;
    }
    if (warming) {
        int warm = p->warmup_periods > 0 ? w->phases + 1 >= p->warmup_periods
                                         : dlat <= p->warmup_thres && dacc <= p->warmup_thres;
        if (warm) {
            w->clear_next = 1;
            w->smode = UR_RUNNING;
            w->win_start_ps = now; /* messages generated from now on are measured */
        }
    } else {
        w->converged = dlat <= p->stopping_thres && dacc <= p->stopping_thres ? w->converged + 1 : 0;
    }
    w->phases++;
    if (w->phases >= p->max_samples || (w->smode == UR_RUNNING && w->converged >= 3)) {
        if (w->smode != UR_RUNNING) { /* never warm: BookSim2's "too many sample periods" */
            ur_sample_end(w, now, 1);
            return;
        }
        /* drain the measured messages; the sources go on */
        w->smode = UR_DRAINING;
        w->win_end_ps = now;
        w->window_end_ps = now;
        w->drain_start_ps = now;
        if (w->meas_dlv == w->meas_gen) {
            ur_sample_end(w, now, 0);
            return;
        }
        sim_schedule_at(s, now + p->sample_ps, ur_sample, w, 0);
        return;
    }
    if (w->clear_next || (w->smode == UR_WARMING && w->phases % 2 == 0)) {
        w->clear_next = 0;
        w->st_n = w->st_ps = w->clr_bytes = 0;
        w->reset_ps = now;
    }
    sim_schedule_at(s, now + p->sample_ps, ur_sample, w, 0);
}

/* on-off: slots from node i's last slot to its next message (the file
 * head's jumps); the chain's state is left as it is at that slot. */
static double ur_onoff_slots(ur *w, uint32_t i)
{
    const double a = w->p->burst_alpha, b = w->p->burst_beta, r1 = w->r1;
    double k = 0;
    uint8_t on = w->on[i];
    for (;;) {
        if (on) {
            double g = r1 >= 1 ? 1.0 : (double)gsl_ran_geometric(w->rng_arrivals, r1);
            double l = b >= 1 ? 0.0 : (double)gsl_ran_geometric(w->rng_arrivals, b) - 1;
            if (g <= l) {
                k += g;
                break;
            }
            k += l + 1;
            on = 0;
        } else {
            k += a >= 1 ? 1.0 : (double)gsl_ran_geometric(w->rng_arrivals, a);
            on = 1;
            if (r1 >= 1 || gsl_rng_uniform(w->rng_arrivals) < r1)
                break;
        }
    }
    w->on[i] = on;
    return k;
}

/* Draw node i's next arrival; schedule it unless generation has ended. */
/* gsl_ran_geometric(w->rng_arrivals, w->q) with its log(1 - q) computed
 * once: GSL's randist/geometric.c draws u = gsl_rng_uniform_pos and
 * returns (unsigned) (log(u) / log(1 - p) + 1) for p < 1; the same
 * operations on the same doubles, so the same draws (24 million compared
 * on GSL 2.7 for 8 values of p: none differs), one log fewer a message */
static inline unsigned ur_geometric(ur *w)
{
    double u = gsl_rng_uniform_pos(w->rng_arrivals);
    return (unsigned)(log(u) / w->q_log + 1);
}

static void ur_schedule_next(ur *w, uint32_t i)
{
    ur_node *nd = &w->node[i];
    if ((w->messages > 0 && nd->generated >= w->messages) || (w->idle && w->idle[i])) {
        w->sources_ended++;
        return;
    }
    if (w->on)
        nd->next_ps += w->slot_ps * ur_onoff_slots(w, i);
    else if (w->slot_ps > 0)
        nd->next_ps += w->slot_ps * (w->q >= 1 ? 1.0 : (double)ur_geometric(w));
    else
        nd->next_ps += gsl_ran_exponential(w->rng_arrivals, w->mean_gap_ps);
    /* measured messages still in flight: go on, up to twice the duration */
    int drain = w->p->measure_ps > 0 && !w->drained && nd->next_ps < 2.0 * (double)w->duration_ps;
    if (w->duration_ps > 0 && nd->next_ps >= (double)w->duration_ps && !drain) {
        w->sources_ended++; /* generation has ended (however far the draw went) */
        return;
    }
    /* a draw past the clock's reach (a gap of days at 1 b/s) goes just past
     * 2^62 ps, where run_one stops the run with a message, never wrapping */
    int64_t t = nd->next_ps < 0x1p62 ? ur_llround(nd->next_ps) : (INT64_C(1) << 62) + 1;
    if (w->duration_ps > 0 && t >= w->duration_ps && !drain) {
        w->sources_ended++;
        return;
    }
    if (w->lane >= 0)
        sim_schedule_cal_at(w->s, w->lane, t, i);
    else
        sim_schedule_at(w->s, t, ur_arrival, w, i);
}

static void ur_arrival(sim *s, void *ctx, uint64_t arg)
{
    ur *w = ctx;
    uint32_t src = (uint32_t)arg;
    ur_node *nd = &w->node[src];
    int64_t now = sim_now(s);
    if (w->stopped || w->gen_stop) { /* a background workload whose foreground has finished, or
                                        sample-period's measurement is over */
        w->sources_ended++;
        return;
    }
    ur_check_drained(w, now);
    if (w->duration_ps > 0 && now >= w->duration_ps && (w->drained || now >= 2 * w->duration_ps)) {
        /* past the duration, drained (or the drain's limit): stop */
        w->sources_ended++;
        return;
    }

    uint32_t dst = ur_pick_dest(w, src);
    double x = dist_sample(&w->p->message_size, w->rng_size);
    uint64_t size = x <= 0 ? 0 : (uint64_t)ur_llround(x);

    net_msg *m = net_msg_alloc(&w->pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = size;
    m->cls = NET_DATA;
    m->prio = NET_PRIO_LOW;
    m->kind = UR_LIVE;
    m->b = nd->generated;
    m->a = 0;

    nd->gen_hash += ur_mix(nd->generated);
    nd->generated++;
    w->generated++;
    w->bytes_generated += size;
    if (w->first_gen_ps < 0)
        w->first_gen_ps = now;
    /* The first node to finish closes the window (messages mode). */
    if (w->messages > 0 && nd->generated == w->messages && w->window_end_ps == INT64_MAX)
        w->window_end_ps = now;
    if (ur_in_window(w, now)) { /* (messages mode: a window end still unknown is later than now) */
        m->a = 1;
        w->meas_gen++;
    }

    w->live_n++;
    w->live_tsum += (uint64_t)now;
    net_send(w->n, m);
    ur_schedule_next(w, src);
}

static void ur_deliver(void *state, net_msg *m)
{
    ur *w = state;
    int64_t now = sim_now(w->s);
    if (m->kind != UR_LIVE || m->src >= w->nodes || m->dst >= w->nodes || (m->src == m->dst && !w->p->self_traffic)) {
        /* Not one of ours, already delivered, or to itself: count it and
         * leave the message alone (it may belong to the pool already). */
        w->bad++;
        return;
    }
    if (w->trace)
        trace_message(w->trace, m->src, m->dst, "message", m->size_bytes, TRACE_NO_JOB, m->t_submit_ps, now);
    ur_node *nd = &w->node[m->src];
    nd->delivered++;
    nd->dlv_hash += ur_mix(m->b);
    w->delivered++;
    w->bytes_delivered += m->size_bytes;
    if (now <= w->window_end_ps)
        w->window_bytes += m->size_bytes;
    if (ur_in_window(w, now))
        w->acc_bytes[m->dst] += m->size_bytes;
    w->live_n--;
    w->live_tsum -= (uint64_t)m->t_submit_ps;
    if (w->smode == UR_WARMING) {
        w->st_n++;
        w->st_ps += (uint64_t)(now - m->t_submit_ps);
    }
    w->clr_bytes += m->size_bytes;
    if (m->a) {
        w->meas_dlv++;
        w->meas_lat_ps += (uint64_t)(now - m->t_submit_ps);
        int64_t inj = net_msg_inject_ps(m);
        if (inj >= 0) {
            w->meas_net_n++;
            w->meas_net_ps += (uint64_t)(now - inj);
            w->meas_srcq_ps += (uint64_t)(inj - m->t_submit_ps);
        }
        ur_check_drained(w, now);
        if (w->smode == UR_DRAINING && w->meas_dlv == w->meas_gen)
            ur_sample_end(w, now, 0);
    }
    w->last_dlv_ps = now;
    m->kind = UR_DEAD;
    net_msg_release(&w->pool, m);
}

static int ur_init(void *state, const wl_env *env, char *err, size_t errlen)
{
    ur *w = state;
    const ur_params *p = env->params;
    memset(w, 0, sizeof *w);
    if (env->nodes < 2)
        return tn_error(err, errlen, "uniform-random needs at least 2 nodes, got %u", env->nodes);
    if (!env->sim || !env->net)
        return tn_error(err, errlen, "uniform-random needs an engine and a network");
    if (env->net->params.nodes != env->nodes)
        return tn_error(err, errlen, "the network has %u nodes and the workload %u",
                        env->net->params.nodes, env->nodes);
    if (!(env->bandwidth_bps > 0) || !isfinite(env->bandwidth_bps))
        return tn_error(err, errlen, "uniform-random: bandwidth must be positive (got %g b/s)",
                        env->bandwidth_bps);
    if (p->message_size.text == NULL)
        return tn_error(err, errlen, "uniform-random: no message size distribution");
    double mean_bytes = dist_mean(&p->message_size);
    if (!(mean_bytes > 0) || !isfinite(mean_bytes))
        return tn_error(err, errlen,
                        "uniform-random: mean message size must be positive (got %g B)",
                        mean_bytes);
    if (!(p->offered_load > 0) || !isfinite(p->offered_load))
        return tn_error(err, errlen, "uniform-random: offered load must be positive (got %g)",
                        p->offered_load);
    if (p->duration_ps < 0)
        return tn_error(err, errlen, "uniform-random: negative duration (%lld ps)",
                        (long long)p->duration_ps);
    if (p->sample_ps <= 0 && (p->duration_ps > 0) == (p->messages > 0))
        return tn_error(err, errlen,
                        p->duration_ps > 0
                            ? "uniform-random: give either a duration or a message count, not both"
                            : "uniform-random: give a duration or a message count per node");
    uint32_t digits;
    if (ur_pattern_check(p, env->nodes, &digits, err, errlen) != 0 || ur_window_check(p, err, errlen) != 0)
        return -1;
    /* lambda = rho B / (8 E[size]) per second; mean gap in ps. */
    double rate_per_s = p->offered_load * env->bandwidth_bps / (8.0 * mean_bytes);
    double gap_ps = 1e12 / rate_per_s;
    if (!(gap_ps > 0) || !isfinite(gap_ps))
        return tn_error(err, errlen, "uniform-random: message rate %g /s per node is out of range",
                        rate_per_s);

    if (p->injection >= 1) {
        w->slot_ps = 8e12 / env->bandwidth_bps;
        w->q = p->offered_load / mean_bytes;
        w->q_log = w->q < 1 ? log(1 - w->q) : 0;
        if (w->q > 1)
            return tn_error(err, errlen,
                            "uniform-random: %s injection of offered-load %g with messages of %g B on "
                            "average needs %g messages per byte slot (at most 1)",
                            ur_injection_names[p->injection], p->offered_load, mean_bytes, w->q);
    }
    if (p->injection == 2) {
        double a = p->burst_alpha, b = p->burst_beta;
        if (!(a > 0 && a <= 1 && b > 0 && b <= 1))
            return tn_error(err, errlen, "uniform-random: on-off injection needs workload.burst-alpha and "
                            "workload.burst-beta, each a probability per slot in (0, 1] (got %g and %g)", a, b);
        w->r1 = w->q * (a + b) / a;
        if (w->r1 > 1)
            return tn_error(err, errlen, "uniform-random: on-off injection of %g messages per slot with burst-alpha "
                            "%g and burst-beta %g needs %g messages per on slot, q (alpha + beta) / alpha (at most "
                            "1): raise burst-alpha or lower burst-beta", w->q, a, b, w->r1);
    } else if (p->burst_alpha > 0 || p->burst_beta > 0) {
        return tn_error(err, errlen, "uniform-random: workload.burst-alpha and burst-beta apply to injection "
                        "on-off, and it is %s", ur_injection_names[p->injection]);
    }
    w->p = p;
    w->s = env->sim;
    w->trace = env->trace;
    w->n = env->net;
    w->nodes = env->nodes;
    w->bandwidth_bps = env->bandwidth_bps;
    w->mean_gap_ps = gap_ps;
    w->duration_ps = p->duration_ps;
    w->messages = p->messages;
    w->first_gen_ps = -1;
    w->last_dlv_ps = -1;
    w->window_end_ps = w->duration_ps > 0 ? w->duration_ps : INT64_MAX;
    w->win_start_ps = p->warmup_ps;
    w->drained_ps = -1;
    w->win_end_ps = p->measure_ps > 0 ? p->warmup_ps + p->measure_ps : INT64_MAX;
    w->drain_start_ps = -1;
    if (p->sample_ps > 0) { /* nothing is measured before the warm-up ends */
        w->smode = UR_WARMING;
        w->win_start_ps = INT64_MAX;
        w->reset_ps = sim_now(env->sim);
        sim_schedule_at(env->sim, sim_now(env->sim) + p->sample_ps, ur_sample, w, 0);
    }
    w->acc_bytes = tn_xcalloc(env->nodes, sizeof *w->acc_bytes);
    w->node = tn_xcalloc(env->nodes, sizeof *w->node);
    net_msg_pool_init(&w->pool);
    w->rng_arrivals = wl_stream(env, "uniform-arrivals");
    w->rng_dst = wl_stream(env, "uniform-destinations");
    w->rng_size = wl_stream(env, "uniform-sizes");
    if (p->pattern != UR_PAT_UNIFORM && p->pattern != UR_PAT_HOTSPOT) {
        w->dest = tn_xcalloc(env->nodes, sizeof *w->dest);
        if (p->pattern == UR_PAT_RANDPERM) {
            /* a uniformly random permutation (Fisher-Yates), once per run */
            gsl_rng *r = wl_stream(env, "uniform-permutation");
            for (uint32_t i = 0; i < w->nodes; i++)
                w->dest[i] = i;
            for (uint32_t i = w->nodes - 1; i > 0; i--) {
                uint32_t j = (uint32_t)gsl_rng_uniform_int(r, (unsigned long)i + 1), t = w->dest[i];
                w->dest[i] = w->dest[j];
                w->dest[j] = t;
            }
            gsl_rng_free(r);
        } else {
            for (uint32_t i = 0; i < w->nodes; i++)
                w->dest[i] = ur_perm_dest(p, w->nodes, digits, i);
        }
    }
    if (p->pattern == UR_PAT_HOTSPOT)
        for (uint32_t i = 0; i < p->nhot; i++) {
            w->hot_share[i] = p->nshare == 0 ? 1 : p->share[i < p->nshare ? i : p->nshare - 1];
            w->hot_total += w->hot_share[i];
        }
    if (!p->self_traffic && (w->dest || p->pattern == UR_PAT_HOTSPOT)) {
        w->idle = tn_xcalloc(env->nodes, 1);
        for (uint32_t i = 0; i < w->nodes; i++)
            if (w->dest && w->dest[i] == i)
                w->idle[i] = 1;
        if (p->pattern == UR_PAT_HOTSPOT && p->nhot == 1)
            w->idle[p->hot[0]] = 1;
    }
    if (p->injection == 2) {
        w->on = tn_xcalloc(env->nodes, 1);
        for (uint32_t i = 0; i < w->nodes; i++)
            w->on[i] = (uint8_t)gsl_rng_uniform_int(w->rng_arrivals, 2); /* BookSim2's RandomInt(1) */
    }
    /* Slotted arrivals through a calendar lane (sim_lane_cal: the same
     * order, without a heap of one arrival per node): buckets narrower than
     * the least gap between two arrival times (a slot, less a ps of
     * rounding), reaching 16 mean gaps of a node (an arrival beyond goes to
     * the heap). Poisson times fall anywhere: the heap. */
    w->lane = -1;
    if (w->slot_ps >= 2 && w->q > 0) {
        double span = 16.0 * w->slot_ps / w->q;
        w->lane = sim_lane_cal(env->sim, ur_arrival, w, (int64_t)(w->slot_ps - 1),
                               span < 0x1p40 ? (int64_t)span : INT64_C(1) << 40);
    }
    w->up = 1;
    /* Node order: the engine fires equal times in scheduling order. */
    for (uint32_t i = 0; i < w->nodes; i++)
        ur_schedule_next(w, i);
    return 0;
}

static int ur_check(const ur *w, char *err, size_t errlen)
{
    if (w->bad)
        return tn_error(err, errlen,
                        "%llu deliveries of messages already delivered, unknown or to their source",
                        (unsigned long long)w->bad);
    for (uint32_t i = 0; i < w->nodes; i++) {
        const ur_node *nd = &w->node[i];
        if (w->messages > 0 && nd->generated != (w->idle && w->idle[i] ? 0 : w->messages))
            return tn_error(err, errlen, "node %u generated %llu of %llu messages", i,
                            (unsigned long long)nd->generated, (unsigned long long)w->messages);
        if (nd->delivered != nd->generated || nd->dlv_hash != nd->gen_hash)
            return tn_error(err, errlen,
                            "node %u: %llu messages generated, %llu deliveries, not each "
                            "delivered exactly once",
                            i, (unsigned long long)nd->generated,
                            (unsigned long long)nd->delivered);
    }
    if (w->pool.live != 0)
        return tn_error(err, errlen, "%llu messages are still live",
                        (unsigned long long)w->pool.live);
    const net_counters *c = &w->n->c;
    if (c->sent != w->generated || c->delivered != w->generated)
        return tn_error(err, errlen,
                        "the workload generated %llu messages, the fabric took %llu and "
                        "delivered %llu",
                        (unsigned long long)w->generated, (unsigned long long)c->sent,
                        (unsigned long long)c->delivered);
    if (c->bytes_sent != w->bytes_generated || c->bytes_delivered != w->bytes_generated ||
        w->bytes_delivered != w->bytes_generated)
        return tn_error(err, errlen, "%llu bytes generated, %llu sent, %llu delivered",
                        (unsigned long long)w->bytes_generated,
                        (unsigned long long)c->bytes_sent,
                        (unsigned long long)c->bytes_delivered);
    return 0;
}

static int ur_finish(void *state, const wl_run_view *v, double *m, wl_span *span, char *err, size_t errlen)
{
    (void)v;
    ur *w = state;
    if (ur_check(w, err, errlen) != 0)
        return -1;
    m[M_offered_load] = w->p->offered_load;
    if (w->generated > 0) {
        span->first_ps = w->first_gen_ps;
        span->last_ps = w->last_dlv_ps;
    }
    m[M_throughput] = 0.0;
    if (w->window_end_ps > 0 && w->window_end_ps < INT64_MAX)
        m[M_throughput] = 8.0 * (double)w->window_bytes /
                          ((double)w->nodes * w->bandwidth_bps * units_ps_to_s(w->window_end_ps));
    m[M_measured] = (double)w->meas_gen;
    m[M_window_latency_s] = w->meas_dlv ? units_ps_to_s((int64_t)w->meas_lat_ps) / (double)w->meas_dlv : NAN;
    m[M_network_latency_s] = w->meas_net_n ? units_ps_to_s((int64_t)w->meas_net_ps) / (double)w->meas_net_n : NAN;
    m[M_source_queueing_s] = w->meas_net_n ? units_ps_to_s((int64_t)w->meas_srcq_ps) / (double)w->meas_net_n : NAN;
    m[M_saturated] = p_measure(w) ? (w->drained && w->drained_ps <= 2 * w->duration_ps ? 0 : 1) : NAN;
    m[M_samples] = NAN;
    if (w->smode != UR_OFF) {
        m[M_samples] = (double)w->phases;
        m[M_saturated] = w->aborted;
        if (w->aborted) /* BookSim2's "unstable": no number */
            m[M_window_latency_s] = m[M_network_latency_s] = m[M_source_queueing_s] = NAN;
    }
    int64_t end = w->win_end_ps != INT64_MAX ? w->win_end_ps : w->window_end_ps;
    m[M_accepted] = m[M_accepted_min] = m[M_accepted_max] = NAN;
    if (end != INT64_MAX && end > w->win_start_ps) {
        double per = 8.0 / (w->bandwidth_bps * units_ps_to_s(end - w->win_start_ps)), lo = INFINITY, hi = 0, all = 0;
        for (uint32_t i = 0; i < w->nodes; i++) {
            double x = per * (double)w->acc_bytes[i];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            all += (double)w->acc_bytes[i];
        }
        m[M_accepted] = per * all / (double)w->nodes;
        m[M_accepted_min] = lo;
        m[M_accepted_max] = hi;
    }
    return 0;
}

/* The run must fit in the clock: its biggest message at B, and in messages
 * mode the time every node needs to generate its messages. */
static double ur_generation_s(const ur_params *p, double B);

static int ur_resolve(void *params, wl_resolve *rc, char *err, size_t errlen)
{
    const ur_params *p = params;
    double B = rc->net->bandwidth_bps;
    if (!(B > 0))
        return 0; /* the core refuses it */
    double biggest = dist_practical_max(&p->message_size);
    if (8 * biggest / B > WL_HORIZON_S) {
        char a[64], b[64];
        units_format(biggest, UNIT_SIZE, a, sizeof a);
        units_format(B, UNIT_RATE, b, sizeof b);
        return tn_error(err, errlen, "workload.message-size can draw %s, which takes %.3g s at B = %s: more than "
                        "the %g s a run can span; raise network.bandwidth or lower the size", a, 8 * biggest / B, b,
                        WL_HORIZON_S);
    }
    uint32_t digits;
    if (ur_pattern_check(p, rc->nodes, &digits, err, errlen) != 0 || ur_window_check(p, err, errlen) != 0)
        return -1;
    if (p->messages > 0 && p->offered_load > 0) {
        double per_s = p->offered_load * B / (8 * dist_mean(&p->message_size));
        double span = (double)p->messages / per_s;
        if (span > WL_HORIZON_S)
            return tn_error(err, errlen, "%llu messages per node at an offered load of %g span %.3g s: more "
                            "than the %g s a run can span", (unsigned long long)p->messages, p->offered_load,
                            span, WL_HORIZON_S);
    }
    /* above a load of 1 a source needs load x T to send what it generated in T */
    double T = ur_generation_s(p, B), drain = T * (p->offered_load > 1 ? p->offered_load : 1);
    if (drain > WL_HORIZON_S)
        return tn_error(err, errlen, "an offered load of %g for %.3g s takes every source %.3g s to send: more "
                        "than the %g s a run can span", p->offered_load, T, drain, WL_HORIZON_S);
    return 0;
}

/* Every source has ended and every message arrived. */
static int ur_finished(const void *state)
{
    const ur *w = state;
    return w->sources_ended == w->nodes && w->delivered == w->generated;
}

static void ur_stop(void *state) { ((ur *)state)->stopped = 1; }

/* Messages a node generates on average, and for how long (s). */
static double ur_per_node(const ur_params *p, double B)
{
    if (p->messages > 0)
        return (double)p->messages;
    double mean = dist_mean(&p->message_size);
    double span_ps = p->sample_ps > 0 ? (double)p->sample_ps * p->max_samples : (double)p->duration_ps;
    return mean > 0 ? p->offered_load * B / (8 * mean) * span_ps * 1e-12 : 0;
}

static double ur_generation_s(const ur_params *p, double B)
{
    if (p->sample_ps > 0) /* max-samples periods, and a drain of as many */
        return (double)p->sample_ps * 1e-12 * 2.0 * p->max_samples;
    if (p->duration_ps > 0) /* measure-period: a drain of up to another duration */
        return (double)p->duration_ps * 1e-12 * (p->measure_ps > 0 ? 2 : 1);
    double mean = dist_mean(&p->message_size), per_s = p->offered_load * B / (8 * (mean > 0 ? mean : 1));
    return per_s > 0 ? (double)p->messages / per_s : 0;
}

/* Every message is alive from its generation to its delivery. Below the
 * fabric's saturation throughput (its uniform-random bound u, a fraction
 * of B: 1 on a full crossbar, 8/k on a k-ary 2-cube) few are at once;
 * above it, at an overload x = load / u, the sources fall behind and a
 * fraction 1 - 1/x of all of them wait at the end of generation, which
 * takes x times as long to drain. */
static void ur_estimate(const void *params, const wl_resolve *rc, wl_estimate *out)
{
    const ur_params *p = params;
    double B = rc->net->bandwidth_bps, N = rc->nodes;
    if (!(B > 0))
        return;
    double total = N * ur_per_node(p, B), x = p->offered_load / (rc->fabric_bound > 0 ? rc->fabric_bound : 1);
    double live = 4 * N + (x > 1 ? total * (1 - 1 / x) : 0);
    if (live > total)
        live = total;
    out->messages = total;
    out->mem_bytes = sizeof(ur) + N * sizeof(ur_node) + live * sizeof(net_msg);
    double T = ur_generation_s(p, B);
    out->horizon_s = T * (x > 1 ? x : 1) + (double)rc->msg_fixed_ps * 1e-12;
}

/* Messages delivered of those to generate (messages mode), or simulated
 * time over the duration (the core's default would do the same). */
static double ur_progress(const void *state)
{
    const ur *w = state;
    if (w->messages > 0)
        return (double)w->delivered / ((double)w->messages * w->nodes);
    if (w->p->sample_ps > 0) { /* periods done of max-samples (the run may end before) */
        double f = (double)w->phases / (double)w->p->max_samples;
        return f < 1 ? f : 1;
    }
    return w->duration_ps > 0 ? (double)sim_now(w->s) / (double)w->duration_ps : NAN;
}

static void ur_fini(void *state)
{
    ur *w = state;
    if (!w->up)
        return;
    free(w->node);
    free(w->dest);
    free(w->idle);
    free(w->on);
    free(w->acc_bytes);
    net_msg_pool_free(&w->pool);
    gsl_rng_free(w->rng_arrivals);
    gsl_rng_free(w->rng_dst);
    gsl_rng_free(w->rng_size);
    w->up = 0;
}

static const wl_column ur_table[] = {
    {"offered_load", "offered"},
    {"throughput", "throughput"},
    {"msg_latency_mean_s", "latency_s"},
    {"msg_latency_p99_s", "latency_p99_s"},
    {NULL, NULL},
};

/* workload.duration or workload.messages: one of them (the row is shared
 * with dc-flows, where a flow list needs neither, so not PARAM_REQUIRED). */
static void ur_params_check(const net_params *core, const void *params, param_report *rep)
{
    (void)core;
    const ur_params *p = params;
    if (p->duration_ps == 0 && p->messages == 0 && p->sample_ps == 0)
        param_missing(rep, "workload.duration",
                      "uniform-random: generate messages for this long (> 0); or workload.messages, or "
                      "workload.sample-period");
    /* the latency mode's conflicts, here too so that the message names the
     * attribute's file:line (ur_window_check repeats them for API users) */
    if (p->sample_ps > 0) {
        const char *other = p->duration_ps > 0 ? "workload.duration" : p->messages > 0 ? "workload.messages" :
                            p->measure_ps > 0 ? "workload.measure-period" : p->warmup_ps > 0 ? "workload.warmup" : NULL;
        if (other)
            param_invalid(rep, other, "uniform-random: %s does not apply with workload.sample-period (BookSim2's "
                          "latency mode decides the warm-up, the measurement and the run's end itself: "
                          "warmup-periods, max-samples, stopping-threshold); give one or the other", other);
    } else if (p->latency_thres_ps > 0) {
        param_invalid(rep, "workload.latency-threshold", "uniform-random: applies to workload.sample-period "
                      "(BookSim2's latency mode), which is not given");
    }
}

const wl_ops wl_uniform_random_ops = {
    .name = "uniform-random",
    .description = "every node sends Poisson or Bernoulli traffic of a given offered load to uniformly "
                   "random other nodes or by a BookSim2 pattern (fabric characterisation)",
    .state_size = sizeof(ur),
    .params = ur_rows,
    .nparams = sizeof ur_rows / sizeof ur_rows[0],
    .params_size = sizeof(ur_params),
    .check = ur_params_check,
    .resolve = ur_resolve,
    .init = ur_init,
    .deliver = ur_deliver,
    .finish = ur_finish,
    .fini = ur_fini,
    .finished = ur_finished,
    .stop = ur_stop,
    .shares_nodes = 1,
    .estimate = ur_estimate,
    .progress = ur_progress,
    .metrics = ur_metrics_def,
    .nmetrics = UR_NMETRICS,
    .table = ur_table,
    .plot_y = "msg_latency_mean_s",
};
