/* The shared machinery of the window-based transports (contract in
 * transport.h). Rules and sources:
 *   Segments: a message of b bytes is S = max(1, ceil(b / mss)) segments,
 *     all of mss payload but the last; each is a fabric message of payload
 *     + header bytes. Sequence numbers count segments (the byte stream's
 *     mss-sized units; SACK blocks are runs of whole segments, so nothing
 *     finer is needed).
 *   Sending: segments go out while the segments outstanding (nxt - una)
 *     are fewer than max(1, floor(min(cwnd, window) / mss)) and than the
 *     receive window TP_RWND; new segments in order, retransmissions as
 *     below. `window` (transport.window, 0: none) is what a real socket's
 *     buffers allow in flight: the smaller of its send buffer and the
 *     receiver's advertised window (RFC 793's SND.WND; ns-3's TcpSocket
 *     SndBufSize and RcvBufSize, 131072 B by default, cap every ns-3 TCP
 *     connection at 128 KiB outstanding).
 *   Receiver (RFC 5681 sec. 4.2, RFC 1122): a cumulative ACK names the next
 *     in-order segment expected; an in-order segment is acked once
 *     `delayed-ack` of them are unacked or after delayed-ack-timeout; an
 *     out-of-order or duplicate segment, one that fills all or part of a
 *     hole (out-of-order segments still held after it), each of the first
 *     `quick-ack` in-order segments (Linux's quick-ACK mode at connection
 *     start, tcp_incr_quickack, at most TCP_MAX_QUICKACKS = 16 there; 0
 *     by default; ns-3's TcpSocketBase acks a connection's first data
 *     segment at once, ProcessSynRcvd setting m_delAckCount to
 *     DelAckCount, "always respond to first data packet": 1), and the last
 *     of the message (its FIN, which a receiver acks at once) are acked at once (the duplicate ACKs fast retransmit counts). ECN-capable
 *     transports (dctcp): RFC 8257 sec. 3.2's two-state machine: when a
 *     segment's CE differs from the state, the segments held back are acked
 *     at once with the old state's ECE, then the state flips; every ACK
 *     carries ECE = the state. (dctcp variant="ns-3" departs from this
 *     and from the loss recovery below as ns-3 3.37 does: tp_dctcp.c's
 *     head, (a)-(e).)
 *   Loss recovery, NewReno (RFC 6582; without SACK): on the third duplicate
 *     ACK, if the ACK covers the whole of the last recovery (una >=
 *     recover), ssthresh = ops->ssthresh (Reno: RFC 5681 eq. 4), recover =
 *     max, the first unacked segment is retransmitted and cwnd = ssthresh +
 *     3 mss; every further duplicate ACK inflates cwnd by mss. A partial ACK
 *     (una < recover) retransmits the next unacked segment, deflates cwnd by
 *     the bytes it acked and adds back mss if that was at least mss, and
 *     (the first partial ACK only: RFC 6582's impatient variant) restarts
 *     the timer. A full ACK ends recovery with cwnd = ssthresh (RFC 6582
 *     sec. 3.2 step 3, option 2, as ns-3). A `windowed` transport (hpcc)
 *     sets its window from every ACK's INT (on_int, before this): recovery
 *     retransmits as above but leaves cwnd alone (no ssthresh + 3 mss, no
 *     inflation, no deflation, no cwnd = ssthresh at the full ACK), as the
 *     HPCC ns-3 code, whose NACK only rewinds snd_nxt and whose window is
 *     HandleAckHp's at every ACK; so during recovery the segments the
 *     receiver holds beyond the hole count in the W outstanding (the
 *     code's snd_nxt - snd_una) and new data waits for the hole.
 *   Retransmission timer (RFC 6298): SRTT, RTTVAR from the first sample
 *     (R, R/2), then beta 1/4, alpha 1/8; RTO = max(min-rto, SRTT + 4
 *     RTTVAR) (clock granularity G = 0: times are exact), initial-rto before
 *     any sample, at most 60 s; one segment timed at a time, a sample never
 *     from a retransmitted one (Karn). Armed when a segment is sent and
 *     none is running, restarted when an ACK acks new data (stopped when
 *     nothing is outstanding). On expiry: ssthresh = ops->ssthresh, cwnd =
 *     1 mss (RFC 5681's loss window), recover = max, go-back-N from una,
 *     RTO doubled (backoff, undone by the next sample).
 *   Limited transmit (RFC 3042; transport.limited-transmit="on", off by
 *     default; Linux and ns-3 have it on): without SACK, the first and the
 *     second duplicate ACK each send one new segment if there is one, the
 *     receive window allows it and FlightSize stays within cwnd + 2 mss;
 *     cwnd is not changed, and these segments are left out of FlightSize
 *     when the third duplicate ACK computes ssthresh (RFC 5681 sec. 3.2
 *     step 2). With SACK it is RFC 6675 sec. 5 step 3: HighRxt = HighACK and
 *     new segments while cwnd - pipe >= 1 mss.
 *   SACK (transport.sack="on", off by default; RFC 2018, RFC 6675):
 *     Receiver: every ACK sent while out-of-order segments are held carries
 *       up to TP_SACK_BLOCKS = 3 blocks (maximal runs of held segments): the
 *       first holds the segment that triggered the ACK unless it advanced the
 *       cumulative ACK, then the most recently reported blocks not already
 *       listed (RFC 2018 sec. 4); such an ACK is header + 4 + 8 n bytes (n
 *       blocks; transport.h). No D-SACK (RFC 2883), no reneging: the
 *       receiver keeps every segment it holds.
 *     Sender: a scoreboard of SACKed segments over [una, max) (transport.h,
 *       tp_sb_*: IsLost with DupThresh 3, SetPipe, NextSeg rules 1-3). A
 *       duplicate ACK is one that SACKs new segments (RFC 6675 sec. 2: even
 *       if it also moves una, which resets the count first). On the third,
 *       or when IsLost(una) (3 segments SACKed above una), and not before
 *       una passed the RecoveryPoint of a timeout (sec. 5.1): RecoveryPoint
 *       = max, ssthresh = cwnd = ops->ssthresh (FlightSize / 2 for Reno and
 *       DCTCP: RFC 6675 step 4.2, no inflation), una is retransmitted
 *       (HighRxt = una), then while cwnd - pipe >= 1 mss the segment NextSeg
 *       names is sent (step C). Each ACK in recovery updates the scoreboard
 *       and sends again by step C; the one whose cumulative ACK reaches
 *       RecoveryPoint ends recovery (cwnd stays ssthresh). The timer is
 *       restarted by every ACK that moves una (RFC 6298 5.3).
 *     Timeout: as above (cwnd 1 mss, go-back from una, RecoveryPoint =
 *       max); the scoreboard is kept (the receiver never reneges here; RFC
 *       6675 sec. 5.1 with erratum 1610, as Linux and ns-3 do) and the
 *       go-back skips SACKed segments, counting only unSACKed ones sent since
 *       the timeout as in flight ("filling in the sequence space reported as
 *       missing", sec. 5.1).
 *     Memory: the scoreboard is a TP_RWND-bit bitmap in the flow record (512 B
 *       per flow, cleared at flow start only when sack is on); an ACK's blocks
 *       live in a record from a per-transport pool (chunks, no malloc once warm)
 *       while the ACK is in flight.
 *   Handshake (transport.handshake="on", off by default; RFC 793 sec. 3.4,
 *     as ns-3's TcpSocketBase, which basic-sim runs): a connection opens
 *     with a SYN (header bytes, the data's class) answered by a SYN-ACK
 *     (header bytes, the ACK class: ns-3's accepted socket has its
 *     listener's ToS); no data goes before the SYN-ACK is back. The SYN's
 *     round trip is the first RTT sample (RFC 6298 sec. 2.2; ns-3 puts the
 *     SYN in its RTT history and samples it when the SYN-ACK acks it),
 *     unless the SYN was sent more than once (Karn). A SYN is sent again
 *     after initial-rto x 2^k, k the SYNs sent before (ns-3 SendEmptyPacket:
 *     ConnTimeout x 2^(SynRetries - synCount); basic-sim sets ConnTimeout =
 *     RttEstimator InitialEstimation = 2 x its worst-case RTT, so one
 *     attribute carries both), counted as a timeout; each SYN, a repeated
 *     one too, is answered (a lost SYN-ACK is repaired by the SYN's timer:
 *     the receiver's own SYN-ACK timer is not modelled). The FCT counts from
 *     the connect (the message's hand-over), as basic-sim's flow start.
 *     Not modelled: the third leg's pure ACK (ns-3 sends one header-size
 *     packet before the data), SYN options beyond the header (window scale,
 *     SACK-permitted: at most 4 B), giving up after ConnCount SYNs, RFC 6298
 *     sec. 5.7's 3-s RTO after a lost SYN (ns-3 does not apply it either).
 *   Persistent connections (transport.connection="persistent", per
 *     workload workload.connection; default a connection per message): one
 *     flow record per (source, destination, class, priority), kept for the
 *     run, carries a byte stream: each message handed over is appended (its
 *     segments numbered on from the stream's end, each message segmented on
 *     its own: its last segment short; a real stream would fill that
 *     segment with the next message's first bytes when both wait: at most
 *     one short segment per message more here), sent as the window allows,
 *     and delivered when the receiver holds it and every message before it
 *     in order. cwnd, ssthresh, the RTT estimate and the RTO carry over
 *     from message to message and across idle time (ns-3's TcpSocketBase
 *     has no restart after idle, RFC 5681 sec. 4.1 / RFC 7661 are not
 *     modelled; Linux's tcp_slow_start_after_idle would restart); no FIN,
 *     so a message's last segment is acked by the delayed-ACK rules like
 *     any other. The thesis' Horovod simulator keeps one socket per ring
 *     neighbour for the run (seed 002 sec. 5.2.1: the receiver counts bytes
 *     of a stream, partitions "grouped together ... as one packet"; sec.
 *     5.4.1: no reconnection after a socket closes).
 *   Completion (transport.completion; default receiver): a message is
 *     delivered to its workload when its receiver holds every byte, or with
 *     "close" when its sender has the ACK of its last byte (per-message
 *     connections; a persistent connection's messages are delivered at the
 *     receiver). basic-sim's FCT ends at the sender's normal close
 *     (TcpFlowSendApplication::SocketClosedNormal: the FIN rides the last
 *     segment, the sink answers with its ACK and FIN back to back, in its
 *     socket's class): one ACK trip after the receiver holds the message.
 *   Window growth and ECN reaction: the congestion ops (tp_tcp.c, tp_dctcp.c).
 * Every time is an integer ps; no randomness. Records (flows, messages)
 * come from pools grown by chunks: no malloc once warm. */
