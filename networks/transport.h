/* The host transport (issue 22): what a sending host does between a
 * workload's message and the fabric's packets. A plugin family as fabrics
 * and workloads are: one file per transport (networks/tp_<name>.c) holding
 * its congestion-control ops, a registry (transport.c), and the shared
 * machinery every window-based transport needs (segments, cumulative ACKs,
 * the receiver, loss recovery and the retransmission timer) in
 * transport.c, as ns-3 splits TcpSocketBase from TcpCongestionOps.
 *
 *   <transport type="none|tcp|dctcp" init-cwnd="10" min-rto="1s"
 *              delayed-ack="2" delayed-ack-timeout="200ms" g="0.0625"
 *              limited-transmit="off|on" sack="off|on"/>
 *
 * `none` (the default) is no layer at all: net_send hands the message to
 * the fabric as always (every result byte-identical). Otherwise net_send
 * hands each message of every workload to the transport, which cuts it
 * into segments of `mss` payload bytes (+ `header` bytes on the wire),
 * sends each as a message of its own through the fabric (net_msg.client =
 * NET_TP_CLIENT), and receives them back through net_delivered (a
 * per-packet delivery hook); the receiver answers with ACKs, messages of
 * `header` bytes on the reverse path in the flow's class. The workload's
 * message is delivered once, when its receiver holds every byte in order
 * (exactly once: duplicates are discarded), with its head time the first
 * arrival of any of its segments; its latency is hand-over to that
 * instant, so FCT and slowdown keep their meaning. A fabric that drops
 * (drop-tail buffers, networks/port.h) calls net_dropped for the segment.
 *
 * The congestion-control contract (tp_cc_ops), after ns-3's
 * TcpCongestionOps: init (a new flow), on_ack (new data acked outside
 * fast recovery, with the ACK's ECE flag: window growth, DCTCP's alpha and
 * cut), ssthresh (on a loss: three duplicate ACKs or a timeout), on_timeout
 * (optional). Whether its segments are ECN-capable (ect) and its receiver
 * echoes CE (RFC 8257's state machine) is a flag of the ops.
 * The rules of the shared machinery, with their sources, are in the head of
 * transport.c. */
#ifndef TASKNET_TRANSPORT_H
#define TASKNET_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "network.h"
#include "params.h"
#include "sim.h"