#include "transport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

extern const tp_cc_ops tp_tcp_ops, tp_dctcp_ops, tp_dcqcn_ops, tp_hpcc_ops;

const tp_cc_ops *const tp_registry[] = {NULL, &tp_tcp_ops, &tp_dctcp_ops, &tp_dcqcn_ops, &tp_hpcc_ops};
const char *const tp_names[] = {"none", "tcp", "dctcp", "dcqcn", "hpcc", NULL};
const char *const tp_wl_names[] = {"inherit", "none", "tcp", "dctcp", "dcqcn", "hpcc", NULL};
_Static_assert(sizeof tp_wl_names / sizeof tp_wl_names[0] == sizeof tp_names / sizeof tp_names[0] + 1,
               "workload.transport lists inherit and every transport");

size_t tp_count(void) { return sizeof tp_registry / sizeof tp_registry[0]; }

enum { TP_DATA = 1, TP_ACK = 2, TP_CNP = 3, TP_SYN = 4, TP_SYNACK = 5 };
/* OUT_NS3: dctcp variant="ns-3" (tp_dctcp.c's head): the window machinery
 * with ns-3's departures, in functions of its own (output_ns3,
 * ack_arrived_other, ack_extra), so the default path runs no test of it. */
enum { OUT_WINDOW = 0, OUT_PACED = 1, OUT_SACK = 2, OUT_NS3 = 3 };
/* send_ack's trig for the ACK a CE change sends (RFC 8257 sec. 3.2); never a
 * held segment, so SACK's blocks take it as none */
#define TRIG_CE (UINT32_MAX - 1)
/* a tp_set_mark entry in tp_inst.loss: its sequence number | this */
#define TP_MARK_BIT UINT32_C(0x80000000)

/* The SACK blocks of one ACK in flight (its net_msg.b: ECE in bit 0, the
 * record's address above it). */
typedef struct tp_sackrec {
    struct tp_sackrec *next; /* free list */
    uint32_t n;
    uint32_t blk[2 * TP_SACK_BLOCKS]; /* [start, end) segments, most recent first */
} tp_sackrec;
#define TP_CHUNK 128

struct tp_inst {
    net *root;
    sim *s;
    const tp_cc_ops *ops;
    tp_params p;
    net_msg_pool pool; /* segments and ACKs */
    tp_flow *free;
    void **chunks;
    size_t nchunks;
    tp_counters c;
    tp_probe_fn probe;
    void *probe_ctx;
    uint32_t loss[16]; /* tp_set_loss; tp_set_mark's entries | TP_MARK_BIT */
    size_t nloss;
    uint64_t cnps;     /* CNPs sent by receivers */
    int out_mode;      /* how output sends: OUT_WINDOW, OUT_PACED (rate-based ops), OUT_SACK (sack on),
                        * OUT_NS3 (dctcp variant="ns-3") */
    tp_sackrec *sfree; /* SACK block records */
    void **schunks;
    size_t nschunks;
    uint32_t syn_loss; /* tp_set_syn_loss */
    tp_stream **streams; /* persistent connections: open addressing by (src, dst, cls, prio) */
    size_t nstreams, cstreams;
    int int_on;        /* ops->telemetry: data segments carry INT records (net_int, pooled below) */
    uint64_t seg_extra; /* bytes a segment adds to its payload on the wire: header (+ int-header) */
    uint64_t ack_bytes; /* an ACK's size: header (+ int-header) */
    net_int *ifree;    /* INT records (free list through hop[0].tx_bytes) */
    void **ichunks;
    size_t nichunks;
    void *ccfree;      /* the ops' per-flow blocks (ops->state_bytes; free list through their first word) */
    void **ccchunks;
    size_t nccchunks;
};

const char *const tp_onoff_names[] = {"off", "on", NULL};
const char *const tp_variant_names[] = {"rfc", "ns-3", NULL};
const char *const tp_connection_names[] = {"message", "persistent", NULL};
const char *const tp_completion_names[] = {"receiver", "close", NULL};
const char *const tp_wl_connection_names[] = {"inherit", "message", "persistent", NULL};

/* A persistent connection's messages in its byte stream (transport.c head):
 * message i holds segments [start, end), all of mss payload but its
 * last (last bytes); entries [head, n) are not yet acked in full, [rpos, n)
 * not yet delivered. */
typedef struct tp_smsg {
    net_msg *m;
    uint32_t start, end, last;
    int64_t t_head_ps;
} tp_smsg;
struct tp_stream {
    tp_smsg *q;
    uint32_t head, rpos, n, cap; /* indices into q (head <= rpos <= n; compacted when an entry is appended) */
    uint32_t src, dst;
    uint8_t cls, prio;
    tp_flow *f;
};

void tp_check(const tp_params *p, param_report *rep)
{
    if (p->type < 0 || (size_t)p->type >= tp_count())
        param_invalid(rep, "transport.type", "unknown transport %d", p->type);
    if (p->init_cwnd < 1)
        param_invalid(rep, "transport.init-cwnd", "must be at least 1 segment");
    if (p->delayed_ack < 1)
        param_invalid(rep, "transport.delayed-ack", "must be at least 1 segment per ACK");
    if (p->mss_bytes < 1 || p->mss_bytes > (UINT64_C(1) << 30))
        param_invalid(rep, "transport.mss", "must be between 1B and 1GiB (got %llu B)",
                      (unsigned long long)p->mss_bytes);
    if (p->header_bytes > (UINT64_C(1) << 20))
        param_invalid(rep, "transport.header", "at most 1MiB (got %llu B)", (unsigned long long)p->header_bytes);
    if (!(p->g > 0) || p->g > 1)
        param_invalid(rep, "transport.g", "must be in (0, 1] (got %g)", p->g);
    if (p->init_rto_ps <= 0)
        param_invalid(rep, "transport.initial-rto", "must be > 0");
    if (p->persistent && p->type > 0 && (size_t)p->type < tp_count() && tp_registry[p->type]->rate_based)
        param_invalid(rep, "transport.connection", "persistent applies to the window-based transports (tcp, dctcp), "
                      "not %s", tp_registry[p->type]->name);
    if (p->handshake && p->type > 0 && (size_t)p->type < tp_count() && tp_registry[p->type]->rate_based)
        param_invalid(rep, "transport.handshake", "applies to the window-based transports (tcp, dctcp), not %s",
                      tp_registry[p->type]->name);
    if (!(p->eta > 0) || p->eta > 1)
        param_invalid(rep, "transport.eta", "must be in (0, 1] (got %g)", p->eta);
    if (p->int_bytes > 4096)
        param_invalid(rep, "transport.int-header", "at most 4096B (got %llu B)", (unsigned long long)p->int_bytes);
    if ((p->sack || p->limited_transmit) && p->type > 0 && (size_t)p->type < tp_count() &&
        tp_registry[p->type]->rate_based)
        param_invalid(rep, p->sack ? "transport.sack" : "transport.limited-transmit",
                      "applies to the window-based transports (tcp, dctcp), not %s", tp_registry[p->type]->name);
    else if (p->sack && p->type > 0 && (size_t)p->type < tp_count() && tp_registry[p->type]->telemetry)
        param_invalid(rep, "transport.sack", "an ACK of %s carries an INT record, and SACK blocks would need the "
                      "same place: not both", tp_registry[p->type]->name);
    if (p->variant != TP_VARIANT_RFC && p->variant != TP_VARIANT_NS3)
        param_invalid(rep, "transport.variant", "unknown variant %d", p->variant);
    else if (p->variant == TP_VARIANT_NS3 && p->type >= 0 && (size_t)p->type < tp_count() &&
             tp_registry[p->type] != &tp_dctcp_ops)
        param_invalid(rep, "transport.variant", "ns-3 is a variant of dctcp only (ns-3 3.37's TcpDctcp), not of "
                      "transport type %s", tp_names[p->type]);
    else if (p->variant == TP_VARIANT_NS3 && p->sack)
        param_invalid(rep, "transport.variant", "ns-3 imitates ns-3's TcpDctcp with SACK off (its NewReno "
                      "recovery): not with transport.sack=\"on\"");
}

/* ---- pools ---- */

/* INT records (ops->telemetry): one per data segment in flight, moved to
 * its ACK by the receiver (the latest only: tp_flow.rint). */
static net_int *int_alloc(tp_inst *t)
{
    if (!t->ifree) {
        net_int *c = tn_xcalloc(TP_CHUNK, sizeof *c);
        t->ichunks = tn_xrealloc(t->ichunks, (t->nichunks + 1) * sizeof *t->ichunks);
        t->ichunks[t->nichunks++] = c;
        for (size_t i = TP_CHUNK; i-- > 0;) {
            c[i].hop[0].tx_bytes = (uint64_t)(uintptr_t)t->ifree;
            t->ifree = &c[i];
        }
    }
    net_int *r = t->ifree;
    t->ifree = (net_int *)(uintptr_t)r->hop[0].tx_bytes;
    r->nhop = 0;
    return r;
}