/* The parameters of every transport (rows: TP_ROWS, in app/config_rows.c). */
typedef struct tp_params {
    int type;                 /* index in tp_registry (transport.type) */
    uint32_t init_cwnd;       /* initial window, segments */
    int64_t min_rto_ps;       /* lower bound of the RTO */
    int64_t init_rto_ps;      /* RTO before any RTT sample (RFC 6298: 1 s) */
    uint32_t delayed_ack;     /* in-order segments per ACK (1: every segment) */
    int64_t delack_timeout_ps; /* an ACK held back is sent after this at the latest */
    uint64_t mss_bytes;       /* segment payload */
    uint64_t header_bytes;    /* bytes a segment adds on the wire; an ACK's size */
    double g;                 /* dctcp: gain of alpha's moving average */
    int variant;              /* dctcp: TP_VARIANT_RFC (RFC 8257 / 5681, the default) | TP_VARIANT_NS3 (ns-3
                               * 3.37's TcpDctcp and TcpSocketBase, tp_dctcp.c's head) */
    /* dcqcn (Zhu et al., SIGCOMM 2015; defaults of the HPCC ns-3 code's dcqcn) */
    double dcqcn_g;           /* gain of alpha (1/256) */
    int64_t alpha_interval_ps;    /* alpha update period (1 us) */
    int64_t decrease_interval_ps; /* rate decrease check period (4 us) */
    int64_t increase_timer_ps;    /* rate increase timer (300 us) */
    uint32_t fast_recovery;       /* fast recovery stages F (1) */
    double rate_ai_bps, rate_hai_bps; /* additive / hyper increase (0: HPCC's 5 and 50 Mb/s per 25 Gb/s of B) */
    double min_rate_bps;          /* floor of the rate (1 Gb/s) */
    int64_t cnp_interval_ps;      /* receiver: at most one CNP per flow this often (50 us) */
    int growth;                   /* tcp, dctcp window growth: TP_GROWTH_RENO | TP_GROWTH_LINUX */
    uint32_t quick_ack;           /* the receiver acks each of a flow's first quick_ack in-order segments at once */
    uint64_t window_bytes;        /* tcp, dctcp: at most this many bytes outstanding per flow (the
                                   * socket buffers' limit, ns-3's Snd/RcvBufSize); 0: TP_RWND segments */
    int ack_class;                /* tcp, dctcp: the priority class ACKs travel in: 0 = their flow's (default),
                                   * k + 1 = class k (ns-3: a receiving socket whose IP ToS is not set sends
                                   * its ACKs with priority 0, pfifo_fast band 1, whatever its data's band) */
    int limited_transmit;         /* tcp, dctcp: 1 = RFC 3042's limited transmit (Linux, ns-3: on); 0 = off */
    int sack;                     /* tcp, dctcp: 1 = SACK (RFC 2018 blocks, RFC 6675 recovery); 0 = off */
    int handshake;                /* tcp, dctcp: 1 = a SYN / SYN-ACK exchange opens each connection before its
                                   * data (its round trip is the first RTT sample); 0 = off (data at once) */
    int persistent;               /* tcp, dctcp: 1 = one connection (byte stream) per (source, destination,
                                   * class, priority), kept for the run; 0 = a connection per message */
    int completion;               /* 0: a message is complete (delivered) when its receiver holds it all; 1
                                   * (close): when its sender has the ACK of its last byte (per-message
                                   * connections; basic-sim's FCT ends at the socket's close) */
    /* hpcc (Li et al., SIGCOMM 2019; tp_hpcc.c) */
    double eta;                   /* target utilisation (0.95) */
    uint32_t max_stage;           /* additive-increase stages before a multiplicative step (5) */
    uint64_t w_ai_bytes;          /* W_AI (0: 10 Mb/s per 25 Gb/s of B, times T: the ns-3 code's run.py) */
    int64_t base_rtt_ps;          /* T (0: each flow's own zero-load round trip) */
    uint64_t int_bytes;           /* INT header bytes on every data segment and ACK (42) */
} tp_params;

extern const char *const tp_completion_names[]; /* "receiver", "close" (transport.completion) */

extern const char *const tp_connection_names[]; /* "message", "persistent" (transport.connection) */
extern const char *const tp_wl_connection_names[]; /* "inherit", then tp_connection_names (workload.connection) */

extern const char *const tp_onoff_names[]; /* "off", "on" (transport.limited-transmit, transport.sack) */

/* SACK blocks an ACK carries at most: 3, what fits beside the timestamps
 * option in TCP's 40 option bytes (Linux and ns-3 with timestamps on,
 * basic-sim's setting: 40 - 12 - 2 = 26 B, 8 B per block); an ACK with n
 * blocks is header + 4 + 8 n bytes on the wire (kind, length and two NOPs
 * of padding: Linux's TCPOLEN_SACK_BASE_ALIGNED). */
#define TP_SACK_BLOCKS 3

extern const char *const tp_ack_class_names[]; /* "data", "0" .. "7" */
extern const char *const tp_wl_ack_class_names[]; /* "inherit", then tp_ack_class_names (workload.ack-class) */

enum { TP_VARIANT_RFC = 0, TP_VARIANT_NS3 = 1 };
extern const char *const tp_variant_names[]; /* "rfc", "ns-3" (transport.variant) */
/* dctcp's variant="ns-3" ops (tp_dctcp.c; tp_create takes them for dctcp with that variant) */
extern const struct tp_cc_ops tp_dctcp_ns3_ops;

enum { TP_GROWTH_RENO = 0, TP_GROWTH_LINUX = 1 };
extern const char *const tp_growth_names[]; /* "reno", "linux" */

typedef struct tp_flow tp_flow;
typedef struct tp_stream tp_stream;