static void int_release(tp_inst *t, net_int *r)
{
    r->hop[0].tx_bytes = (uint64_t)(uintptr_t)t->ifree;
    t->ifree = r;
}

/* the INT record message m carries (its net_msg.b above bit 0), NULL if none */
static inline net_int *msg_int(const net_msg *m) { return (net_int *)(uintptr_t)(m->b & ~UINT64_C(1)); }

/* m (data or ACK of an INT transport) gives its record back */
static __attribute__((noinline)) void int_drop_msg(tp_inst *t, net_msg *m)
{
    net_int *r = msg_int(m);
    if (r)
        int_release(t, r);
    m->b &= 1;
}

net_int *tp_int_of(const net_msg *m)
{
    if (m->client != NET_TP_CLIENT || m->kind != TP_DATA || !((const tp_flow *)m->p)->t->int_on)
        return NULL;
    return msg_int(m);
}

/* The ops' per-flow blocks (tp_cc_ops.state_bytes, f->cc): TP_CHUNK blocks
 * of that size rounded up to 16 B per chunk; a block is zeroed when taken. */
static __attribute__((noinline)) void *cc_alloc(tp_inst *t)
{
    size_t sz = (t->ops->state_bytes + 15) & ~(size_t)15;
    if (!t->ccfree) {
        char *c = tn_xcalloc(TP_CHUNK, sz);
        t->ccchunks = tn_xrealloc(t->ccchunks, (t->nccchunks + 1) * sizeof *t->ccchunks);
        t->ccchunks[t->nccchunks++] = c;
        for (size_t i = TP_CHUNK; i-- > 0;) {
            memcpy(c + i * sz, &t->ccfree, sizeof t->ccfree);
            t->ccfree = c + i * sz;
        }
    }
    void *b = t->ccfree;
    memcpy(&t->ccfree, b, sizeof t->ccfree);
    memset(b, 0, t->ops->state_bytes);
    return b;
}

static __attribute__((noinline)) void cc_release(tp_inst *t, tp_flow *f)
{
    memcpy(f->cc, &t->ccfree, sizeof t->ccfree);
    t->ccfree = f->cc;
    f->cc = NULL;
}

static tp_flow *flow_alloc(tp_inst *t)
{
    if (!t->free) {
        tp_flow *c = tn_xcalloc(TP_CHUNK, sizeof *c);
        t->chunks = tn_xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
        t->chunks[t->nchunks++] = c;
        for (size_t i = TP_CHUNK; i-- > 0;) {
            c[i].next = t->free;
            t->free = &c[i];
        }
    }
    tp_flow *f = t->free;
    t->free = f->next;
    memset(f, 0, offsetof(tp_flow, sacked)); /* the scoreboard: tp_send, when sack is on */
    t->c.flows_live++;
    return f;
}

/* f back to the pool (once per flow: out of line, so the test below stays small) */
static __attribute__((noinline)) void flow_free(tp_inst *t, tp_flow *f)
{
    if (f->rint) {
        int_release(t, f->rint);
        f->rint = NULL;
    }
    if (f->cc)
        cc_release(t, f);
    t->c.flows_live--;
    f->next = t->free;
    t->free = f;
}

static inline void flow_maybe_free(tp_inst *t, tp_flow *f)
{
    if (f->done_snd && f->done_rcv && !f->live)
        flow_free(t, f);
}

/* ---- helpers ---- */

/* a stream's bytes short of mss in the segments [a, b): the last segment of
 * each message ending in (a, b] */
static __attribute__((noinline)) uint64_t st_short(const tp_flow *f, uint32_t a, uint32_t b)
{
    const tp_stream *st = f->st;
    uint64_t d = 0;
    for (uint32_t i = st->head; i < st->n && st->q[i].end <= b; i++)
        if (st->q[i].end > a)
            d += f->mss - st->q[i].last;
    return d;
}

static inline uint32_t seg_payload(const tp_flow *f, uint32_t s)
{
    if (__builtin_expect(f->st != NULL, 0))
        return (uint32_t)(f->mss - st_short(f, s, s + 1));
    return s + 1 == f->nseg ? f->last_payload : (uint32_t)f->mss;
}

uint64_t tp_seg_bytes(const tp_flow *f, uint32_t a, uint32_t b)
{
    if (b <= a)
        return 0;
    uint64_t n = (uint64_t)(b - a) * f->mss;
    if (__builtin_expect(f->st != NULL, 0))
        return n - st_short(f, a, b);
    if (b == f->nseg)
        n -= f->mss - f->last_payload;
    return n;
}

uint64_t tp_reno_ssthresh(const tp_flow *f)
{
    /* limited transmit's segments (the last lt_sent sent) are not counted (RFC 5681 sec. 3.2 step 2).
     * FlightSize runs to max, the highest segment sent, not to nxt: a timeout repeated before una
     * moves (go-back-N has nxt back at una, max where it was) computes the same value, which is RFC
     * 5681 sec. 3.1's rule of lowering ssthresh only for a segment "not yet resent by way of the
     * retransmission timer" (a build keeping ssthresh explicitly on such a timeout gave the thesis'
     * R = 4 / 184 runs bit for bit, 40,082 and 61,904 timeouts) */
    uint64_t flight = tp_seg_bytes(f, f->una, f->max - f->lt_sent);
    uint64_t half = flight / 2, floor2 = 2 * f->mss;
    return half > floor2 ? half : floor2;
}

const char *const tp_growth_names[] = {"reno", "linux", NULL};
const char *const tp_ack_class_names[] = {"data", "0", "1", "2", "3", "4", "5", "6", "7", NULL};
const char *const tp_wl_ack_class_names[] = {"inherit", "data", "0", "1", "2", "3", "4", "5", "6", "7", NULL};
_Static_assert(sizeof tp_ack_class_names / sizeof tp_ack_class_names[0] == NET_PRIO_CLASSES + 2,
               "transport.ack-class lists data and every class");

void tp_grow(tp_flow *f, uint64_t acked_bytes)
{
    if (f->t->p.growth != TP_GROWTH_LINUX) {
        tp_reno_grow(f);
        return;
    }
    uint64_t mss = f->mss, k = (acked_bytes + mss - 1) / mss;
    if (k == 0)
        return;
    /* Linux keeps both in whole segments (tcp_in_slow_start: snd_cwnd <
     * snd_ssthresh): compared in bytes, an ssthresh that is not a whole
     * number of segments (half a flight) kept cwnd in slow start below it
     * for ever, capped at the whole segments under it */
    uint64_t cap = f->ssthresh / mss;
    if (f->cwnd / mss < cap) { /* tcp_slow_start: cwnd = min(cwnd + k, ssthresh), in whole segments */
        uint64_t w = f->cwnd / mss, nw = w + k < cap ? w + k : cap;
        k -= nw > w ? nw - w : 0;
        f->cwnd = nw * mss;
    }
    if (f->cwnd / mss >= cap) { /* tcp_cong_avoid_ai(w = cwnd / mss, k) */
        uint64_t w = f->cwnd / mss;
        if (w == 0)
            w = 1;
        if (f->cwnd_cnt >= w) {
            f->cwnd_cnt = 0;
            f->cwnd += mss;
        }
        f->cwnd_cnt += (uint32_t)k;
        if (f->cwnd_cnt >= w) {
            uint64_t d = f->cwnd_cnt / w;
            f->cwnd_cnt -= (uint32_t)(d * w);
            f->cwnd += d * mss;
        }
    }
}

void tp_reno_grow(tp_flow *f)
{
    if (f->cwnd < f->ssthresh) {
        f->cwnd += f->mss;
        return;
    }
    uint64_t add = f->mss * f->mss / f->cwnd;
    f->cwnd += add > 0 ? add : 1;
}

/* ---- segment bitmaps (the receiver's ooo, the sender's sacked): bit s % TP_RWND ---- */

static inline int bm_has(const uint64_t *bm, uint32_t s) { return (int)((bm[(s % TP_RWND) / 64] >> (s % 64)) & 1); }

/* k bits from bit o of a word (1 <= k <= 64 - o) */
static inline uint64_t bm_mask(uint32_t o, uint32_t k) { return (k == 64 ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1) << o; }

/* the first s' >= s whose bit is clear (one is, within TP_RWND) */
static uint32_t bm_run_end(const uint64_t *bm, uint32_t s)
{
    for (;;) {
        uint32_t o = s % 64;
        uint64_t x = ~bm[(s % TP_RWND) / 64] >> o;
        if (x)
            return s + (uint32_t)__builtin_ctzll(x);
        s += 64 - o;
    }
}

/* the first of the run of set bits that ends at s (s's bit set) */
static uint32_t bm_run_start(const uint64_t *bm, uint32_t s)
{
    for (;;) {
        uint32_t o = s % 64;
        uint64_t x = ~bm[(s % TP_RWND) / 64] << (63 - o);
        if (x)
            return s + 1 - (uint32_t)__builtin_clzll(x);
        s -= o + 1;
    }
}

/* bits set in [a, b) (b - a <= TP_RWND) */
static uint32_t bm_count(const uint64_t *bm, uint32_t a, uint32_t b)
{
    uint32_t n = 0;
    while (a < b) {
        uint32_t o = a % 64, k = 64 - o < b - a ? 64 - o : b - a;
        n += (uint32_t)__builtin_popcountll(bm[(a % TP_RWND) / 64] & bm_mask(o, k));
        a += k;
    }
    return n;
}

/* set (on) or clear the bits of [a, b); the number that changed */
static uint32_t bm_put(uint64_t *bm, uint32_t a, uint32_t b, int on)
{
    uint32_t n = 0;
    while (a < b) {
        uint32_t o = a % 64, k = 64 - o < b - a ? 64 - o : b - a;
        uint64_t *w = &bm[(a % TP_RWND) / 64], m = bm_mask(o, k);
        n += (uint32_t)__builtin_popcountll(on ? m & ~*w : m & *w);
        *w = on ? *w | m : *w & ~m;
        a += k;
    }
    return n;
}

/* ---- the SACK scoreboard (transport.h) ---- */

uint32_t tp_sb_mark(tp_flow *f, uint32_t a, uint32_t b)
{
    if (a < f->una)
        a = f->una;
    if (b > f->max)
        b = f->max;
    if (a >= b)
        return 0;
    uint32_t n = bm_put(f->sacked, a, b, 1);
    f->sacked_n += n;
    if (b > f->sack_hi)
        f->sack_hi = b;
    return n;
}

uint32_t tp_sb_count(const tp_flow *f, uint32_t a, uint32_t b)
{
    if (a < f->una)
        a = f->una;
    if (b > f->max)
        b = f->max;
    return a < b && f->sacked_n ? bm_count(f->sacked, a, b) : 0;
}

/* una moves to ack: the bits below it go */
static void sb_advance(tp_flow *f, uint32_t ack)
{
    if (f->sacked_n)
        f->sacked_n -= bm_put(f->sacked, f->una, ack, 0);
    f->una = ack;
}

/* Unsacked segments below this one are lost (IsLost): the third highest
 * SACKed segment; una when fewer than 3 are SACKed. */
static uint32_t sb_lost_below(const tp_flow *f)
{
    if (f->sacked_n < 3)
        return f->una;
    uint32_t need = 3, s = f->sack_hi;
    while (s > f->una) {
        uint32_t top = s - 1, o = top % 64, k = o + 1 < s - f->una ? o + 1 : s - f->una;
        uint64_t w = f->sacked[(top % TP_RWND) / 64] & bm_mask(o + 1 - k, k);
        uint32_t c = (uint32_t)__builtin_popcountll(w);
        if (c >= need) {
            while (--need)
                w &= ~(UINT64_C(1) << (63 - __builtin_clzll(w)));
            return top - o + (uint32_t)(63 - __builtin_clzll(w));
        }
        need -= c;
        s -= k;
    }
    return f->una;
}

int tp_sb_is_lost(const tp_flow *f, uint32_t s) { return s < sb_lost_below(f) && !bm_has(f->sacked, s); }

/* payload bytes of the segments of [a, b) not SACKed */
static uint64_t sb_unsacked_bytes(const tp_flow *f, uint32_t a, uint32_t b)
{
    if (a >= b)
        return 0;
    uint64_t n = tp_seg_bytes(f, a, b);
    uint32_t k = tp_sb_count(f, a, b);
    if (k) {
        n -= (uint64_t)k * f->mss;
        if (f->st) { /* the short last segments of the stream's messages, SACKed */
            const tp_stream *st = f->st;
            for (uint32_t i = st->head; i < st->n && st->q[i].end <= b; i++)
                if (st->q[i].end > a && bm_has(f->sacked, st->q[i].end - 1))
                    n += f->mss - st->q[i].last;
        } else if (b == f->nseg && bm_has(f->sacked, b - 1)) { /* the last segment, short */
            n += f->mss - f->last_payload;
        }
    }
    return n;
}

uint64_t tp_sb_pipe(const tp_flow *f)
{
    uint32_t lost = sb_lost_below(f), hr = f->in_fr ? f->high_rxt : f->una;
    if (hr < f->una)
        hr = f->una;
    if (hr > f->max)
        hr = f->max;
    return sb_unsacked_bytes(f, lost, f->max) + sb_unsacked_bytes(f, f->una, hr);
}

uint32_t tp_sb_next_seg(const tp_flow *f, uint32_t rwnd)
{
    uint32_t from = f->in_fr && f->high_rxt > f->una ? f->high_rxt : f->una;
    uint32_t s = from < f->sack_hi ? bm_run_end(f->sacked, from) : UINT32_MAX; /* first unSACKed >= from */
    if (s < f->sack_hi && s < sb_lost_below(f))
        return s; /* rule 1 */
    if (f->max < f->nseg && f->max - f->una < rwnd)
        return f->max; /* rule 2 */
    if (s < f->sack_hi)
        return s; /* rule 3 */
    return UINT32_MAX;
}

static tp_sackrec *sack_alloc(tp_inst *t)
{
    if (!t->sfree) {
        tp_sackrec *c = tn_xcalloc(TP_CHUNK * 4, sizeof *c);
        t->schunks = tn_xrealloc(t->schunks, (t->nschunks + 1) * sizeof *t->schunks);
        t->schunks[t->nschunks++] = c;
        for (size_t i = TP_CHUNK * 4; i-- > 0;) {
            c[i].next = t->sfree;
            t->sfree = &c[i];
        }
    }
    tp_sackrec *r = t->sfree;
    t->sfree = r->next;
    return r;
}

static inline tp_sackrec *ack_sack(const net_msg *m)
{
    return m->kind == TP_ACK ? (tp_sackrec *)(uintptr_t)(m->b & ~UINT64_C(1)) : NULL;
}

static __attribute__((noinline)) void sack_release(tp_inst *t, const net_msg *m)
{
    tp_sackrec *r = ack_sack(m);
    if (r) {
        r->next = t->sfree;
        t->sfree = r;
    }
}

/* The receive window in segments: TP_RWND, or fewer under transport.window. */
static uint32_t rwnd_segs(const tp_inst *t, const tp_flow *f)
{
    uint64_t w = TP_RWND;
    if (t->p.window_bytes && w > t->p.window_bytes / f->mss)
        w = t->p.window_bytes / f->mss;
    return w < 1 ? 1 : (uint32_t)w;
}

static net_msg *new_msg(tp_inst *t, tp_flow *f, uint32_t src, uint32_t dst, uint64_t bytes, uint16_t kind)
{
    net_msg *m = net_msg_alloc(&t->pool);
    m->src = src;
    m->dst = dst;
    m->size_bytes = bytes;
    m->cls = f->cls;
    m->prio = (kind == TP_ACK || kind == TP_SYNACK) && t->p.ack_class ? (uint8_t)(t->p.ack_class - 1) : f->prio;
    m->kind = kind;
    m->p = f;
    m->client = NET_TP_CLIENT;
    m->id = t->root->next_id++;
    m->t_submit_ps = sim_now(t->s);
    m->t_head_ps = -1;
    m->inject_hi = 0;
    m->inject_lo = 0;
    m->next = NULL;
    f->live++;
    return m;
}

static void ev_rto(sim *s, void *ctx, uint64_t arg);

static void rto_schedule(tp_inst *t, tp_flow *f)
{
    if (f->rto_ev) {
        sim_cancel(t->s, f->rto_ev);
        f->live--;
    }
    f->rto_ev = sim_schedule_at(t->s, f->rto_deadline, ev_rto, t, (uint64_t)(uintptr_t)f);
    f->rto_ev_ps = f->rto_deadline;
    f->live++;
}

/* (Re)start the timer: it fires an RTO from now. */
static void rto_restart(tp_inst *t, tp_flow *f)
{
    f->rto_armed = 1;
    f->rto_deadline = sim_now(t->s) + f->rto;
    /* a pending event at or before the deadline is reused (it re-arms itself) */
    if (!f->rto_ev || f->rto_ev_ps > f->rto_deadline)
        rto_schedule(t, f);
}

static void rto_stop(tp_inst *t, tp_flow *f)
{
    f->rto_armed = 0;
    if (f->rto_ev) {
        sim_cancel(t->s, f->rto_ev);
        f->rto_ev = 0;
        f->live--;
    }
}

static void send_seg(tp_inst *t, tp_flow *f, uint32_t seq)
{
    net_msg *m = new_msg(t, f, f->src, f->dst, seg_payload(f, seq) + t->seg_extra, TP_DATA);
    m->a = seq;
    m->ecn = t->ops->ect ? NET_ECN_ECT : NET_ECN_NOT_ECT;
    t->c.segments++;
    if (seq < f->max) {
        m->b = 1; /* a retransmission */
        t->c.retransmissions++;
        if (f->timing && seq <= f->t_seq)
            f->timing = 0; /* Karn: the timed segment is ambiguous now */
    } else {
        f->max = seq + 1;
        if (!f->timing) {
            f->timing = 1;
            f->t_seq = seq;
            f->t_sent = sim_now(t->s);
        }
    }
    if (!f->rto_armed)
        rto_restart(t, f);
    if (t->nloss && seq + 1 == f->max && !(m->b & 1)) {
        for (size_t i = 0; i < t->nloss; i++)
            if (t->loss[i] == seq) {
                t->c.dropped++;
                f->live--;
                net_msg_release(&t->pool, m);
                return;
            } else if (t->loss[i] == (seq | TP_MARK_BIT) && m->ecn == NET_ECN_ECT) {
                m->ecn = NET_ECN_CE;
            }
    }
    if (__builtin_expect(t->int_on, 0))
        m->b |= (uint64_t)(uintptr_t)int_alloc(t);
    t->root->ops->send(t->root->state, m);
}

static void ev_pace(sim *s, void *ctx, uint64_t arg);

/* Rate-based: the pacer sends the next segment when its time comes
 * (segment k + 1 leaves ser(its bytes at rate_bps) after segment k). */
static void output_paced(tp_inst *t, tp_flow *f)
{
    if (f->pace_ev)
        return;
    int64_t now = sim_now(t->s);
    int win = t->ops->windowed;
    while (f->nxt < f->nseg && f->nxt - f->una < TP_RWND && now >= f->next_avail_ps) {
        if (win && tp_seg_bytes(f, f->una, f->nxt) >= f->cwnd)
            return; /* window-bound: an ACK calls output again */
        uint64_t wire = seg_payload(f, f->nxt) + t->seg_extra;
        int64_t gap = (int64_t)ceil((double)wire * 8e12 / f->rate_bps);
        f->next_avail_ps = now + (gap > 0 ? gap : 1);
        send_seg(t, f, f->nxt);
        f->nxt++;
    }
    if (f->nxt < f->nseg && f->nxt - f->una < TP_RWND) {
        f->pace_ev = sim_schedule_at(t->s, f->next_avail_ps, ev_pace, t, (uint64_t)(uintptr_t)f);
        f->live++;
    }
}