typedef struct tp_cc_ops {
    const char *name;        /* transport.type value */
    const char *description; /* one line */
    int ect;                 /* 1: ECN-capable segments, CE echoed by the receiver (RFC 8257 sec. 3.2) */
    void (*init)(tp_flow *f);
    /* new data acked outside fast recovery: acked bytes, ece the ACK's flag */
    void (*on_ack)(tp_flow *f, uint64_t acked_bytes, int ece);
    /* the slow-start threshold after a loss (3 dupACKs or a timeout) */
    uint64_t (*ssthresh)(const tp_flow *f);
    void (*on_timeout)(tp_flow *f); /* may be NULL */
    /* rate-based transports (dcqcn): segments are paced at f->rate_bps, no
     * window; the receiver sends a CNP for CE-marked segments (at most one
     * per cnp-interval) and on_cnp runs at the sender when it arrives. */
    int rate_based;
    void (*on_cnp)(tp_flow *f);
    void (*on_done)(tp_flow *f); /* the sender's last byte acked: stop timers (may be NULL) */
    /* INT-based transports (hpcc): every data segment carries an INT record
     * (net_int, network.h) that the switch egresses fill, and int_bytes more
     * on the wire; the receiver echoes the record of the latest segment in
     * its next ACK (int_bytes more too); on_int runs at the sender for every
     * ACK before its cumulative ACK is processed (in: its record, ack: its
     * cumulative sequence). windowed: a rate-based sender also stops while
     * the bytes outstanding are cwnd or more (HPCC's W with its rate W/T), and
 * its cwnd is its own: loss recovery retransmits but leaves it alone. An
 * ACK carries one record (net_msg.b): SACK blocks or INT, so a telemetry
 * transport cannot have transport.sack (tp_check; tp_create asserts). */
    int telemetry;
    int windowed;
    void (*on_int)(tp_flow *f, const net_int *in, uint32_t ack);
    /* state_bytes > 0: every flow gets a block of its own of this size
     * (f->cc, zeroed before init; from a pool of the instance, given back
     * when the flow record is), for state only these ops keep (hpcc's 264
     * B): the flow record of every other transport stays without it. */
    size_t state_bytes;
} tp_cc_ops;

/* Receive window: segments beyond the next expected one a receiver keeps
 * (its out-of-order bitmap); the sender never has more outstanding. */
#define TP_RWND 4096

/* One message's connection, both ends (the fields a tp_cc_ops reads and
 * writes: cwnd, ssthresh, mss, the sequence state, its own cc fields). */