static void ev_pace(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    tp_inst *t = ctx;
    tp_flow *f = (tp_flow *)(uintptr_t)arg;
    f->pace_ev = 0;
    f->live--;
    if (!f->done_snd)
        output_paced(t, f);
    flow_maybe_free(t, f);
}

/* SACK recovery, RFC 6675 step C: while cwnd - pipe >= 1 mss, send what
 * NextSeg names (a retransmission moves HighRxt; new data moves max). */
static __attribute__((noinline)) void sack_fill(tp_inst *t, tp_flow *f)
{
    uint32_t rw = rwnd_segs(t, f);
    uint64_t pipe = tp_sb_pipe(f);
    while (pipe + f->mss <= f->cwnd) {
        uint32_t s = tp_sb_next_seg(f, rw);
        if (s == UINT32_MAX)
            break;
        int rtx = s < f->max;
        send_seg(t, f, s);
        if (rtx)
            f->high_rxt = s + 1;
        pipe += seg_payload(f, s); /* step C.4: a lost one now counts once, a new or a rule-3 one once more */
    }
    f->nxt = f->max;
}

static void output_sack(tp_inst *t, tp_flow *f);
static void output_ns3(tp_inst *t, tp_flow *f);

/* Send what the window allows. */
/* The segments f may have in flight: cwnd, capped by transport.window and
 * the receive window, at least one. */
static inline uint64_t send_window(const tp_inst *t, const tp_flow *f)
{
    uint64_t w = f->cwnd / f->mss;
    if (t->p.window_bytes && w > t->p.window_bytes / f->mss)
        w = t->p.window_bytes / f->mss;
    if (w < 1)
        w = 1;
    if (w > TP_RWND)
        w = TP_RWND;
    return w;
}

static void output(tp_inst *t, tp_flow *f)
{
    if (t->out_mode != OUT_WINDOW) {
        if (t->out_mode == OUT_PACED)
            output_paced(t, f);
        else if (t->out_mode == OUT_SACK)
            output_sack(t, f);
        else
            output_ns3(t, f);
        return;
    }
    uint64_t w = send_window(t, f);
    while (f->nxt < f->nseg && (uint64_t)(f->nxt - f->una) < w) {
        send_seg(t, f, f->nxt);
        f->nxt++;
    }
}

/* output with sack on: in recovery step C (sack_fill); after a timeout the
 * go-back skips SACKed segments; otherwise as without SACK */
static __attribute__((noinline)) void output_sack(tp_inst *t, tp_flow *f)
{
    if (f->in_fr) {
        sack_fill(t, f);
        return;
    }
    uint64_t w = send_window(t, f);
    if (f->nxt < f->max && f->sacked_n) {
        /* SACK, after a timeout: the go-back skips SACKed segments; in flight are the unSACKed ones sent
         * since (RFC 6675 sec. 5.1) */
        uint64_t out = (f->nxt - f->una) - tp_sb_count(f, f->una, f->nxt);
        uint32_t rw = rwnd_segs(t, f); /* skipped SACKed segments still hold receive window */
        while (f->nxt < f->nseg && out < w && f->nxt - f->una < rw) {
            if (f->nxt < f->max && bm_has(f->sacked, f->nxt)) {
                f->nxt = bm_run_end(f->sacked, f->nxt);
                continue;
            }
            send_seg(t, f, f->nxt);
            f->nxt++;
            out++;
        }
        return;
    }
    while (f->nxt < f->nseg && (uint64_t)(f->nxt - f->una) < w) {
        send_seg(t, f, f->nxt);
        f->nxt++;
    }
}

/* output with dctcp variant="ns-3", (c) of tp_dctcp.c's head: as output,
 * but a window below one segment (cwnd < mss) sends nothing, unless the
 * next segment is the message's last and fits in cwnd beside the bytes in
 * flight (ns-3's TcpSocketBase::SendPendingData: nothing while
 * AvailableWindow < segment size and more data than that waits, its
 * silly-window rule; otherwise min(AvailableWindow, segment size) bytes). */
static __attribute__((noinline)) void output_ns3(tp_inst *t, tp_flow *f)
{
    if (f->cwnd < f->mss) {
        if (f->nxt + 1 == f->nseg && tp_seg_bytes(f, f->una, f->nseg) <= f->cwnd) {
            send_seg(t, f, f->nxt);
            f->nxt++;
        }
        return;
    }
    uint64_t w = send_window(t, f);
    while (f->nxt < f->nseg && (uint64_t)(f->nxt - f->una) < w) {
        send_seg(t, f, f->nxt);
        f->nxt++;
    }
}

/* The receiver's SACK blocks for its next ACK (RFC 2018 sec. 4): the run of
 * held segments holding trig (the segment that triggered the ACK, if it is
 * held: UINT32_MAX if none), then the most recently reported runs still
 * held and not listed yet; remembered for the next ACK. */
static uint32_t sack_blocks(tp_flow *f, uint32_t trig, uint32_t *blk)
{
    uint32_t n = 0, cand[TP_SACK_BLOCKS + 1], nc = 0;
    if (f->ooo_n == 0) {
        f->rsack_n = 0;
        return 0;
    }
    if (trig != UINT32_MAX)
        cand[nc++] = trig;
    for (uint32_t i = 0; i < f->rsack_n; i++)
        cand[nc++] = f->rsack[i];
    for (uint32_t i = 0; i < nc && n < TP_SACK_BLOCKS; i++) {
        uint32_t a = cand[i];
        if (a < f->rcv_nxt || a - f->rcv_nxt >= TP_RWND || !bm_has(f->ooo, a))
            continue;
        uint32_t st = bm_run_start(f->ooo, a), dup = 0;
        for (uint32_t j = 0; j < n; j++)
            dup |= blk[2 * j] == st;
        if (dup)
            continue;
        blk[2 * n] = st;
        blk[2 * n + 1] = bm_run_end(f->ooo, a);
        f->rsack[n] = st;
        n++;
    }
    f->rsack_n = (uint8_t)n;
    return n;
}

/* SACK on: ACK m gets f's blocks (a record, and 4 + 8 n bytes), if any
 * (out of line: the hot path without SACK stays as it was) */
static __attribute__((noinline)) void ack_add_sack(tp_inst *t, tp_flow *f, uint32_t trig, net_msg *m)
{
    uint32_t blk[2 * TP_SACK_BLOCKS], nb = sack_blocks(f, trig, blk);
    if (!nb)
        return;
    m->size_bytes += 4 + 8 * (uint64_t)nb;
    tp_sackrec *r = sack_alloc(t);
    r->n = nb;
    memcpy(r->blk, blk, 2 * nb * sizeof *blk);
    m->b |= (uint64_t)(uintptr_t)r;
    t->c.sack_blocks += nb;
}

/* What an ACK of sack on or of dctcp variant="ns-3" adds (out of line: the
 * default path tests out_mode only, as it did for SACK alone): SACK blocks;
 * ns-3's (e) of tp_dctcp.c's head: the ACK a CE change sends (trig TRIG_CE)
 * acknowledges rcv_nxt - 1. It is sent only while segments are held back
 * for the delayed ACK, and then the last segment to arrive was in order
 * and moved rcv_nxt by one (one that filled a hole, came out of order or
 * again was acked at once), so rcv_nxt - 1 is rcv_nxt before that segment:
 * ns-3's m_priorRcvNxt. */
static __attribute__((noinline)) void ack_extra(tp_inst *t, tp_flow *f, uint32_t trig, net_msg *m)
{
    if (t->out_mode == OUT_SACK)
        ack_add_sack(t, f, trig, m);
    else if (trig == TRIG_CE)
        m->a = f->rcv_nxt - 1;
}

static void send_ack(tp_inst *t, tp_flow *f, uint32_t trig)
{
    net_msg *m = new_msg(t, f, f->dst, f->src, t->ack_bytes, TP_ACK);
    m->a = f->rcv_nxt;
    m->b = f->ce_state;
    if (__builtin_expect(t->int_on, 0) && f->rint) { /* the INT of the latest segment, echoed */
        m->b |= (uint64_t)(uintptr_t)f->rint;
        f->rint = NULL;
    }
    if (__builtin_expect(t->out_mode >= OUT_SACK, 0))
        ack_extra(t, f, trig, m);
    m->ecn = NET_ECN_NOT_ECT; /* RFC 3168 sec. 6.1.4: pure ACKs are not ECN-capable */
    f->pending = 0;
    if (f->delack_ev) {
        sim_cancel(t->s, f->delack_ev);
        f->delack_ev = 0;
        f->live--;
    }
    t->c.acks++;
    t->root->ops->send(t->root->state, m);
}

static void rtt_sample(tp_inst *t, tp_flow *f, int64_t r)
{
    if (!f->have_rtt) {
        f->srtt = r;
        f->rttvar = r / 2;
        f->have_rtt = 1;
    } else {
        int64_t d = f->srtt > r ? f->srtt - r : r - f->srtt;
        f->rttvar = (3 * f->rttvar + d) / 4;
        f->srtt = (7 * f->srtt + r) / 8;
    }
    int64_t rto = f->srtt + 4 * f->rttvar;
    if (rto < t->p.min_rto_ps)
        rto = t->p.min_rto_ps;
    if (rto > TP_MAX_RTO_PS)
        rto = TP_MAX_RTO_PS;
    f->rto = rto;
}

/* ---- events ---- */

static void ev_rto(sim *s, void *ctx, uint64_t arg)
{
    tp_inst *t = ctx;
    tp_flow *f = (tp_flow *)(uintptr_t)arg;
    f->rto_ev = 0;
    f->live--;
    if (f->rto_armed && !f->done_snd) {
        int64_t now = sim_now(s);
        if (now < f->rto_deadline) {
            rto_schedule(t, f); /* restarted since: wait for the new deadline */
        } else {
            t->c.timeouts++;
            f->lt_sent = 0; /* RFC 5681 eq. 4 on a timeout: the whole FlightSize */
            f->ssthresh = t->ops->ssthresh(f);
            f->cwnd = f->mss;
            f->recover = f->max;
            f->in_fr = 0;
            f->dupacks = 0;
            f->timing = 0;
            f->nxt = f->una;
            f->high_rxt = f->una; /* SACK: the scoreboard is kept (head of this file) */
            f->rto = f->rto * 2 > TP_MAX_RTO_PS ? TP_MAX_RTO_PS : f->rto * 2;
            if (t->ops->on_timeout)
                t->ops->on_timeout(f);
            f->rto_armed = 0;
            if (t->probe)
                t->probe(t->probe_ctx, f, TP_EV_TIMEOUT);
            output(t, f);
        }
    }
    flow_maybe_free(t, f);
}

static void ev_delack(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    tp_inst *t = ctx;
    tp_flow *f = (tp_flow *)(uintptr_t)arg;
    f->delack_ev = 0;
    f->live--;
    if (f->pending)
        send_ack(t, f, UINT32_MAX);
    flow_maybe_free(t, f);
}

/* ---- the receiver ---- */

/* f's message is complete: handed to the workload (at the receiver's last
 * byte, or with completion="close" at the sender's last ACK) */
static void msg_complete(tp_inst *t, tp_flow *f)
{
    net_msg *app = f->msg;
    f->msg = NULL; /* the workload may release or reuse it (and net_app_delivered renumbers its
                    * src and dst for a client): what follows uses the flow's own copies */
    app->t_head_ps = f->t_head_ps;
    t->c.delivered_bytes += app->size_bytes;
    t->root->t_last_ps = sim_now(t->s);
    net_app_delivered(t->root, app);
}

/* a stream's segment seq arrived (head time h): its message's head time */
static __attribute__((noinline)) void st_head(tp_stream *st, uint32_t seq, int64_t h)
{
    if (h < 0)
        return;
    for (uint32_t i = st->rpos; i < st->n && seq >= st->q[i].start; i++) /* (a repeat of a delivered one: none) */
        if (seq < st->q[i].end) {
            if (st->q[i].t_head_ps < 0 || h < st->q[i].t_head_ps)
                st->q[i].t_head_ps = h;
            return;
        }
}

/* a stream's messages now held in full by its receiver are delivered, in order */
static __attribute__((noinline)) void st_deliver(tp_inst *t, tp_flow *f)
{
    tp_stream *st = f->st;
    while (st->rpos < st->n && st->q[st->rpos].end <= f->rcv_nxt) {
        tp_smsg *e = &st->q[st->rpos++];
        net_msg *app = e->m;
        e->m = NULL;
        app->t_head_ps = e->t_head_ps;
        t->c.delivered_bytes += app->size_bytes;
        t->root->t_last_ps = sim_now(t->s);
        net_app_delivered(t->root, app);
    }
}

static inline int ooo_has(const tp_flow *f, uint32_t s) { return bm_has(f->ooo, s); }
static inline void ooo_set(tp_flow *f, uint32_t s)
{
    f->ooo[(s % TP_RWND) / 64] |= UINT64_C(1) << (s % 64);
    f->ooo_n++;
}
static inline void ooo_clear(tp_flow *f, uint32_t s)
{
    f->ooo[(s % TP_RWND) / 64] &= ~(UINT64_C(1) << (s % 64));
    f->ooo_n--;
}

static void data_arrived(tp_inst *t, tp_flow *f, const net_msg *m)
{
    uint32_t seq = m->a;
    if (__builtin_expect(t->int_on, 0)) { /* the ACK this segment triggers echoes its INT */
        if (f->rint)
            int_release(t, f->rint);
        f->rint = msg_int(m);
        ((net_msg *)m)->b &= 1;
    }
    if (f->st) {
        st_head(f->st, seq, m->t_head_ps);
    } else if (m->t_head_ps >= 0 && (f->t_head_ps < 0 || m->t_head_ps < f->t_head_ps)) {
        f->t_head_ps = m->t_head_ps;
    }
    if (t->ops->rate_based && m->ecn == NET_ECN_CE &&
        (f->last_cnp_ps < 0 || sim_now(t->s) - f->last_cnp_ps >= t->p.cnp_interval_ps)) {
        /* DCQCN's notification point (Zhu et al. sec. 3.2): one CNP per flow per interval */
        f->last_cnp_ps = sim_now(t->s);
        net_msg *c = new_msg(t, f, f->dst, f->src, t->p.header_bytes, TP_CNP);
        t->cnps++;
        t->root->ops->send(t->root->state, c);
    }
    if (t->ops->ect && !t->ops->rate_based) { /* RFC 8257 sec. 3.2 */
        uint8_t ce = m->ecn == NET_ECN_CE;
        if (ce != f->ce_state) {
            if (f->pending)
                send_ack(t, f, TRIG_CE);
            f->ce_state = ce;
        }
    }
    if (seq < f->rcv_nxt || ooo_has(f, seq)) {
        t->c.duplicates++;
        send_ack(t, f, UINT32_MAX);
        return;
    }
    if (seq > f->rcv_nxt) {
        TN_ASSERT(seq - f->rcv_nxt < TP_RWND, "segment %u beyond the receive window at %u", seq, f->rcv_nxt);
        ooo_set(f, seq);
        send_ack(t, f, seq);
        return;
    }
    f->rcv_nxt++;
    int filled = 0;
    while (f->rcv_nxt < f->nseg && ooo_has(f, f->rcv_nxt)) {
        ooo_clear(f, f->rcv_nxt);
        f->rcv_nxt++;
        filled = 1;
    }
    f->pending++;
    if (f->st) {
        st_deliver(t, f);
    } else if (f->rcv_nxt == f->nseg && !f->done_rcv) {
        f->done_rcv = 1;
        if (!t->p.completion)
            msg_complete(t, f);
    }
    /* the last segment carries the FIN of a real connection: acked at once;
     * so is one that fills all or part of a gap: out-of-order segments are
     * still held (RFC 5681 sec. 4.2; ns-3 acks at once while its buffer has
     * a gap). Held back, the ACK of each retransmission of NewReno's
     * recovery would wait delayed-ack-timeout: one hole per 200 ms. */
    if (filled || f->ooo_n > 0 || f->pending >= t->p.delayed_ack || (f->rcv_nxt == f->nseg && !f->st) ||
        f->rcv_nxt <= t->p.quick_ack) {
        send_ack(t, f, UINT32_MAX);
    } else if (!f->delack_ev) {
        f->delack_ev = sim_schedule_at(t->s, sim_now(t->s) + t->p.delack_timeout_ps, ev_delack, t,
                                       (uint64_t)(uintptr_t)f);
        f->live++;
    }
}

/* ---- the sender ---- */

/* RFC 3042 without SACK: one new segment on a duplicate ACK, if there is
 * one, the receive window allows it and FlightSize stays within cwnd + 2
 * mss (cwnd unchanged). */
static __attribute__((noinline)) void limited_transmit(tp_inst *t, tp_flow *f)
{
    if (f->nxt != f->max || f->max >= f->nseg || f->max - f->una >= rwnd_segs(t, f) ||
        tp_seg_bytes(f, f->una, f->max + 1) > f->cwnd + 2 * f->mss)
        return;
    send_seg(t, f, f->max);
    f->nxt = f->max;
    f->lt_sent++;
    t->c.limited_transmits++;
}

/* The sender's end of an ACK, its last byte acked (a persistent
 * connection: every byte handed to it so far; it stays open, idle). */
static void sender_done(tp_inst *t, tp_flow *f)
{
    if (f->st) {
        rto_stop(t, f);
        return;
    }
    f->done_snd = 1;
    rto_stop(t, f);
    if (t->p.completion && f->msg) /* completion="close": the sender knows its last byte arrived */
        msg_complete(t, f);
    if (f->pace_ev) {
        sim_cancel(t->s, f->pace_ev);
        f->pace_ev = 0;
        f->live--;
    }
    if (t->ops->on_done)
        t->ops->on_done(f);
}

/* An ACK with SACK on (RFC 6675 sec. 5; the rules in this file's head). */
static __attribute__((noinline)) void ack_arrived_sack(tp_inst *t, tp_flow *f, const net_msg *m)
{
    uint32_t ack = m->a;
    int ece = (int)(m->b & 1), was_fr = f->in_fr;
    const tp_sackrec *r = ack_sack(m);
    uint64_t acked = 0;
    if (ack > f->una) {
        acked = tp_seg_bytes(f, f->una, ack);
        if (f->timing && ack > f->t_seq) {
            rtt_sample(t, f, sim_now(t->s) - f->t_sent);
            f->timing = 0;
        }
        sb_advance(f, ack);
        if (f->nxt < f->una)
            f->nxt = f->una;
        f->dupacks = 0;
        f->lt_sent = 0;
    }
    uint32_t newly = 0;
    for (uint32_t i = 0; r && i < r->n; i++)
        newly += tp_sb_mark(f, r->blk[2 * i], r->blk[2 * i + 1]);
    if (f->in_fr && f->una >= f->recover) { /* step A: RecoveryPoint acked */
        f->in_fr = 0;
        f->dupacks = 0;
    }
    if (acked) {
        if (!was_fr)
            t->ops->on_ack(f, acked, ece);
        if (t->probe)
            t->probe(t->probe_ctx, f, TP_EV_ACK);
        if (f->una >= f->nseg) {
            sender_done(t, f);
            return;
        }
        rto_restart(t, f);
    }
    if (!f->in_fr && newly && f->una < f->max) {
        f->dupacks++;
        if (f->una >= f->recover && (f->dupacks >= 3 || tp_sb_is_lost(f, f->una))) { /* step 4 */
            t->c.fast_retransmits++;
            f->ssthresh = t->ops->ssthresh(f);
            f->lt_sent = 0;
            f->cwnd = f->ssthresh;
            f->recover = f->max;
            f->in_fr = 1;
            send_seg(t, f, f->una);
            f->high_rxt = f->una + 1;
            if (t->probe)
                t->probe(t->probe_ctx, f, TP_EV_FAST_RETRANSMIT);
        } else if (t->p.limited_transmit && f->nxt == f->max) { /* step 3 */
            uint32_t rw = rwnd_segs(t, f);
            uint64_t pipe = tp_sb_pipe(f);
            while (pipe + f->mss <= f->cwnd && f->max < f->nseg && f->max - f->una < rw) {
                pipe += seg_payload(f, f->max);
                send_seg(t, f, f->max);
                f->nxt = f->max;
                f->lt_sent++;
                t->c.limited_transmits++;
            }
        }
    }
    if (f->in_fr || acked)
        output(t, f);
}