struct tp_flow {
    net_msg *msg;          /* the workload's message; NULL once delivered (the workload may release or reuse it) */
    /* the message's addressing, kept for the segments, ACKs and CNPs that may still follow its
     * delivery (a retransmission after a lost last ACK): src, dst (node ids), class, priority, id */
    uint32_t src, dst;
    uint8_t cls, prio;
    uint64_t msg_id;
    struct tp_inst *t;
    struct tp_flow *next;  /* free list */
    uint32_t nseg;         /* segments */
    uint32_t last_payload; /* payload of the last segment */
    uint64_t mss;          /* segment payload, bytes */
    /* sender, in segments */
    uint32_t una, nxt, max; /* first unacked, next to send, one past the highest sent */
    uint32_t recover;       /* NewReno: max when the last recovery or timeout began */
    uint32_t dupacks;
    uint8_t in_fr;          /* in fast recovery */
    uint8_t partial_seen;   /* a partial ACK came in this recovery */
    uint8_t timing;         /* an RTT sample is being taken (t_seq sent at t_sent) */
    uint8_t have_rtt;
    uint64_t cwnd, ssthresh; /* bytes */
    int64_t srtt, rttvar, rto; /* ps */
    uint32_t t_seq;
    int64_t t_sent;
    int64_t rto_deadline;   /* the timer fires then (armed) */
    uint8_t rto_armed;
    sim_event_id rto_ev;    /* pending timer event (0: none) */
    int64_t rto_ev_ps;      /* its time */
    /* congestion control's own */
    double alpha;           /* dctcp */
    uint64_t win_acked, win_marked; /* dctcp: bytes acked / with ECE in the observation window */
    uint32_t win_end, cwr_end;      /* dctcp: window ends when una passes these */
    uint8_t in_cwr;
    uint8_t in_loss;        /* dctcp variant="ns-3": a timeout's recovery (ns-3's CA_LOSS) until una reaches recover */
    uint32_t cwnd_cnt;      /* growth="linux": segments acked toward the next +1 mss in congestion avoidance */
    /* rate-based (dcqcn) */
    double rate_bps, target_bps;  /* current and target rate */
    int64_t next_avail_ps;        /* the pacer lets the next segment go then */
    sim_event_id pace_ev;         /* pending pacer event (0: none) */
    uint8_t first_cnp, alpha_cnp, dec_cnp; /* dcqcn reaction point flags */
    uint32_t stage;               /* dcqcn: rate increase stage */
    sim_event_id inc_ev;          /* dcqcn: the rate increase timer */
    uint8_t timers;               /* dcqcn: its periodic timers are running */
    int64_t last_cnp_ps;          /* receiver: last CNP sent (-1: none) */
    void *cc;                     /* the congestion ops' own block (ops->state_bytes, zeroed at open; hpcc's
                                   * tp_hpcc_state), NULL when they have none */
    net_int *rint;                /* receiver (INT transports): the record of the latest data segment, for its ACK */
    /* receiver */
    uint8_t ce_state;       /* RFC 8257's CE state */
    uint8_t done_snd, done_rcv;
    uint32_t rcv_nxt;       /* next in-order segment expected */
    uint32_t pending;       /* in-order segments not yet acked */
    uint32_t ooo_n;         /* segments held beyond rcv_nxt (bits set in ooo) */
    sim_event_id delack_ev; /* pending delayed-ACK event (0: none) */
    int64_t t_head_ps;      /* first bit of any segment at the receiver */
    uint32_t live;          /* segments, ACKs and timer events of this flow still to come */
    /* limited transmit and SACK (transport.limited-transmit, transport.sack) */
    uint32_t lt_sent;       /* new segments sent on duplicate ACKs since una last moved (not in FlightSize
                             * when ssthresh is computed: RFC 5681 sec. 3.2 step 2, RFC 6675 step 4.2) */
    uint32_t high_rxt;      /* SACK: one past the highest segment retransmitted in this recovery (HighRxt + 1) */
    uint32_t sack_hi;       /* SACK: one past the highest segment SACKed (0: none) */
    uint32_t sacked_n;      /* SACK: segments SACKed in [una, max) (bits set in sacked) */
    uint32_t rsack[TP_SACK_BLOCKS]; /* receiver: first segment of each block of its last ACK, most recent first */
    uint8_t rsack_n;
    /* handshake (transport.handshake) */
    uint8_t syn_wait;       /* a SYN is out, no SYN-ACK back yet: no data may go */
    uint32_t syn_tries;     /* SYNs sent */
    int64_t syn_sent_ps;    /* the first SYN left then */
    sim_event_id syn_ev;    /* pending SYN retransmission timer (0: none) */
    tp_stream *st;          /* persistent connection: its messages (NULL: one message, msg) */
    uint64_t ooo[TP_RWND / 64]; /* received beyond rcv_nxt: bit s % TP_RWND */
    /* SACK's scoreboard (RFC 6675 sec. 3), last: cleared only when transport.sack is on */
    uint64_t sacked[TP_RWND / 64]; /* SACKed beyond una: bit s % TP_RWND */
};

/* hpcc's per-flow sender state (tp_hpcc.c; its block, tp_flow.cc) */
typedef struct tp_hpcc_state {
    int64_t T;          /* base RTT T, ps */
    double u;           /* U: moving average of the normalised inflight */
    double wc, w;       /* W_c (reference window) and W, bytes */
    double wai;         /* W_AI, bytes */
    uint32_t stage;     /* incStage */
    uint32_t last_seq;  /* lastUpdateSeq: W_c is updated by the first ACK beyond it */
    uint32_t updates;   /* W_c updates (per-RTT) so far */
    uint8_t started;    /* an INT record stored (the first ACK only stores it) */
    net_int L;          /* the INT of the last ACK (L in Algorithm 1) */
} tp_hpcc_state;
static inline tp_hpcc_state *tp_hpcc_of(const tp_flow *f) { return (tp_hpcc_state *)f->cc; }