/* An ACK of a telemetry transport: the sender reads its INT record first
 * (ops->on_int keeps what it needs), then the record goes back. */
static __attribute__((noinline)) void ack_int(tp_inst *t, tp_flow *f, net_msg *m)
{
    const net_int *in = msg_int(m);
    if (in && !f->done_snd && t->ops->on_int)
        t->ops->on_int(f, in, m->a);
    int_drop_msg(t, m);
}

/* An ACK without SACK, at a sender not done (the rules in this file's
 * head); ns3 (a constant: two copies) adds dctcp variant="ns-3"'s (b),
 * tp_dctcp.c's head. */
static inline __attribute__((always_inline)) void ack_window(tp_inst *t, tp_flow *f, const net_msg *m, const int ns3)
{
    uint32_t ack = m->a;
    int ece = (int)(m->b & 1);
    if (ack > f->una) {
        uint64_t acked = tp_seg_bytes(f, f->una, ack);
        if (f->timing && ack > f->t_seq) {
            rtt_sample(t, f, sim_now(t->s) - f->t_sent);
            f->timing = 0;
        }
        f->una = ack;
        f->lt_sent = 0;
        if (f->nxt < f->una)
            f->nxt = f->una;
        if (f->in_fr) {
            int own = t->ops->windowed; /* the window is the ops' own (hpcc's W): no arithmetic here */
            if (ack >= f->recover) { /* full ACK */
                f->in_fr = 0;
                f->dupacks = 0;
                if (!own)
                    f->cwnd = f->ssthresh;
            } else { /* partial ACK */
                send_seg(t, f, f->una);
                if (!own) {
                    f->cwnd = f->cwnd > acked ? f->cwnd - acked : 0;
                    if (acked >= f->mss)
                        f->cwnd += f->mss;
                    if (f->cwnd < f->mss)
                        f->cwnd = f->mss;
                }
            }
        } else {
            f->dupacks = 0;
            t->ops->on_ack(f, acked, ece);
        }
        if (t->probe)
            t->probe(t->probe_ctx, f, TP_EV_ACK);
        if (f->una >= f->nseg) {
            sender_done(t, f);
            return;
        }
        if (!f->in_fr) {
            rto_restart(t, f);
        } else if (!f->partial_seen) { /* RFC 6582's impatient variant: the first partial ACK only */
            f->partial_seen = 1;
            rto_restart(t, f);
        }
        output(t, f);
        return;
    }
    if (ack == f->una && f->una < f->max) {
        f->dupacks++;
        if (ns3 && f->in_cwr)
            return; /* (b): counted, nothing else (ns-3's DupAck in CA_CWR) */
        if (!f->in_fr && f->dupacks == 3 && f->una >= f->recover) {
            t->c.fast_retransmits++;
            f->ssthresh = t->ops->ssthresh(f);
            f->recover = f->max;
            f->in_fr = 1;
            f->partial_seen = 0;
            send_seg(t, f, f->una);
            if (!t->ops->windowed)
                f->cwnd = f->ssthresh + 3 * f->mss;
            if (t->probe)
                t->probe(t->probe_ctx, f, TP_EV_FAST_RETRANSMIT);
        } else if (f->in_fr) {
            if (!t->ops->windowed)
                f->cwnd += f->mss;
        } else if (t->p.limited_transmit && f->dupacks < 3) {
            limited_transmit(t, f);
        }
        /* in recovery cwnd counts the inflation: new data may go */
        if (f->in_fr)
            output(t, f);
    }
}

/* An ACK with sack on, or of dctcp variant="ns-3" (out of line: the default
 * path tests out_mode once, as it did for SACK alone) */
static __attribute__((noinline)) void ack_arrived_other(tp_inst *t, tp_flow *f, const net_msg *m)
{
    if (t->out_mode == OUT_NS3) {
        if (!f->done_snd)
            ack_window(t, f, m, 1);
        return;
    }
    if (!f->done_snd)
        ack_arrived_sack(t, f, m);
    sack_release(t, m);
}

static void ack_arrived(tp_inst *t, tp_flow *f, const net_msg *m)
{
    if (__builtin_expect(t->out_mode >= OUT_SACK, 0)) {
        ack_arrived_other(t, f, m);
        return;
    }
    if (__builtin_expect(t->int_on, 0))
        ack_int(t, f, (net_msg *)m);
    if (f->done_snd)
        return;
    ack_window(t, f, m, 0);
}

/* ---- the handshake (transport.handshake) ---- */

static void ev_syn(sim *s, void *ctx, uint64_t arg);

/* A SYN (header bytes, in the data's class) and its retransmission timer:
 * initial-rto x 2^(SYNs sent before) (ns-3 TcpSocketBase::SendEmptyPacket:
 * ConnTimeout x 2^(SynRetries - synCount); basic-sim sets ConnTimeout =
 * InitialEstimation = 2 x the worst-case RTT, which initial-rto carries). */
static void send_syn(tp_inst *t, tp_flow *f)
{
    int64_t now = sim_now(t->s);
    uint32_t k = f->syn_tries < 32 ? f->syn_tries : 32;
    int64_t to = k < 62 && t->p.init_rto_ps <= (TP_MAX_RTO_PS >> k) ? t->p.init_rto_ps << k : TP_MAX_RTO_PS;
    if (to > TP_MAX_RTO_PS)
        to = TP_MAX_RTO_PS;
    if (f->syn_tries == 0)
        f->syn_sent_ps = now;
    f->syn_tries++;
    t->c.syns++;
    f->syn_ev = sim_schedule_at(t->s, now + to, ev_syn, t, (uint64_t)(uintptr_t)f);
    f->live++;
    if (f->syn_tries <= t->syn_loss) { /* tp_set_syn_loss */
        t->c.dropped++;
        return;
    }
    net_msg *m = new_msg(t, f, f->src, f->dst, t->p.header_bytes, TP_SYN);
    m->a = m->b = 0; /* no sequence, no SACK or INT record */
    t->root->ops->send(t->root->state, m);
}

static void ev_syn(sim *s, void *ctx, uint64_t arg)
{
    (void)s;
    tp_inst *t = ctx;
    tp_flow *f = (tp_flow *)(uintptr_t)arg;
    f->syn_ev = 0;
    f->live--;
    if (f->syn_wait) {
        t->c.timeouts++;
        t->c.syn_timeouts++;
        send_syn(t, f);
    }
    flow_maybe_free(t, f);
}

/* A SYN at the receiver: a SYN-ACK in the ACK class (header bytes) */
static void syn_arrived(tp_inst *t, tp_flow *f)
{
    net_msg *m = new_msg(t, f, f->dst, f->src, t->p.header_bytes, TP_SYNACK);
    m->a = m->b = 0;
    t->root->ops->send(t->root->state, m);
}

/* The SYN-ACK at the sender: the connection is open. The SYN's round trip is
 * the first RTT sample unless the SYN was sent again (Karn: ns-3 takes it
 * from the SYN's entry in its RTT history, marked retransmitted then); data
 * goes at once (ns-3 ProcessSynSent: an ACK, then SendPendingData). */
static void synack_arrived(tp_inst *t, tp_flow *f)
{
    if (!f->syn_wait)
        return; /* a duplicate (a SYN sent again was answered too) */
    f->syn_wait = 0;
    if (f->syn_ev) {
        sim_cancel(t->s, f->syn_ev);
        f->syn_ev = 0;
        f->live--;
    }
    if (f->syn_tries == 1)
        rtt_sample(t, f, sim_now(t->s) - f->syn_sent_ps);
    output(t, f);
}

/* ---- life cycle and the fabric's calls ---- */

tp_inst *tp_create(net *root, const tp_params *p)
{
    if (p->type <= 0 || (size_t)p->type >= tp_count())
        return NULL;
    tp_inst *t = tn_xcalloc(1, sizeof *t);
    t->root = root;
    t->s = net_sim(root);
    t->ops = tp_registry[p->type];
    t->p = *p;
    t->out_mode = t->ops->rate_based ? OUT_PACED : p->sack ? OUT_SACK : OUT_WINDOW;
    /* variant="ns-3" is dctcp's (tp_check refuses it elsewhere; a workload naming another transport under a
     * <transport type="dctcp" variant="ns-3"> gets that transport as it is) */
    if (p->variant == TP_VARIANT_NS3 && t->ops == &tp_dctcp_ops) {
        TN_ASSERT(!p->sack, "dctcp variant ns-3 with sack");
        t->ops = &tp_dctcp_ns3_ops;
        t->out_mode = OUT_NS3;
    }
    t->int_on = t->ops->telemetry;
    /* an ACK's net_msg.b carries one record: SACK blocks or INT (tp_check refuses sack for telemetry) */
    TN_ASSERT(!(t->int_on && t->out_mode == OUT_SACK), "transport %s: INT and SACK on one ACK", t->ops->name);
    t->seg_extra = p->header_bytes + (t->int_on ? p->int_bytes : 0);
    t->ack_bytes = t->seg_extra;
    if (t->int_on)
        root->int_on = 1;
    net_msg_pool_init(&t->pool);
    return t;
}