/* The SACK scoreboard (RFC 6675 sec. 4, in segments; f's sacked bitmap
 * over [una, max)): tp_sb_mark records block [a, b) (clipped to [una,
 * max)) and returns how many segments it newly SACKed; tp_sb_count the
 * SACKed segments in [a, b); tp_sb_is_lost(f, s) is RFC 6675's IsLost:
 * at least DupThresh = 3 segments SACKed above s (every segment but a
 * message's last is one mss, so "more than (DupThresh - 1) mss bytes" is
 * the same count, and 3 discontiguous blocks hold at least 3 segments);
 * tp_sb_pipe is SetPipe, in bytes: every segment in [una, max) not SACKed
 * counts once if not IsLost and once more if retransmitted in this
 * recovery (below high_rxt); tp_sb_next_seg is NextSeg's rules 1-3 (rule 4,
 * the rescue retransmission, is not modelled: neither Linux nor ns-3 has
 * it): the first unSACKed segment at or above high_rxt below the highest
 * SACKed that IsLost, else new data (max) if any and the receive window
 * rwnd (segments outstanding) allows, else the first unSACKed one at or
 * above high_rxt below the highest SACKed; UINT32_MAX if none. */
uint32_t tp_sb_mark(tp_flow *f, uint32_t a, uint32_t b);
uint32_t tp_sb_count(const tp_flow *f, uint32_t a, uint32_t b);
int tp_sb_is_lost(const tp_flow *f, uint32_t s);
uint64_t tp_sb_pipe(const tp_flow *f);
uint32_t tp_sb_next_seg(const tp_flow *f, uint32_t rwnd);

/* The registry: index 0 is `none` (no ops: no transport layer). */
extern const tp_cc_ops *const tp_registry[];
extern const char *const tp_names[]; /* "none", "tcp", "dctcp", NULL: transport.type's choices */
/* workload.transport's choices: "inherit" (the run's <transport>), then tp_names: choice i is type i - 1 */
extern const char *const tp_wl_names[];
size_t tp_count(void);

/* Checks of the rows' values. */
/* The retransmission timeout's ceiling: 60 s (RFC 6298 2.5). A segment
 * whose time on a link exceeds it is sent again before its ACK can come
 * back, and no RTT sample (Karn) ever lifts the timeout: such a fabric is
 * refused (app/config/config_check.c). */
#define TP_MAX_RTO_PS INT64_C(60000000000000)
void tp_check(const tp_params *p, param_report *rep);

typedef struct tp_inst tp_inst;

/* The transport of fabric root (its own handle) with p; NULL with type
 * none (no layer; err untouched). */
tp_inst *tp_create(net *root, const tp_params *p);
void tp_destroy(tp_inst *t);
/* A workload's message at sim_now (net_send has counted and stamped it). */
void tp_send(tp_inst *t, net_msg *m);
/* The fabric delivered (last bit at dst) or dropped a segment or ACK. */
void tp_arrived(tp_inst *t, net_msg *seg);
void tp_dropped(tp_inst *t, net_msg *seg);
/* The transport a segment or ACK (net_msg.client NET_TP_CLIENT) belongs to. */
static inline tp_inst *tp_of(const net_msg *seg) { return ((const tp_flow *)seg->p)->t; }

typedef struct tp_counters {
    uint64_t segments, acks;     /* sent */
    uint64_t retransmissions;    /* data segments sent again */
    uint64_t timeouts;           /* RTO expiries */
    uint64_t fast_retransmits;   /* recoveries entered on 3 dupACKs */
    uint64_t dropped;            /* segments and ACKs the fabric dropped */
    uint64_t duplicates;         /* data segments that arrived again */
    uint64_t flows_live;
    uint64_t delivered_bytes;    /* application bytes delivered (goodput) */
    uint64_t limited_transmits;  /* new segments sent on duplicate ACKs before recovery */
    uint64_t sack_blocks;        /* SACK blocks carried by ACKs sent */
    uint64_t syns;               /* SYNs sent (transport.handshake; retransmissions included) */
    uint64_t syn_timeouts;       /* SYN retransmission timer expiries (also counted in timeouts) */
} tp_counters;
void tp_get_counters(const tp_inst *t, tp_counters *out);