void tp_destroy(tp_inst *t)
{
    if (!t)
        return;
    net_msg_pool_free(&t->pool);
    for (size_t i = 0; i < t->nchunks; i++)
        free(t->chunks[i]);
    free(t->chunks);
    for (size_t i = 0; i < t->nschunks; i++)
        free(t->schunks[i]);
    free(t->schunks);
    for (size_t i = 0; i < t->cstreams; i++)
        if (t->streams[i]) {
            free(t->streams[i]->q);
            free(t->streams[i]);
        }
    free(t->streams);
    for (size_t i = 0; i < t->nichunks; i++)
        free(t->ichunks[i]);
    free(t->ichunks);
    for (size_t i = 0; i < t->nccchunks; i++)
        free(t->ccchunks[i]);
    free(t->ccchunks);
    free(t);
}

/* A connection's record, its sender state fresh (tp_send, st_send). */
static tp_flow *flow_open(tp_inst *t, const net_msg *m)
{
    tp_flow *f = flow_alloc(t);
    f->t = t;
    f->src = m->src;
    f->dst = m->dst;
    f->cls = m->cls;
    f->prio = m->prio;
    f->msg_id = m->id;
    f->mss = t->p.mss_bytes;
    f->cwnd = (uint64_t)t->p.init_cwnd * f->mss;
    f->ssthresh = UINT64_MAX / 4;
    f->rto = t->p.init_rto_ps;
    f->t_head_ps = -1;
    f->last_cnp_ps = -1;
    f->rate_bps = f->target_bps = net_core(t->root)->bandwidth_bps;
    f->next_avail_ps = sim_now(t->s);
    if (t->p.sack)
        memset(f->sacked, 0, sizeof f->sacked);
    if (t->ops->state_bytes)
        f->cc = cc_alloc(t);
    return f;
}

/* The persistent connection of m's (src, dst, class, priority): found or
 * made (its record never returns to the pool before tp_destroy). */
static tp_stream *st_find(tp_inst *t, const net_msg *m)
{
    if (2 * (t->nstreams + 1) > t->cstreams) { /* grow (and rehash) the open-addressing table */
        size_t c = t->cstreams ? 2 * t->cstreams : 64;
        tp_stream **nt = tn_xcalloc(c, sizeof *nt);
        for (size_t i = 0; i < t->cstreams; i++) {
            tp_stream *x = t->streams[i];
            if (!x)
                continue;
            uint64_t k = ((uint64_t)x->src << 32 | x->dst) * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)x->cls << 8 ^ x->prio;
            size_t j = (size_t)(k ^ (k >> 29)) & (c - 1);
            while (nt[j])
                j = (j + 1) & (c - 1);
            nt[j] = x;
        }
        free(t->streams);
        t->streams = nt;
        t->cstreams = c;
    }
    uint64_t k = ((uint64_t)m->src << 32 | m->dst) * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)m->cls << 8 ^ m->prio;
    size_t j = (size_t)(k ^ (k >> 29)) & (t->cstreams - 1);
    for (; t->streams[j]; j = (j + 1) & (t->cstreams - 1)) {
        tp_stream *x = t->streams[j];
        if (x->src == m->src && x->dst == m->dst && x->cls == m->cls && x->prio == m->prio)
            return x;
    }
    tp_stream *x = tn_xcalloc(1, sizeof *x);
    x->src = m->src;
    x->dst = m->dst;
    x->cls = m->cls;
    x->prio = m->prio;
    t->streams[j] = x;
    t->nstreams++;
    return x;
}

/* m on its persistent connection: appended to the byte stream (segmented
 * on its own: its last segment short), sent when the window allows; the
 * connection opens (handshake) with its first message. */
static __attribute__((noinline)) void st_send(tp_inst *t, net_msg *m)
{
    tp_stream *st = st_find(t, m);
    tp_flow *f = st->f;
    int fresh = f == NULL;
    if (fresh) {
        f = st->f = flow_open(t, m);
        f->st = st;
    }
    /* messages acked in full (delivered before: the receiver acks only what it holds) leave the queue */
    while (st->head < st->rpos && st->q[st->head].end <= f->una)
        st->head++;
    if (st->head) {
        memmove(st->q, st->q + st->head, (st->n - st->head) * sizeof *st->q);
        st->n -= st->head;
        st->rpos -= st->head;
        st->head = 0;
    }
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 8;
        st->q = tn_xrealloc(st->q, st->cap * sizeof *st->q);
    }
    uint64_t b = m->size_bytes;
    uint64_t n = b ? (b - 1) / f->mss + 1 : 1;
    TN_ASSERT(n < UINT32_MAX - f->nseg, "a connection of more than 2^32 segments (message of %llu B)",
              (unsigned long long)b);
    f->nseg += (uint32_t)n;
    st->q[st->n++] = (tp_smsg){.m = m, .start = f->nseg - (uint32_t)n, .end = f->nseg, .last = (uint32_t)(b - (n - 1) * f->mss), .t_head_ps = -1};
    if (fresh) {
        t->ops->init(f);
        if (t->p.handshake) {
            f->syn_wait = 1;
            send_syn(t, f);
            return;
        }
    }
    if (!f->syn_wait)
        output(t, f);
}

void tp_send(tp_inst *t, net_msg *m)
{
    if (t->p.persistent) {
        st_send(t, m);
        return;
    }
    tp_flow *f = flow_open(t, m);
    f->msg = m;
    uint64_t b = m->size_bytes;
    uint64_t n = b ? (b - 1) / f->mss + 1 : 1;
    TN_ASSERT(n < UINT32_MAX, "a message of %llu B is more than 2^32 segments", (unsigned long long)b);
    f->nseg = (uint32_t)n;
    f->last_payload = (uint32_t)(b - (n - 1) * f->mss);
    t->ops->init(f);
    if (t->p.handshake) {
        f->syn_wait = 1;
        send_syn(t, f);
        return;
    }
    output(t, f);
}

void tp_arrived(tp_inst *t, net_msg *seg)
{
    tp_flow *f = seg->p;
    if (seg->kind == TP_DATA)
        data_arrived(t, f, seg);
    else if (__builtin_expect(seg->kind == TP_ACK, 1))
        ack_arrived(t, f, seg);
    else if (seg->kind == TP_CNP)
        tp_flow_cnp(f);
    else if (seg->kind == TP_SYN) /* every SYN is answered, a repeated one too (ns-3 ProcessSynRcvd) */
        syn_arrived(t, f);
    else
        synack_arrived(t, f);
    f->live--;
    net_msg_release(&t->pool, seg);
    flow_maybe_free(t, f);
}

void tp_dropped(tp_inst *t, net_msg *seg)
{
    tp_flow *f = seg->p;
    t->c.dropped++;
    f->live--;
    if (t->p.sack)
        sack_release(t, seg);
    if (__builtin_expect(t->int_on, 0))
        int_drop_msg(t, seg);
    net_msg_release(&t->pool, seg);
    flow_maybe_free(t, f);
}

void tp_set_probe(tp_inst *t, tp_probe_fn probe, void *ctx)
{
    t->probe = probe;
    t->probe_ctx = ctx;
}

void tp_set_syn_loss(tp_inst *t, uint32_t n) { t->syn_loss = n; }

/* tp_set_loss (mark 0) and tp_set_mark (TP_MARK_BIT): this kind's entries
 * of t->loss become seqs, the other kind's stay */
static void set_list(tp_inst *t, const uint32_t *seqs, size_t n, uint32_t mark)
{
    size_t k = 0;
    for (size_t i = 0; i < t->nloss; i++)
        if ((t->loss[i] & TP_MARK_BIT) != mark)
            t->loss[k++] = t->loss[i];
    TN_ASSERT(k + n <= sizeof t->loss / sizeof t->loss[0], "%zu losses and marks asked for", k + n);
    for (size_t i = 0; i < n; i++) {
        TN_ASSERT(!(seqs[i] & TP_MARK_BIT), "segment %u out of range", seqs[i]);
        t->loss[k++] = seqs[i] | mark;
    }
    t->nloss = k;
}

void tp_set_loss(tp_inst *t, const uint32_t *seqs, size_t n) { set_list(t, seqs, n, 0); }
void tp_set_mark(tp_inst *t, const uint32_t *seqs, size_t n) { set_list(t, seqs, n, TP_MARK_BIT); }

sim *tp_flow_sim(const tp_flow *f) { return f->t->s; }
void tp_flow_hold(tp_flow *f, int d)
{
    if (d > 0) {
        f->live += (uint32_t)d;
        return;
    }
    f->live -= (uint32_t)-d;
    flow_maybe_free(f->t, f);
}
void tp_flow_output(tp_flow *f)
{
    if (!f->done_snd)
        output(f->t, f);
}
double tp_flow_line_bps(const tp_flow *f) { return net_core(f->t->root)->bandwidth_bps; }
void tp_flow_cnp(tp_flow *f)
{
    if (!f->done_snd && f->t->ops->on_cnp)
        f->t->ops->on_cnp(f);
}
uint64_t tp_cnps(const tp_inst *t) { return t->cnps; }

const tp_params *tp_flow_params(const tp_flow *f) { return &f->t->p; }

int64_t tp_flow_base_rtt_ps(const tp_flow *f)
{
    const tp_inst *t = f->t;
    return net_zero_load_ps(t->root, f->src, f->dst, t->p.mss_bytes + t->seg_extra) +
           net_zero_load_ps(t->root, f->dst, f->src, t->ack_bytes);
}

void tp_get_counters(const tp_inst *t, tp_counters *out) { *out = t->c; }