/* Observation and fault injection (tests, tools): probe(ctx, f, ev) is
 * called after the sender processed an ACK (TP_EV_ACK), entered fast
 * recovery (TP_EV_FAST_RETRANSMIT) or timed out (TP_EV_TIMEOUT); the data
 * segments of sequence numbers loss[0..n) of every flow are lost on their
 * first transmission before the fabric sees them (as ns-3's
 * ReceiveListErrorModel in its TCP tests). */
enum { TP_EV_ACK = 0, TP_EV_FAST_RETRANSMIT = 1, TP_EV_TIMEOUT = 2 };
typedef void (*tp_probe_fn)(void *ctx, const tp_flow *f, int ev);
void tp_set_probe(tp_inst *t, tp_probe_fn probe, void *ctx);
void tp_set_loss(tp_inst *t, const uint32_t *seqs, size_t n);
/* The data segments of sequence numbers seqs[0..n) of every flow leave
 * their sender CE-marked on their first transmission (ECN-capable
 * transports; as a port above its threshold would mark them). Loss and mark
 * lists share 16 places. */
void tp_set_mark(tp_inst *t, const uint32_t *seqs, size_t n);
/* The first n SYNs of every flow are lost before the fabric sees them (tests). */
void tp_set_syn_loss(tp_inst *t, uint32_t n);

/* The shared Reno window growth (RFC 5681 sec. 3.1, as ns-3's TcpNewReno):
 * below ssthresh cwnd += mss per ACK that acks new data (slow start),
 * above it cwnd += max(1, mss^2 / cwnd) (congestion avoidance). */
void tp_reno_grow(tp_flow *f);
/* The window growth transport.growth selects, for an ACK of acked_bytes of
 * new data: "reno" tp_reno_grow; "linux" Linux's tcp_slow_start and
 * tcp_cong_avoid_ai (as ns-3's TcpLinuxReno, which ns-3's TcpDctcp
 * extends): k = ceil(acked / mss) segments; below ssthresh cwnd grows by k
 * mss (at most to ssthresh, the rest of k goes on), above it every cwnd /
 * mss segments acked add one mss (cwnd_cnt counts them). */
void tp_grow(tp_flow *f, uint64_t acked_bytes);
/* RFC 5681 eq. 4: max(FlightSize / 2, 2 mss), FlightSize the bytes outstanding. */
uint64_t tp_reno_ssthresh(const tp_flow *f);
/* For congestion ops with timers of their own (dcqcn): the engine; hold
 * (+1) / release (-1) the flow record while an event of theirs points at it
 * (release may free it); output: send what the rate or window now allows;
 * the access bandwidth B; what a CNP's arrival does (tests inject one). */
sim *tp_flow_sim(const tp_flow *f);
void tp_flow_hold(tp_flow *f, int d);
void tp_flow_output(tp_flow *f);
double tp_flow_line_bps(const tp_flow *f);
void tp_flow_cnp(tp_flow *f);
uint64_t tp_cnps(const tp_inst *t);
/* INT (ops->telemetry): the record a fabric's switch egress writes to for
 * message m, NULL if m carries none (not a data segment of such a
 * transport); T's default for f: the zero-load time of a full segment
 * (mss + header + int-header) from f's source to its destination plus that
 * of an ACK back (net_zero_load_ps; the ns-3 code's pair RTT counts the
 * data packet's transmission at every hop and the links both ways). */
net_int *tp_int_of(const net_msg *m);
int64_t tp_flow_base_rtt_ps(const tp_flow *f);
/* The parameters of f's transport. */
const tp_params *tp_flow_params(const tp_flow *f);
/* Bytes of segments [a, b) of f. */
uint64_t tp_seg_bytes(const tp_flow *f, uint32_t a, uint32_t b);

#endif
