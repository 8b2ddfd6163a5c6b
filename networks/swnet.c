/* The switched-network core: packets over a topology (networks/topo.h),
 * virtual cut-through, output FIFOs per virtual channel and service class
 * (or pFabric's srpt queues), credit flow control, the host NIC at the
 * sources. Contract in swnet.h.
 *
 * Model (times in integer ps; B on every link, `link` its propagation, `sw`
 * one switch traversal: routing, VC and switch allocation, crossbar):
 *   Packets. A message of b bytes is cut at its source into K = max(1,
 *     ceil(b / mtu)) packets, all of mtu bytes but the last (a 0-byte message
 *     is one 0-byte packet); ser(x) = x 8 / B rounded up (net_rate_ps). No
 *     header bytes are added: the zero-load time stays the issue's b/B + (h+1)
 *     link + h switch for one packet.
 *   Sources: the host NIC (host_nic.c, network.host-scheduling). A message
 *     is active at its source's NIC from its hand-over; whenever the uplink
 *     is free the NIC names the packet it sends next: within the lowest
 *     class with an active message (classes on, below; else one class),
 *     fifo: the oldest message, all its packets first; round-robin: a
 *     packet of each active message in turn (DRR with a one-packet
 *     quantum, Shreedhar and Varghese 1995); priority: classes on,
 *     round-robin within; srpt: the message with the fewest bytes left to
 *     send (pFabric's end host, Alizadeh et al., SIGCOMM 2013, sec. 4.1),
 *     preemptive at packet boundaries. The packet is cut (so it exists only
 *     in the network) when the first switch's buffer has room for all of it
 *     (credits, below); until then the uplink waits for that credit: it
 *     does not send another class's or message's packet that would fit
 *     (the policy alone decides the order, credit only when; the NIC does
 *     not cut smaller packets to fit either). With the default fifo and one
 *     class this is exactly the source FIFO of before, packet for packet.
 *   Hops (virtual cut-through, as BookSim2's and SST-merlin's routers with a
 *     packet's buffer space reserved whole, INSEE's VCT): a packet whose
 *     first bit leaves on a link at s reaches the next switch at s + link and
 *     is routed and crossed in sw: it joins an output FIFO there at s + link
 *     + sw (one event), whether or not its tail has arrived (input and output
 *     run at B, so the tail never catches up). An output port sends one
 *     packet at a time, busy for ser; the last bit reaches a host ser + link
 *     after the port started it.
 *   Links of their own rate or latency (topo_ops.link_attr: the graph's
 *     edge attributes; network.degraded-links multiplies the rate of the
 *     links it names, degraded_apply, and never changes a route): ser and
 *     link are the link's own; a packet that came
 *     by a slower link (ser_in > ser_out) joins its output's FIFO ser_in -
 *     ser_out after its head is through the switch (ev_join), the earliest
 *     start at which the output does not overtake its tail (the tail is
 *     through at s + ser_in + link_in + sw; the output's last bit leaves at
 *     start + ser_out), so a packet streams at the slowest rate of its way
 *     and the output is not held meanwhile; credits return over the
 *     reverse link's latency. Hop events then leave the lane when
 *     latencies differ (the lane needs one delay). With no such link
 *     nothing changes (one flag tested per hop).
 *   Output FIFOs (MODEL.md section 6 generalised): one per (service class,
 *     virtual channel) at every output. When the port is free it takes the
 *     first class that has a head allowed to leave (below) and, in it, the
 *     head that joined first across the VCs (the single switch's FIFO when
 *     there is one VC; BookSim2 and merlin arbitrate round robin or by age,
 *     we take age); never preempting the packet on the wire. Service classes
 *     as the electrical switch's: one class, or its NET_PRIO_CLASSES classes
 *     (net_msg.prio, lowest first) at sources and output ports alike when
 *     network.priority is control-first (or strict) or host-scheduling is
 *     priority.
 *   srpt ports (host-scheduling = srpt with flow-control = infinite: the
 *     electrical switch's ports under srpt, pFabric's switches, Alizadeh et
 *     al. sec. 4.2; with credits, below, the ports stay FIFOs): each packet
 *     carries its message's bytes left when it was cut, itself included (its
 *     stamp). Each (class, VC) queue of an output keeps the messages with
 *     packets waiting there in a binary heap keyed by the stamp of their
 *     earliest waiting packet, ties to the message that queued there first;
 *     the later packets of a message wait behind its earliest one, so a
 *     message's packets never overtake each other (a packet joins behind
 *     the packet of its message cut just before it when that one waits in
 *     the same queue; only adaptive paths can break that run, and then the
 *     later packet heads an entry of its own). A free port takes, in the
 *     first class with a packet allowed to leave, the root with the smallest
 *     stamp across the VCs (as the FIFOs' oldest head, but by stamp). When a
 *     root leaves, the next packet of its message takes its place: its stamp
 *     is smaller, so it stays the root, O(1); a new message costs O(log n)
 *     in the n messages waiting at that queue. As at the switch, a message
 *     is ranked by its earliest waiting packet, not (as pFabric) its latest:
 *     the two differ by the message's other bytes waiting there, which the
 *     credits bound (a queue holds only packets in the buffers feeding the
 *     port, vc-buffer per input and VC), as pFabric's buffers of a few
 *     packets do; and it keeps a message in order. Not modelled: pFabric's drops, retransmissions and rate control
 *     (the fabric is lossless); only the root of a queue is checked for
 *     credit, as a FIFO's head.
 *     Why not with credits (the default): pFabric's ports rely on tiny
 *     buffers that drop the lowest-priority packet (sec. 4.2-4.3). In a
 *     lossless fabric a big message's packet that srpt keeps starving at an
 *     output still holds its bytes in the buffer it arrived in, so the link
 *     feeding that buffer stops for every message behind it on that VC,
 *     the small ones srpt meant to serve first included: head-of-line
 *     blocking spreading back through the credits. Measured (dc-flows, web
 *     search sizes, 16 hosts at 10 Gb/s, 1500-B packets, 16.384-kB buffers,
 *     100 ms, 3 replicas), the small flows' mean slowdown at 60% load with
 *     srpt ports against FIFO ports (srpt at the hosts in both) and with
 *     round-robin hosts: 4-ary 2-tree 38.3 / 2.81 / 5.75, leaf-spine 4 x
 *     4, 2 spines 145 / 5.17 / 9.81, 4 x 4 torus 42.1 / 3.19 / 5.22; with
 *     unbounded buffers the other way round, srpt ports 1.07-1.11 against
 *     FIFO ports 112-486 (the single switch's srpt: 1.06). So with credits
 *     srpt lives at the hosts and the ports serve FIFO (per class); with
 *     flow-control = infinite, the switch's conditions (unbounded buffers,
 *     no drops), the ports are pFabric's as the switch's are.
 *   Credits (network.flow-control = credit, lossless; BookSim2 and merlin
 *     count credits per flit and VC): the buffer a link enters holds
 *     vc-buffer bytes per VC; the sender of a link keeps the free bytes of
 *     each VC and a packet leaves only if its whole size fits (VCT, a
 *     0-byte packet counts as 1 byte), consuming them. The bytes are given
 *     back when the packet's head leaves that buffer (its next hop starts)
 *     and reach the sender a link later: the tail leaves at the rate the
 *     next packet fills the buffer (both at B), which is when per-flit
 *     credits would have let that packet in, at packet granularity (ours:
 *     merlin and BookSim2 return each flit's credit as it leaves). A sender
 *     with waiting packets and no credit for any waits for the credit that
 *     lets one go. network.flow-control = infinite: unbounded buffers, no
 *     credits (a bound and a test aid). Buffers toward hosts: hosts take
 *     every packet at once (no credit).
 *   Congestion isolation (network.congestion-isolation = destination; off
 *     by default; credits, one deadlock class, not srpt hosts): IEEE
 *     802.1Qcz's congestion isolation, as RECN (Garcia et al., "RECN:
 *     Regional explicit congestion notification", 2005) and FBICM
 *     (Escudero-Sahuquillo et al., 2008) set packets of a congestion tree
 *     aside, for congestion whose root is a destination's port. Without it
 *     a packet that a destination's port starves (strict classes, incast)
 *     keeps its buffer back toward its source and every packet of its
 *     (class, VC) behind it waits: congestion spreading, victim flows (Zhu
 *     et al., SIGCOMM 2015, sec. 2). Rules:
 *     - detection at the congestion point, the port toward host d: a packet
 *       of class c joining it with ci-threshold bytes (vc-buffer when 0) of
 *       class c already waiting there (not on the wire) makes (d, c)
 *       isolated. It is free again when that queue is empty (its last packet
 *       starts) and no packet toward (d, c) is left in or bound for an
 *       isolation buffer (ci_n), so it does not flap while isolated packets
 *       are still on their way (802.1Qcz and RECN release a set-aside queue
 *       once it has drained);
 *     - notice: the other switches and the NICs learn a change ci-delay
 *       after the port (802.1Qcz's message goes upstream hop by hop; the
 *       default is its way back over the longest route of L links, (L - 1)
 *       link + (L - 2) switch, the farthest source's, for every node); a
 *       second change within that time is seen with the first;
 *     - isolation: every port has one more VC per class after the
 *       topology's (ci_vc), with vc-buffer bytes and credits of its own, as
 *       802.1Qcz's congested queue is a traffic class of its own; a packet
 *       toward an isolated (d, c) takes it for the next buffer, decided as
 *       it joins an output (or is cut at its NIC), and one toward a free
 *       destination VC 0 again. Packets already queued stay where they are
 *       (802.1Qcz moves none). Ports serve a class's heads by age across
 *       its VCs as before;
 *     - hosts: the NIC sends, in class order and within a class in its
 *       policy's order (fifo, round-robin, priority), the first message
 *       whose next packet fits the pool its destination's state names (an
 *       RDMA NIC's send queue per QP; 802.1Qcz's end stations isolate too):
 *       host_nic's nic_find_class and nic_take_flow; without isolation the
 *       NIC waits for its pick's credit.
 *     Deadlock freedom: a dependency between (link, VC) pairs needs one
 *     between the links, so a cycle of them would be a cycle of the
 *     routing's own one-class channel dependency graph, acyclic (up*-down*
 *     on trees, leaf-spines and graphs): the extra VC adds none. Topologies
 *     whose routing needs several deadlock classes (tori, dragonflies) are
 *     refused (swnet_ci_classes, and at init). Not modelled:
 *     congestion roots inside the fabric (only destinations' ports detect),
 *     flows told apart (every flow of the class toward d is isolated),
 *     802.1Qcz's ordering care (a packet isolated later may pass one of its
 *     message still in VC 0: a message is delivered with its last packet,
 *     so FCTs do not depend on it, but a transport may see segments out of
 *     order) and the notices' bandwidth. Measured on issue 24's leaf-spine
 *     case (README, "Priority classes and VCs").
 *   Output buffers (flow-control infinite or pfc, output-queued routers):
 *     network.buffer, ECN and RED decided at a packet's enqueue by port.c
 *     (port_admit: per output, or per switch with buffer-policy dynamic),
 *     as on the electrical switch. PFC (IEEE 802.1Qbb; the switch-MMU
 *     accounting of the HPCC ns-3 code with static thresholds, as
 *     net_switch.c): each switch counts the bytes that entered it by each
 *     link in each pause priority and still wait at its outputs; above
 *     pfc-xoff it sends a pause frame for that priority up the link, at or
 *     below pfc-xon a resume; each takes effect at the link's sender one
 *     link latency later (the frame's own 64 B are not modelled). A paused
 *     sender (a host's NIC, or a switch output) starts no packet of that
 *     priority (the one on the wire finishes); its other priorities go on.
 *     Priorities: one per (service class, VC of the buffer the packet
 *     enters), class x vcs + VC (pfc_prio), so a pause stops one VC of a
 *     link only, as deployments give each deadlock class its own priority;
 *     with one VC (trees, one-class graphs) a priority is a class, as
 *     before. 802.1Qbb has 8 (a 3-bit priority), so classes x VCs > 8 is
 *     refused (swnet_pfc_classes). Hosts send in VC 0: a host's priorities
 *     are its classes (nic_hold).
 *     Deadlock freedom (Hu et al., "Deadlocks in datacenter networks: why
 *     do they form, and how to avoid them", HotNets 2016: a pause shared by
 *     the VCs of a link turns the routes' ring cycles into cycles of paused
 *     links that never resume; check_transport's test_pfc_torus and
 *     test_pfc_dragonfly show it with swnet_pfc_shared, a test aid, and
 *     find the cycle, swnet_pfc_wait_cycle). With a priority per (class,
 *     VC), (a, x) stays paused only while packets that entered by link a in
 *     VC x wait at outputs b whose priority (b, y) is paused, and a packet
 *     goes from VC x on a to VC y on b only where the routing has the
 *     channel dependency (a, x) -> (b, y); each (class, VC) queue of an
 *     output is a FIFO of its own and a port serves every queue not paused
 *     (oldest head first), so a paused queue blocks no other. The pause
 *     dependencies are thus the routing's channel dependency graph, acyclic
 *     with the topology's classes (Dally and Seitz 1987; the dateline and
 *     phase classes of topo_torus.c, the global-hop classes of
 *     topo_dragonfly.c, proofs in their heads). Take a paused (a, x) latest
 *     in a topological order of that graph: the queues its packets wait in
 *     are not paused for good (later in the order, or toward a host, which
 *     never pauses), so they drain, its count falls to xon and it resumes;
 *     by induction back along the order every pause is resumed. Not so for
 *     the torus's minimal adaptive routing (Duato's proof needs a packet
 *     waiting on an adaptive channel to be able to take the escape; a pause
 *     holds it in its output's adaptive FIFO): refused. UGAL (dragonfly)
 *     chooses at the source router only and then follows its path's classes.
 *   Headroom and buffer under PFC (the switch MMU's ingress accounting for
 *     lossless traffic: a (port, priority) has xoff to fill and a headroom
 *     above it for what arrives while the pause travels; the output queues
 *     of lossless traffic have no limit of their own). A packet that would
 *     wait (its output busy or its priority paused there) and take its
 *     (ingress link, priority) past pfc-xoff + pfc-headroom is dropped and
 *     counted in drops (pfc_fits; a headroom given makes the fabric lossy,
 *     NET_LOSSY_PFC: a transport must recover). The default headroom (0) is the pause's round trip,
 *     which never drops: the packet T that passed xoff started on link a
 *     at s and joined its output at s + link + sw; the pause reaches a's
 *     sender back_of(a) later, which so far started at most (link + sw +
 *     back) x B + one packet (back to back from s, the last one started
 *     just before the pause whole), and before T the count was <= xoff:
 *     headroom (link + sw + back) x B + mtu (swnet_pfc_headroom; 2 link x B
 *     + mtu before this, which misses sw x B when the switch latency is not
 *     0). A packet from a slower link joins up to ser_in(mtu) late
 *     (ev_join), and one started before T may join after it: + 2 mtu there.
 *     network.buffer (static: per port; the switch's memory is ports x
 *     buffer) must hold a port's every priority at xoff + headroom:
 *     priorities x (pfc-xoff + headroom) <= buffer, else refused at
 *     network.buffer (swnet_pfc_buffer_check; links of their own latency at
 *     init); buffer-policy dynamic is refused under pfc (its pause
 *     threshold is static). So a configured buffer is never exceeded under
 *     PFC unless the headroom given is below the round trip, and then a
 *     packet is dropped rather than stored past it.
 *   Routing (topo.h): the topology's `next` at every switch, with the
 *     message's salt (a hash of its id with a key drawn once from the
 *     fabric's stream: ECMP, random up-ports, Valiant's intermediate and
 *     tie breaks are per message). Oblivious routings have one candidate;
 *     with several the topology's `choose` picks one over this core's
 *     probe (oq_load: bytes waiting and on the wire; oq_room: room in the
 *     next buffer now, the less loaded the better). The rules:
 *     Torus minimal adaptive (Duato; INSEE pairs its adaptive channels with
 *     a bubble escape, we with the DOR escape of topo_torus.c): the packet
 *     takes the adaptive candidate (class-2 VC) with the least bytes waiting
 *     and on the wire among those whose buffer has room for it now,
 *     reserving that room at once, so a packet on an adaptive VC never waits
 *     for credit; with none, the DOR escape, which waits in its FIFO.
 *     Dragonfly UGAL-L (Kim et al. 2008, merlin's dragonfly): at the source
 *     router each packet compares (bytes waiting and on the wire) x hops
 *     of the minimal and the Valiant first hop (topo_ugal_minimal).
 *     Fat tree anca (BookSim2's fattree_anca): of the two up ports a switch
 *     offers (TOPO_HOP_LEAST), the one with the fewer bytes waiting and on
 *     the wire, the first on a tie; the packet then waits in its FIFO like
 *     any other (every up port is deadlock-free).
 *   Deadlock freedom: the topology's classes are the VCs (dateline on tori,
 *     up*-down* on trees with one class, a class per global hop on
 *     dragonflies; proofs in each topo_*.c head): a packet waiting for
 *     credit holds only buffers of lower order than the one it waits for.
 *     Adaptive packets never wait for credit. So every packet arrives
 *     (check_swnet saturates each topology).
 *
 * Zero load (swnet_zero_load_h_ps; with links of their own rate or
 * latency, zero_load_route_ps on the route's links): a message alone of K
 * packets over h switches. Packet k starts on the first link at A(k) and on the j-th at
 * A(k) + j (link + sw): every hop sees the same pipeline shifted, since all
 * packets but the last have one size, so no packet waits for a port. P =
 * ser(mtu). Credits: a buffer holds n = floor(vc-buffer / mtu) full
 * packets, and the bytes of packet k - n come back to the sender R = 2 link
 * + sw after it left (head to the next switch, crossing, the credit's link
 * back), so
 *   A(0) = 0, A(k) = max(A(k-1) + P, A(k-n) + R) = max(k P, floor(k/n) R
 *   + (k mod n) P)
 * (the maximum over paths of the recurrence is linear in the number of R
 * steps). The last packet, of f = max(1, its bytes) in the buffer, waits for
 * the packet n' + 1 before it, n' = floor((vc-buffer - f) / mtu): A(K-1) =
 * max(A(K-2) + P, A(K-2-n') + R). Its last bit arrives at
 *   A(K-1) + h (link + sw) + link + ser(last)
 * = ser(b) + (h+1) link + h sw for one packet; for K packets with n P >= R
 * (the buffer covers the credit round trip) (K-1) P + ser(last) + (h+1)
 * link + h sw. infinite: A(K-1) = (K-1) P. check_conformance and
 * check_swnet compare it with lone messages. The NIC's policy and classes
 * and srpt ports change nothing for a message alone (its packets leave
 * its host in order, back to back as credit allows, and meet no other
 * message): check_swnet_nic checks every policy on every topology. h is that of the route a
 * message alone takes (topo_route: the first candidate at every switch),
 * except under Valiant routing, whose route depends on the message's
 * intermediate: there the minimal route's h (swnet_set_zero_load_topo), a
 * lower bound. Adaptive routing alone takes the first candidate; with
 * buffers that do not cover the credit round trip its later packets may
 * take another minimal path around their own credit stalls.
 *
 * Events: one per packet and hop (joining the next output FIFO; on the
 * last hop the arrival is computed, not an event), one per message (its
 * delivery, at the latest last-bit arrival of its packets), and a wake-up of
 * an output port only when it has waiting packets: when the packet on the
 * wire ends, or when the credit it waits for returns. Every hop event is
 * one link and one switch after the packet left, so hops go through an
 * engine lane (sim_lane: the same order as the heap, argument the packet's
 * 32-bit id) whose lookahead (pf_arrive) fetches a packet's record some
 * events before its hop and then the blocks the hop touches. With an
 * oblivious routing the output a packet takes at a switch is found as it
 * leaves for that switch (lookahead routing, as BookSim2's routers can and
 * as pipelined routers do: the route is a function of the packet's record,
 * so finding it one hop early changes nothing), so those blocks are known
 * in advance; adaptive and UGAL choices read the ports at the hop itself.
 * Measured on the 4-ary 8-tree at 65,536 hosts (1 kB messages at 10%):
 * 10.3-12.7 s of CPU for 2^20 messages before, 4.4-5.4 after. Credits are returned
 * lazily: each link's sender keeps per VC a FIFO of (time, bytes) tokens,
 * in time order since every credit travels one link latency from the
 * instant its event runs; tokens due are added when the sender looks.
 * No malloc in the event loop once warm: packets and tokens come from free
 * lists grown by chunks; per-link blocks are sized at init; srpt heaps
 * grow by doubling and are kept. Memory: per directed link 48 + 16 nq +
 * (credit) 40 vcs bytes in one block (a hop touches the block of its output
 * and that of the link it came by), with srpt a heap of a pointer per
 * message waiting at each queue; per host the NIC's 24 + 40 per class
 * bytes; nothing per pair. */
#include "swnet.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "iqrouter.h"
#include "log.h"
#include "metrics.h"
#include "port.h"
#include "transport.h"
#include "units.h"

const char *const swnet_flow_names[] = {"credit", "infinite", "pfc", NULL};
const char *const swnet_priority_names[] = NET_PORTS_NAMES;
const char *const swnet_vcmap_names[] = {"per-class", "shared", NULL};
const char *const swnet_ci_names[] = {"off", "destination", NULL};
const char *const swnet_router_names[] = {"output-queued", "input-queued", NULL};
const char *const swnet_switching_names[] = {"cut-through", "store-and-forward", "wormhole", NULL};
const char *const swnet_alloc_names[] = {"islip", "separable-input-first", NULL};

const metric_def swnet_metrics_def[SWNET_NMETRICS] = {SWNET_METRICS(METRIC_DEF)};

#define NONE UINT32_MAX
#define POOL_CHUNK 256
#ifndef SWNET_LOOKAHEAD
#define SWNET_LOOKAHEAD 8
#endif

/* 64-byte aligned (chunk_new): the fields a hop reads share the first
 * cache line (with lookahead routing the hop reads nothing else). */
typedef struct swnet_pkt {
    struct swnet_pkt *next; /* FIFO or free-list link */
    net_msg *msg;           /* the message it belongs to */
    uint64_t seq;           /* order of joining its current output FIFO */
    uint32_t bytes;         /* payload, bytes */
    uint32_t id;            /* chunk * POOL_CHUNK + index: the 32-bit argument of its hop events */
    uint32_t sw;            /* switch it is crossing (after its arrival) */
    uint32_t next_sw;       /* switch its current output leads to, NONE: its destination host */
    uint32_t in_link;       /* link it entered the current switch by, NONE: at its source */
    uint32_t hops;          /* switches crossed so far */
    uint32_t la_link;       /* lookahead: the output it takes at next_sw (routed as it left for it) */
    uint32_t la_next;       /* lookahead: what that output leads to (a switch, NONE: the destination) */
    uint8_t in_vc;          /* VC of the buffer it occupies there */
    uint8_t vc;             /* VC of the buffer its current output leads to */
    uint8_t cls;            /* service class */
    uint8_t reserved;       /* 1: room in the next buffer already taken (adaptive) */
    uint8_t la_vc;          /* lookahead: the VC of la_link's buffer */
    topo_hdr hdr;           /* routing record */
    /* srpt output ports only (the padding of the third cache line) */
    uint64_t left;            /* its message's bytes not yet cut when it was cut, itself included (pFabric's stamp) */
    struct swnet_pkt *mprev;  /* the packet of its message cut just before it (maybe gone since: see mseq) */
    uint32_t mseq;            /* index within its message */
    uint32_t qlink;           /* the output whose queue holds it, NONE */
} __attribute__((aligned(64))) swnet_pkt;
_Static_assert(offsetof(swnet_pkt, la_vc) < 64, "a hop's fields fill the packet's first cache line");

/* One packet queue of an output, per (class, VC): a FIFO, or with srpt
 * ports a heap of the earliest packet of each message waiting there, each
 * with the later packets of its message behind it (through `next`). */
#define PKT_LINK offsetof(swnet_pkt, next) /* the link of a packet in a port_fifo */

typedef struct swnet_heap {
    swnet_pkt **a;   /* binary min-heap on (left, seq), grown by doubling */
    uint32_t n, cap; /* entries, room */
} swnet_heap;

typedef union swnet_queue {
    port_fifo f; /* swnet_pkt, linked through next (port.h) */
    swnet_heap h;
} swnet_queue;

typedef struct swnet_tok {
    struct swnet_tok *next;
    int64_t t_ps;   /* the credit reaches the sender */
    uint64_t bytes; /* bytes freed */
} swnet_tok;

/* Credits of one VC of the buffer a link enters, at its sender. The first
 * credit on its way back is kept inline (most of the time it is the only
 * one: no pool access per packet and hop), the later ones in a list. */
typedef struct swnet_credit {
    int64_t free;           /* bytes free in the buffer as the sender knows it, credits due excluded */
    int64_t t0_ps;          /* the first credit on its way back arrives (if n0) */
    uint32_t b0;            /* its bytes */
    uint8_t n0;             /* 1: t0_ps, b0 hold a credit */
    uint8_t waiting;        /* 1: the sender waits for credit here with no wake-up pending */
    swnet_tok *head, *tail; /* the credits after the first, in time order */
} swnet_credit;

/* The output side of a directed link; its FIFOs (nq) and credits (vcs)
 * follow it in memory (st->stride bytes per link), so one packet's hop
 * touches one block. */
typedef struct swnet_port {
    port_out o;            /* the transmitter: busy until, busy time, bytes and packets waiting in its FIFOs
                              (switch ports), the packet on the wire's bytes (port.h) */
    int64_t wake_ps;       /* the pending wake-up, if wake_id */
    sim_event_id wake_id;  /* 0: none pending */
} swnet_port;
_Static_assert(sizeof(swnet_port) == 48, "a port's block keeps its layout");

/* Buffered outputs (network.buffer / ECN with flow-control infinite): the
 * queue statistics and RED state of each directed link's output. */
typedef struct swnet_bq {
    port_stats stats;
    port_red red;
} swnet_bq;

/* msg->aux's top bit: a packet of the message was dropped (buffered mode);
 * the low bits still count its packets in the fabric. */
#define MSG_DROPPED (UINT64_C(1) << 63)

/* ---- pools ---- */

/* A chunk of POOL_CHUNK records of `bytes` (a multiple of 64), 64-byte aligned. */
static void *chunk_new(swnet *st, size_t bytes)
{
    void *c = aligned_alloc(64, POOL_CHUNK * bytes);
    TN_ASSERT(c, "out of memory: %zu bytes of packets", POOL_CHUNK * bytes);
    memset(c, 0, POOL_CHUNK * bytes);
    st->chunks = tn_xrealloc(st->chunks, (st->nchunks + 1) * sizeof *st->chunks);
    st->chunks[st->nchunks++] = c;
    return c;
}

static swnet_pkt *pkt_alloc(swnet *st)
{
    if (!st->pkt_free) {
        TN_ASSERT(st->npchunks < UINT32_MAX / POOL_CHUNK, "more than 2^32 packets in the fabric");
        swnet_pkt *c = chunk_new(st, sizeof *c);
        st->pchunks = tn_xrealloc(st->pchunks, (st->npchunks + 1) * sizeof *st->pchunks);
        st->pchunks[st->npchunks++] = c;
        for (size_t i = POOL_CHUNK; i-- > 0;) {
            c[i].id = (uint32_t)((st->npchunks - 1) * POOL_CHUNK + i);
            c[i].next = st->pkt_free;
            st->pkt_free = &c[i];
        }
    }
    swnet_pkt *p = st->pkt_free;
    st->pkt_free = p->next;
    p->next = NULL;
    st->st.live_packets++;
    return p;
}

/* The packet of a lane event's argument. */
static inline swnet_pkt *pkt_of_id(const swnet *st, uint32_t id)
{
    return st->pchunks[id / POOL_CHUNK] + id % POOL_CHUNK;
}

static void pkt_release(swnet *st, swnet_pkt *p)
{
    p->next = st->pkt_free;
    st->pkt_free = p;
    st->st.live_packets--;
}

static swnet_tok *tok_alloc(swnet *st)
{
    if (!st->tok_free) {
        swnet_tok *c = chunk_new(st, 64);
        for (size_t i = POOL_CHUNK * (64 / sizeof *c); i-- > 0;) {
            c[i].next = st->tok_free;
            st->tok_free = &c[i];
        }
    }
    swnet_tok *k = st->tok_free;
    st->tok_free = k->next;
    k->next = NULL;
    return k;
}

/* ---- small helpers ---- */

static inline int64_t ser_ps(const swnet *st, uint64_t bytes) { return net_rate_ps(&st->rate, bytes); }
/* A link's own rate and latency (links of their own: lrate, llat), else the
 * fabric's: one predictable branch on the hot path when none has. */
static inline int64_t ser_on(const swnet *st, uint32_t l, uint64_t bytes)
{
    return __builtin_expect(st->lrate != NULL, 0) ? net_rate_ps(&st->lrate[l], bytes) : ser_ps(st, bytes);
}
static inline int64_t lat_of(const swnet *st, uint32_t l)
{
    return __builtin_expect(st->llat != NULL, 0) ? st->llat[l] : st->link_ps;
}
/* the latency of the credits of link l's buffer on their way back (its reverse link) */
static inline int64_t back_of(const swnet *st, uint32_t l)
{
    return __builtin_expect(st->llat != NULL, 0) ? st->lback[l] : st->link_ps;
}
/* bytes a packet takes in a buffer: a 0-byte packet counts as 1 */
static inline uint32_t footprint(uint32_t bytes) { return bytes ? bytes : 1; }

static inline uint64_t packets_of(const swnet *st, uint64_t bytes)
{
    return bytes ? (bytes - 1) / st->mtu + 1 : 1;
}

static inline swnet_port *port_at(const swnet *st, uint32_t l)
{
    return (swnet_port *)(st->lk + (size_t)l * st->stride);
}

static inline swnet_queue *queue_at(const swnet *st, uint32_t l, unsigned cls, unsigned vc)
{
    return (swnet_queue *)(st->lk + (size_t)l * st->stride + sizeof(swnet_port)) + cls * st->vcs + vc;
}

static inline port_fifo *fifo_at(const swnet *st, uint32_t l, unsigned cls, unsigned vc)
{
    return &queue_at(st, l, cls, vc)->f;
}

/* The packet queue (l, cls, vc) sends next if it sends: its FIFO's head or
 * its heap's root. */
static inline swnet_pkt *queue_head(const swnet *st, uint32_t l, unsigned cls, unsigned vc)
{
    const swnet_queue *q = queue_at(st, l, cls, vc);
    if (st->srpt)
        return q->h.n ? q->h.a[0] : NULL;
    return (swnet_pkt *)q->f.head;
}

static inline swnet_credit *credit_at(const swnet *st, uint32_t l, unsigned vc)
{
    return (swnet_credit *)(st->lk + (size_t)l * st->stride + sizeof(swnet_port) + st->nq * sizeof(swnet_queue)) +
           vc;
}

/* The credit pool of (class, VC): its own with per-class VCs, else the VC's. */
static inline unsigned pool_of(const swnet *st, unsigned cls, unsigned vc)
{
    return cls * st->pool_cstride + vc;
}

/* Port l has packets waiting (a switch's output) or a host l messages. */
static inline int port_waiting(const swnet *st, uint32_t l, const swnet_port *pt)
{
    return l < st->hosts ? nic_pending(&st->nic, l) : pt->o.nqueued != 0;
}

/* Free bytes of (l, vc) now: the credits due are added first. */
static int64_t credit_now(swnet *st, uint32_t l, unsigned vc, int64_t now)
{
    swnet_credit *c = credit_at(st, l, vc);
    while (c->n0 && c->t0_ps <= now) {
        c->free += c->b0;
        c->n0 = 0;
        swnet_tok *k = c->head;
        if (k) {
            c->t0_ps = k->t_ps;
            c->b0 = (uint32_t)k->bytes;
            c->n0 = 1;
            c->head = k->next;
            if (!c->head)
                c->tail = NULL;
            k->next = st->tok_free;
            st->tok_free = k;
        }
    }
    return c->free;
}

/* Bytes waiting and on the wire at output l (adaptive and UGAL choices). */
static inline uint64_t link_load(const swnet *st, uint32_t l, int64_t now)
{
    return port_load(&port_at(st, l)->o, now);
}

static void ev_wake(sim *s, void *ctx, uint64_t arg);

/* Make sure port l looks again at t (>= now): one pending wake-up per port,
 * the earliest asked for. */
static void wake_at(swnet *st, uint32_t l, int64_t t)
{
    swnet_port *pt = port_at(st, l);
    sim *s = net_sim(st->n);
    if (pt->wake_id) {
        if (pt->wake_ps <= t)
            return;
        sim_cancel(s, pt->wake_id);
    }
    pt->wake_ps = t;
    pt->wake_id = sim_schedule_at(s, t, ev_wake, st, l);
}

/* ---- congestion isolation (network.congestion-isolation destination) ---- */

/* Is (destination, service class) isolated as the switches and NICs know
 * it at now? Its port decides at once; the others learn a change ci_delay
 * after it (ci_iso: bit 0 the state, bit 1 the one before the change at
 * ci_t; a second change within ci_delay of the first is seen at once with
 * it, an approximation). */
static inline unsigned ci_seen(const swnet *st, uint32_t dst, unsigned cls, int64_t now)
{
    size_t i = (size_t)dst * NET_PRIO_CLASSES + cls;
    unsigned v = st->ci_iso[i];
    return now - st->ci_delay >= st->ci_t[i] ? v & 1u : v >> 1;
}

/* (destination, class) i becomes `on` now at its port: the others know at
 * now + ci_delay, and then the hosts that stall for credit with messages
 * waiting look again (a message of theirs may take the other pool). Hosts
 * with a packet on the wire then look again when it ends anyway. */
static void ci_set(swnet *st, size_t i, unsigned on, int64_t now)
{
    st->ci_iso[i] = (uint8_t)(((st->ci_iso[i] & 1u) << 1) | on);
    st->ci_t[i] = now;
    int64_t t = now + st->ci_delay;
    for (uint32_t h = 0; h < st->hosts; h++)
        if (nic_pending(&st->nic, h) && port_at(st, h)->o.busy_until_ps <= t)
            wake_at(st, h, t);
}

/* The host NIC's choice under isolation: the credit pool a message's next
 * packet takes on its host link (its class's isolation VC when its
 * destination is isolated in its class, else VC 0). */
typedef struct ci_ctx {
    swnet *st;
    uint32_t h;     /* the host (its uplink's id) */
    int64_t now;
    unsigned want;  /* ci_min: the VC whose messages count */
    uint64_t min;   /* ci_min: smallest footprint seen */
} ci_ctx;

static inline unsigned ci_vc_of(const swnet *st, const net_msg *m, int64_t now)
{
    return ci_seen(st, m->dst, st->class_of_prio[m->prio], now) ? st->ci_vc : 0;
}

static int64_t credit_now(swnet *st, uint32_t l, unsigned vc, int64_t now);

/* nic_flow_ok: the packet fits its pool now */
static int ci_fits(void *ctx, const net_msg *m, uint64_t bytes)
{
    ci_ctx *x = ctx;
    unsigned pool = pool_of(x->st, x->st->class_of_prio[m->prio], ci_vc_of(x->st, m, x->now));
    return credit_now(x->st, x->h, pool, x->now) >= footprint((uint32_t)bytes);
}

/* nic_flow_ok that never holds: the smallest packet bound for VC want */
static int ci_min(void *ctx, const net_msg *m, uint64_t bytes)
{
    ci_ctx *x = ctx;
    if (ci_vc_of(x->st, m, x->now) == x->want && footprint((uint32_t)bytes) < x->min)
        x->min = footprint((uint32_t)bytes);
    return 0;
}

/* The buffer packet p occupied gives its bytes back: they reach the sender
 * of link l at t. A sender waiting for credit with nothing pending looks
 * again then. */
static inline __attribute__((always_inline)) void credit_return(swnet *st, uint32_t l, unsigned vc, uint32_t bytes,
                                                                 int64_t t)
{
    swnet_credit *c = credit_at(st, l, vc);
    if (!c->n0) {
        c->t0_ps = t;
        c->b0 = bytes;
        c->n0 = 1;
    } else {
        swnet_tok *k = tok_alloc(st);
        k->t_ps = t;
        k->bytes = bytes;
        if (c->tail)
            c->tail->next = k;
        else
            c->head = k;
        c->tail = k;
    }
    /* A sender marked waiting has no wake-up pending, or one at the end of
     * its packet on the wire or at an earlier credit: credits are returned
     * in time order (each a link latency after its event), so none pending
     * can be later than this one. */
    if (c->waiting) {
        c->waiting = 0;
        swnet_port *pt = port_at(st, l);
        if (port_waiting(st, l, pt) && !pt->wake_id)
            wake_at(st, l, t);
    }
}

/* ---- delivery ---- */

static void ev_deliver(sim *s, void *ctx, uint64_t arg)
{
    swnet *st = ctx;
    net_msg *m = (net_msg *)(uintptr_t)arg;
    st->msgs_delivered++;
    st->t_last_ps = sim_now(s);
    net_delivered(st->n, m);
}

/* The last bit of p reaches its destination at t_ps. */
static void packet_arrived(swnet *st, swnet_pkt *p, int64_t t_ps)
{
    net_msg *m = p->msg;
    if (t_ps > m->t_aux_ps)
        m->t_aux_ps = t_ps;
    double bits = 8.0 * p->bytes;
    st->bits_delivered += bits;
    st->energy_j += bits * ((p->hops + 1) * st->serdes_link_j + p->hops * st->core_j);
    st->hops_acc += (double)p->hops / (double)packets_of(st, m->size_bytes);
    if (__builtin_expect((m->aux & MSG_DROPPED) != 0, 0))
        st->lost_share += 1.0 / (double)packets_of(st, m->size_bytes); /* hops_mean counts it: packet_dropped */
    st->st.packet_hops += p->hops;
    pkt_release(st, p);
    TN_ASSERT(m->aux > 0, "message %llu: more packets arrived than were cut", (unsigned long long)m->id);
    if (--m->aux == 0)
        sim_schedule_at(net_sim(st->n), m->t_aux_ps, ev_deliver, st, (uint64_t)(uintptr_t)m);
    else if (m->aux == MSG_DROPPED)
        net_dropped(st->n, m); /* its last packet in the fabric arrived: the message is lost */
}

/* Buffered mode: p is dropped (or discarded: its message lost one already);
 * the message is reported lost when its last packet in the fabric is gone. */
static void packet_dropped(swnet *st, swnet_pkt *p)
{
    net_msg *m = p->msg;
    pkt_release(st, p);
    /* hops_mean is over the packets that arrived, each counting 1 / its
     * message's packets (hops_acc, packet_arrived): the packets of a
     * message lost now that arrived already, and those arriving later
     * (packet_arrived), count in its denominator too, as the delivered
     * messages do (before, they counted above only: the mean read high) */
    if (!(m->aux & MSG_DROPPED)) {
        uint64_t k = packets_of(st, m->size_bytes);
        st->lost_share += (double)(k - m->aux) / (double)k;
    }
    m->aux = (m->aux - 1) | MSG_DROPPED;
    if (m->aux == MSG_DROPPED)
        net_dropped(st->n, m);
}

/* ---- output ports ---- */

static void ev_arrive(sim *s, void *ctx, uint64_t arg);
static void ev_join(sim *s, void *ctx, uint64_t arg);
static inline void join(swnet *st, swnet_pkt *p, uint32_t l, int64_t now);
static inline uint32_t route_at(swnet *st, swnet_pkt *p, uint32_t sw, int64_t now, uint32_t *next, uint8_t *vc);

/* INT (network.h; a transport asked for it: int_tx allocated): switch
 * port l writes its egress record into p's segment as p goes on the wire
 * (hop p->hops - 1: p crossed p->hops switches; qlen the bytes still
 * waiting at l, tx the bytes l sent before p: the HPCC ns-3 code's
 * SwitchNotifyDequeue), and counts p's bytes. */
static __attribute__((noinline)) void int_push(swnet *st, uint32_t l, const swnet_pkt *p, int64_t now)
{
    net_int *in = tp_int_of(p->msg);
    if (in && p->hops > 0)
        net_int_push(in, p->hops - 1, now, st->int_tx[l], port_at(st, l)->o.qbytes,
                     st->lrate ? st->lrate[l].bps : st->rate.bps, l);
    st->int_tx[l] += p->bytes;
}

/* Port l puts p's first bit on the wire now. */
static void port_start(swnet *st, uint32_t l, swnet_pkt *p, int64_t now)
{
    swnet_port *pt = port_at(st, l);
    int64_t ser, lat, back;
    if (__builtin_expect(st->port_slow, 0)) { /* links of their own rate or latency, or INT: one branch */
        if (st->lown) {
            ser = ser_on(st, l, p->bytes);
            lat = lat_of(st, l);
            back = p->in_link != NONE ? back_of(st, p->in_link) : 0;
        } else {
            ser = ser_ps(st, p->bytes);
            lat = back = st->link_ps;
        }
        if (st->int_tx && l >= st->hosts)
            int_push(st, l, p, now);
    } else {
        ser = ser_ps(st, p->bytes);
        lat = back = st->link_ps;
    }
    port_transmit(&pt->o, now, ser, p->bytes);
    if (st->credit && p->in_link != NONE)
        credit_return(st, p->in_link, pool_of(st, p->cls, p->in_vc), footprint(p->bytes), now + back);
    if (p->next_sw == NONE) {
        if (__builtin_expect(st->ci, 0)) {
            /* it leaves its destination's port (a switch's: hosts send to a switch): that port's queue of
             * its class shrinks; empty, with no isolated packet toward it left, the destination is free */
            size_t i = (size_t)p->msg->dst * NET_PRIO_CLASSES + p->cls;
            st->ci_q[i] -= p->bytes;
            if (st->ci_q[i] == 0 && st->ci_n[i] == 0 && (st->ci_iso[i] & 1u))
                ci_set(st, i, 0, now);
        }
        /* the message's head: the first bit of its first packet to reach
         * dst (adaptive routes may reorder packets) */
        int64_t head = now + lat;
        if (p->msg->t_head_ps < 0 || head < p->msg->t_head_ps)
            p->msg->t_head_ps = head;
        packet_arrived(st, p, now + ser + lat);
        return;
    }
    if (st->credit && !p->reserved) {
        swnet_credit *c = credit_at(st, l, pool_of(st, p->cls, p->vc));
        c->free -= footprint(p->bytes);
        TN_ASSERT(c->free >= 0, "link %u VC %u: %lld bytes of credit after a packet of %u", l, p->vc,
                  (long long)c->free, footprint(p->bytes));
    }
    p->reserved = 0;
    p->in_link = l;
    p->in_vc = p->vc;
    p->sw = p->next_sw;
    if (st->lookahead)
        p->la_link = route_at(st, p, p->sw, now, &p->la_next, &p->la_vc);
    if (st->arrive_lane >= 0)
        sim_schedule_lane(net_sim(st->n), st->arrive_lane, p->id);
    else
        sim_schedule_at(net_sim(st->n), now + lat + st->sw_ps, ev_arrive, st, p->id);
}

/* May p leave on l now? */
static inline int may_leave(swnet *st, uint32_t l, const swnet_pkt *p, int64_t now)
{
    return !st->credit || p->next_sw == NONE || p->reserved ||
           credit_now(st, l, pool_of(st, p->cls, p->vc), now) >= footprint(p->bytes);
}

/* ---- srpt output ports (pFabric) ---- */

/* a goes before b: fewer bytes left, then the message that queued first */
static inline int srpt_before(const swnet_pkt *a, const swnet_pkt *b)
{
    return a->left < b->left || (a->left == b->left && a->seq < b->seq);
}

/* p (seq set) joins queue (l, p->cls, p->vc): behind the packet of its
 * message cut just before it if that one waits there, else as its message's
 * earliest packet in the heap. */
static void srpt_join(swnet *st, uint32_t l, swnet_pkt *p)
{
    swnet_pkt *pr = p->mprev;
    p->qlink = l;
    if (pr && pr->qlink == l && pr->msg == p->msg && pr->mseq + 1 == p->mseq && pr->vc == p->vc) {
        p->next = pr->next;
        pr->next = p;
        return;
    }
    p->next = NULL;
    swnet_heap *q = &queue_at(st, l, p->cls, p->vc)->h;
    if (q->n == q->cap) {
        q->cap = q->cap ? 2 * q->cap : 8;
        q->a = tn_xrealloc(q->a, q->cap * sizeof *q->a);
    }
    uint32_t i = q->n++;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (!srpt_before(p, q->a[up]))
            break;
        q->a[i] = q->a[up];
        i = up;
    }
    q->a[i] = p;
}

/* Remove the root r of heap q: the next packet of its message takes its
 * place (fewer bytes left, the same seq: still the root), else the heap
 * shrinks. */
static void srpt_pop(swnet_heap *q, swnet_pkt *r)
{
    swnet_pkt *f = r->next;
    r->next = NULL;
    r->qlink = NONE;
    if (f) {
        TN_ASSERT(f->msg == r->msg && f->mseq > r->mseq && f->left < r->left,
                  "srpt queue: packet %u of message %llu behind packet %u of message %llu", f->mseq,
                  (unsigned long long)f->msg->id, r->mseq, (unsigned long long)r->msg->id);
        f->seq = r->seq; /* ties keep the message's first queuing here */
        q->a[0] = f;
        return;
    }
    swnet_pkt *last = q->a[--q->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && srpt_before(q->a[c + 1], q->a[c]))
            c++;
        if (!srpt_before(q->a[c], last))
            break;
        q->a[i] = q->a[c];
        i = c;
    }
    if (q->n)
        q->a[i] = last;
}

/* The packet srpt port l sends next, or NULL: in the first class that has
 * one allowed to leave, the root with the fewest bytes left across the VCs. */
static swnet_pkt *srpt_pick(swnet *st, uint32_t l, int64_t now)
{
    for (unsigned c = 0; c < st->nclass; c++) {
        swnet_heap *best = NULL;
        for (unsigned v = 0; v < st->vcs; v++) {
            swnet_heap *q = &queue_at(st, l, c, v)->h;
            if (q->n && (!best || srpt_before(q->a[0], best->a[0])) && may_leave(st, l, q->a[0], now))
                best = q;
        }
        if (best) {
            swnet_pkt *p = best->a[0];
            srpt_pop(best, p);
            swnet_port *pt = port_at(st, l);
            port_dequeued(&pt->o, p->bytes);
            return p;
        }
    }
    return NULL;
}

/* ---- PFC (head comment: Output buffers) ---- */

static void ev_pfc(sim *s, void *ctx, uint64_t arg);

/* The pause priority of class c in the buffer of VC vc: a priority per
 * (class, VC), or per class when every VC shares one (swnet_pfc_shared). */
static inline unsigned pfc_prio(const swnet *st, unsigned c, unsigned vc)
{
    return c * st->pvcs + (st->pvcs > 1 ? vc : 0);
}

static void pfc_pause(swnet *st, uint32_t in, size_t idx, int64_t now)
{
    st->xoff_sent[idx] = 1;
    st->pause_frames++;
    sim_schedule_at(net_sim(st->n), now + back_of(st, in), ev_pfc, st, ((uint64_t)idx << 1) | 1);
}

/* May p (entered its switch by link in, priority q) join an output? Not
 * when its bytes would take (in, q) past xoff + headroom: the switch MMU's
 * headroom is exhausted, p is dropped (the pause went up already, or goes
 * now). */
static __attribute__((noinline)) int pfc_fits(swnet *st, const swnet_pkt *p, int64_t now)
{
    size_t idx = (size_t)p->in_link * st->nprio + pfc_prio(st, p->cls, p->in_vc);
    if (st->ingress[idx] + p->bytes <= st->pfc_lim[p->in_link])
        return 1;
    if (!st->xoff_sent[idx] && st->ingress[idx] + p->bytes > st->pfc_xoff)
        pfc_pause(st, p->in_link, idx, now);
    return 0;
}

/* p (class c, entered its switch by link in into VC vc's buffer) joins an
 * output: its bytes count against (in, priority); above xoff a pause goes
 * up the link. */
static __attribute__((noinline)) void pfc_add(swnet *st, uint32_t in, unsigned c, unsigned vc, uint32_t bytes, int64_t now)
{
    size_t idx = (size_t)in * st->nprio + pfc_prio(st, c, vc);
    st->ingress[idx] += bytes;
    if (st->ingress[idx] > st->ingress_max)
        st->ingress_max = st->ingress[idx];
    if (!st->xoff_sent[idx] && st->ingress[idx] > st->pfc_xoff)
        pfc_pause(st, in, idx, now);
}

/* it leaves its switch: at or below xon a paused (in, priority) is resumed */
static void pfc_sub(swnet *st, uint32_t in, unsigned c, unsigned vc, uint32_t bytes, int64_t now)
{
    size_t idx = (size_t)in * st->nprio + pfc_prio(st, c, vc);
    st->ingress[idx] -= bytes;
    if (st->xoff_sent[idx] && st->ingress[idx] <= st->pfc_xon) {
        st->xoff_sent[idx] = 0;
        sim_schedule_at(net_sim(st->n), now + back_of(st, in), ev_pfc, st, (uint64_t)idx << 1);
    }
}

static void port_try(swnet *st, uint32_t l, int64_t now);

/* A pause (arg bit 0 = 1) or resume frame for (link, priority) reaches the
 * link's sender. A host sends in VC 0 only: its priorities are its classes. */
static void ev_pfc(sim *s, void *ctx, uint64_t arg)
{
    swnet *st = ctx;
    size_t idx = (size_t)(arg >> 1);
    int on = (int)(arg & 1);
    uint32_t l = (uint32_t)(idx / st->nprio);
    unsigned q = (unsigned)(idx % st->nprio);
    int64_t now = sim_now(s);
    if (on) {
        st->paused_at[idx] = now;
        st->paused[l] |= (uint8_t)(1u << q);
    } else {
        st->paused_ps += now - st->paused_at[idx];
        st->paused[l] &= (uint8_t)~(1u << q);
    }
    if (l < st->hosts) {
        if (nic_hold(&st->nic, l, q / st->pvcs, on))
            port_try(st, l, now);
    } else if (!on) {
        port_try(st, l, now);
    }
}

/* switch_pick under PFC: the FIFOs' rule over the (class, VC) queues whose
 * priority is not paused (strict: the first class with such a head, the
 * oldest head in it; else the oldest such head of every class). */
static __attribute__((noinline)) swnet_pkt *pfc_pick(swnet *st, uint32_t l, int64_t now)
{
    uint8_t paused = st->paused[l];
    port_fifo *best = NULL;
    for (unsigned c = 0; c < st->nclass && !(best && st->strict); c++) {
        for (unsigned v = 0; v < st->vcs; v++) {
            if (paused & (1u << pfc_prio(st, c, v)))
                continue;
            port_fifo *f = fifo_at(st, l, c, v);
            if (f->head && (!best || ((const swnet_pkt *)f->head)->seq < ((const swnet_pkt *)best->head)->seq))
                best = f;
        }
    }
    if (!best)
        return NULL;
    swnet_pkt *p = port_fifo_pop(best, PKT_LINK);
    swnet_port *pt = port_at(st, l);
    port_stats_change(&st->bq[l].stats, pt->o.qbytes, now);
    st->qsw[p->sw] -= p->bytes;
    pfc_sub(st, p->in_link, p->cls, p->in_vc, p->bytes, now);
    port_dequeued(&pt->o, p->bytes);
    return p;
}

/* The packet switch port l sends next (removed from its FIFO), or NULL. */
static swnet_pkt *pfc_pick(swnet *st, uint32_t l, int64_t now);

static swnet_pkt *switch_pick(swnet *st, uint32_t l, int64_t now)
{
    if (st->pick_mode)
        return st->pick_mode == 1 ? srpt_pick(st, l, now) : pfc_pick(st, l, now);
    /* FIFO ports with per-class VCs: the oldest head allowed to leave
     * across every class and VC; else by class, then age */
    unsigned ncl = st->pick_ncl, nv = st->pick_nv;
    for (unsigned c = 0; c < ncl; c++) {
        port_fifo *best = NULL;
        for (unsigned v = 0; v < nv; v++) {
            port_fifo *f = fifo_at(st, l, c, v);
            if (f->head && (!best || ((const swnet_pkt *)f->head)->seq < ((const swnet_pkt *)best->head)->seq) &&
                may_leave(st, l, f->head, now))
                best = f;
        }
        if (best) {
            swnet_pkt *p = port_fifo_pop(best, PKT_LINK);
            swnet_port *pt = port_at(st, l);
            if (st->buffered) {
                port_stats_change(&st->bq[l].stats, pt->o.qbytes, now);
                st->qsw[p->sw] -= p->bytes;
            }
            port_dequeued(&pt->o, p->bytes);
            return p;
        }
    }
    return NULL;
}

/* ---- sources: the host NIC ----
 * A host's messages wait in its NIC (host_nic.c), which decides which
 * message's packet goes next (network.host-scheduling, classes) and cuts
 * it; the core keeps the uplink: its credits, wake-ups and the packet
 * record. The packet is cut only once the first switch's buffer has room
 * for it (nic_peek_bytes gives its size first), so packets exist only in
 * the network and the NIC's choice is never bent to fit the credit. */

/* The next packet of host h, cut now if the first switch has room for it,
 * or NULL (the NIC has an active message). */
static swnet_pkt *host_pick(swnet *st, uint32_t h, int64_t now)
{
    nic_piece pc;
    if (__builtin_expect(st->ci, 0)) {
        /* congestion isolation: in class order (per-class VCs; else the lowest class only), the first
         * message in the policy's order whose packet fits the pool its destination's state names */
        uint32_t mask = st->nic.node[h].mask;
        if (!st->pcv)
            mask &= ~mask + 1;
        ci_ctx x = {st, h, now, 0, 0};
        nic_flow *f = NULL;
        unsigned c = 0;
        uint64_t b;
        while (mask && !f) {
            c = (unsigned)__builtin_ctz(mask);
            mask &= mask - 1;
            f = nic_find_class(&st->nic, h, c, ci_fits, &x, &b);
        }
        if (!f)
            return NULL;
        nic_take_flow(&st->nic, h, c, f, &pc);
    } else if (st->pcv) {
        /* per-class VCs: the first class, in class order, whose packet
         * fits its own pool (a class out of credit blocks no other) */
        uint32_t mask = st->nic.node[h].mask;
        unsigned c = NET_PRIO_CLASSES;
        while (mask) {
            unsigned k = (unsigned)__builtin_ctz(mask);
            mask &= mask - 1;
            int64_t b = nic_peek_class(&st->nic, h, k);
            if (credit_now(st, h, pool_of(st, k, 0), now) >= footprint((uint32_t)b)) {
                c = k;
                break;
            }
        }
        if (c == NET_PRIO_CLASSES)
            return NULL;
        nic_take_class(&st->nic, h, c, 0, &pc);
    } else {
        if (st->credit && credit_now(st, h, 0, now) < footprint((uint32_t)nic_peek_bytes(&st->nic, h)))
            return NULL;
        nic_take(&st->nic, h, 0, &pc);
    }
    net_msg *m = pc.msg;
    net_msg_set_inject(m, now); /* its first packet starts on the host link now (port_start) */
    swnet_pkt *p = pkt_alloc(st);
    p->msg = m;
    p->bytes = (uint32_t)pc.bytes;
    p->cls = st->class_of_prio[pc.prio];
    p->in_link = NONE;
    p->in_vc = 0;
    p->vc = 0;
    if (__builtin_expect(st->ci, 0) && ci_vc_of(st, m, now)) {
        p->vc = (uint8_t)st->ci_vc;
        st->ci_n[(size_t)m->dst * NET_PRIO_CLASSES + p->cls]++;
    }
    p->reserved = 0;
    p->hops = 0;
    if (st->srpt) {
        p->left = pc.left_bytes;
        p->mseq = pc.seq;
        p->mprev = pc.seq ? m->aux_ptr : NULL;
        p->qlink = NONE;
        m->aux_ptr = p;
    }
    uint32_t sw, port;
    st->t.ops->attach(&st->t, m->src, &sw, &port);
    p->next_sw = sw;
    st->t.ops->hdr_init(&st->t, m->src, m->dst, swnet_mix64(st->salt_key ^ swnet_flow_key(m)), &p->hdr);
    st->st.packets++;
    return p;
}

/* Earliest time a credit on its way back lets a head of port l leave, or
 * INT64_MAX if none will without more credits; the VCs whose credits on
 * their way do not suffice are marked waiting (their next credit wakes l). */
static int64_t blocked_until(swnet *st, uint32_t l, int64_t now)
{
    int64_t best = INT64_MAX;
    const int ci_host = st->ci && l < st->hosts;
    for (unsigned v = 0; v < st->npool; v++) {
        uint64_t need = UINT64_MAX;
        if (__builtin_expect(ci_host, 0)) {
            /* isolation: the smallest packet bound for this pool (VC 0 or the isolation VC) */
            uint32_t mask = st->nic.node[l].mask;
            unsigned c = st->pcv ? v / st->vcs : (mask ? (unsigned)__builtin_ctz(mask) : 0), vc = v % st->vcs;
            ci_ctx x = {st, l, now, vc, UINT64_MAX};
            uint64_t b;
            if ((vc == 0 || vc == st->ci_vc) && (mask & (1u << c)))
                (void)nic_find_class(&st->nic, l, c, ci_min, &x, &b);
            need = x.min;
        } else if (st->pcv) { /* pool v is class v / vcs, VC v % vcs */
            unsigned c = v / st->vcs, vc = v % st->vcs;
            if (l < st->hosts) {
                int64_t b = vc == 0 ? nic_peek_class(&st->nic, l, c) : -1;
                if (b >= 0)
                    need = footprint((uint32_t)b);
            } else {
                const swnet_pkt *p = queue_head(st, l, c, vc);
                if (p)
                    need = footprint(p->bytes);
            }
        } else if (l < st->hosts) {
            if (v > 0)
                break;
            need = footprint((uint32_t)nic_peek_bytes(&st->nic, l));
        } else {
            for (unsigned c = 0; c < st->nclass; c++) {
                const swnet_pkt *p = queue_head(st, l, c, v);
                if (p && footprint(p->bytes) < need)
                    need = footprint(p->bytes);
            }
        }
        if (need == UINT64_MAX)
            continue;
        swnet_credit *cr = credit_at(st, l, v);
        int64_t have = cr->free, t = INT64_MAX;
        if (cr->n0) {
            have += cr->b0;
            if (have >= (int64_t)need)
                t = cr->t0_ps;
        }
        for (const swnet_tok *k = cr->head; k && t == INT64_MAX; k = k->next) {
            have += (int64_t)k->bytes;
            if (have >= (int64_t)need)
                t = k->t_ps;
        }
        if (t == INT64_MAX)
            cr->waiting = 1; /* wait for a credit not yet on its way */
        else if (t < best)
            best = t;
    }
    return best;
}

/* Port l sends whatever it can now; if packets still wait, it is woken
 * when the one on the wire ends or when credit lets one go. */
static void port_try(swnet *st, uint32_t l, int64_t now)
{
    swnet_port *pt = port_at(st, l);
    while (pt->o.busy_until_ps <= now && port_waiting(st, l, pt)) {
        swnet_pkt *p = l < st->hosts ? host_pick(st, l, now) : switch_pick(st, l, now);
        if (!p) {
            if (!st->credit)
                return; /* pfc: every class with packets here is paused; the resume looks again */
            st->st.credit_stalls++;
            int64_t t = blocked_until(st, l, now);
            if (t != INT64_MAX)
                wake_at(st, l, t);
            return; /* else a credit's return wakes it (credit_return) */
        }
        port_start(st, l, p, now);
    }
    if (port_waiting(st, l, pt))
        wake_at(st, l, pt->o.busy_until_ps);
}

static void ev_wake(sim *s, void *ctx, uint64_t arg)
{
    swnet *st = ctx;
    uint32_t l = (uint32_t)arg;
    port_at(st, l)->wake_id = 0;
    st->st.wakes++;
    port_try(st, l, sim_now(s));
}

/* What the output-queued core measures of a candidate's output for the
 * topology's choose (topo_probe): load, the bytes waiting and on the wire;
 * room, whether the next buffer has room for the packet now (credit flow
 * control; always under infinite and pfc), the less loaded the better. */
typedef struct oq_probe {
    swnet *st;
    uint32_t l0; /* the link of the switch's port 0: port p's is l0 + p (topo.h's link ids) */
    const swnet_pkt *p;
    int64_t now;
} oq_probe;

static uint64_t oq_load(void *ctx, uint32_t port)
{
    const oq_probe *o = ctx;
    return link_load(o->st, o->l0 + port, o->now);
}

static int64_t oq_room(void *ctx, uint32_t port, uint8_t vc)
{
    const oq_probe *o = ctx;
    swnet *st = o->st;
    uint32_t l = o->l0 + port;
    if (st->credit && credit_now(st, l, pool_of(st, o->p->cls, vc), o->now) < footprint(o->p->bytes))
        return -1;
    uint64_t q = link_load(st, l, o->now);
    return q >= (uint64_t)INT64_MAX ? 0 : INT64_MAX - (int64_t)q;
}

/* Which of the n candidates switch sw offers packet p takes (n > 1): the
 * topology's choice (topo_ops.choose) over this core's probe; a packet
 * taking an adaptive candidate takes its room in the next buffer at once
 * (credit), so it never waits for credit on an adaptive VC (Duato). */
static unsigned choose(swnet *st, uint32_t sw, swnet_pkt *p, const topo_hop *c, unsigned n, int64_t now)
{
    oq_probe o = {.st = st, .l0 = topo_link_out(&st->t, sw, 0), .p = p, .now = now};
    const topo_probe pr = {.ctx = &o, .load = oq_load, .room = oq_room};
    unsigned k = st->t.ops->choose(&st->t, sw, &p->hdr, c, n, &pr);
    TN_ASSERT(k < n, "switch %u: choice %u of %u candidates", sw, k, n);
    if (c[k].kind == TOPO_HOP_ESCAPE) {
        st->st.adaptive_escape++;
    } else if (c[k].kind == TOPO_HOP_VALIANT) {
        st->st.valiant_packets++;
    } else if (c[k].kind == TOPO_HOP_ADAPTIVE && st->credit) {
        credit_at(st, o.l0 + c[k].port, pool_of(st, p->cls, c[k].vc))->free -=
            footprint(p->bytes);
        p->reserved = 1;
    }
    return k;
}

/* Routes p at switch sw: the output link it takes there, with what that
 * link enters (*next: a switch, NONE: the destination host) and the VC of
 * the buffer there. p's head is at sw now, or, with lookahead routing, p
 * is leaving for sw. */
static inline uint32_t route_at(swnet *st, swnet_pkt *p, uint32_t sw, int64_t now, uint32_t *next, uint8_t *vc)
{
    const topo *t = &st->t;
    topo_hop c[TOPO_MAX_CAND];
    unsigned n = t->ops->next(t, sw, &p->hdr, c);
    if (__builtin_expect(n == 0, 0)) { /* only after network.fail-at: no way around the failed links from here */
        *next = NONE;
        *vc = 0;
        return NONE;
    }
    unsigned k = n > 1 ? choose(st, sw, p, c, n, now) : 0;
    uint32_t l = topo_link_out(t, sw, c[k].port);
    t->ops->take(t, sw, &c[k], &p->hdr);
    topo_end e = t->ops->peer(t, sw, c[k].port);
    *next = e.kind == TOPO_SWITCH ? e.id : NONE;
    *vc = e.kind == TOPO_SWITCH ? c[k].vc : 0;
    return l;
}

/* ---- links failing during the run (network.fail-at) ----
 * At fail_at_ps the topology's failed links (topo_fail.c) go down and its
 * routing starts avoiding them. A packet is lost (counted in lost_packets,
 * its message reported dropped to the transport once its last packet is
 * gone: packet_dropped) when
 *   - it was on a failed link: its last bit had not reached the far end at
 *     fail_at_ps (found when its hop event comes, the link it came by being
 *     dead and its tail due after the failure);
 *   - it was queued at the output of a failed link (ev_fail empties those
 *     queues);
 *   - its next hop, routed before the failure (lookahead), is a failed link
 *     and the routing cannot send it another way from where it is: the
 *     trees route it again from the switch (topo_fail_reroutes); the
 *     torus's record is fixed at the source, so it is lost;
 *   - the routing finds no way from its switch any more (route_at: NONE).
 * A packet lost at a switch gives back the credit of the buffer it held
 * there, as if it had left (credit flow control stays consistent); the
 * credits of a failed link are never used again. */
static void packet_lost_at(swnet *st, swnet_pkt *p, int64_t now)
{
    if (st->credit && p->in_link != NONE && !topo_fail_dead(&st->t, p->in_link))
        credit_return(st, p->in_link, pool_of(st, p->cls, p->in_vc), footprint(p->bytes),
                      now + back_of(st, p->in_link));
    st->lost_packets++;
    packet_dropped(st, p);
}

static void lk_ready(swnet *st);

static void ev_fail(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    swnet *st = ctx;
    int64_t now = sim_now(s);
    topo_fail_activate(&st->t, 1);
    st->failed = 1;
    if (st->iq) {
        iqr_fail(st, now);
        return;
    }
    lk_ready(st);
    for (uint32_t l = st->hosts; l < st->links; l++) {
        if (!topo_fail_dead(&st->t, l))
            continue;
        swnet_port *pt = port_at(st, l);
        for (unsigned c = 0; c < st->nclass; c++)
            for (unsigned v = 0; v < st->vcs; v++) {
                port_fifo *f = fifo_at(st, l, c, v);
                while (f->head) {
                    swnet_pkt *p = port_fifo_pop(f, PKT_LINK);
                    if (st->buffered) {
                        port_stats_change(&st->bq[l].stats, pt->o.qbytes, now);
                        st->qsw[p->sw] -= p->bytes;
                    }
                    port_dequeued(&pt->o, p->bytes);
                    packet_lost_at(st, p, now);
                }
            }
    }
}

/* After the failure: was p on the dead link l it came by (its tail due at
 * the far end after fail_at_ps)? Its hop event comes a link and a switch
 * after its first bit left. */
static inline int lost_on_link(const swnet *st, const swnet_pkt *p, int64_t now)
{
    if (p->in_link == NONE || !topo_fail_dead(&st->t, p->in_link))
        return 0;
    int64_t left = now - lat_of(st, p->in_link) - st->sw_ps;
    return left + ser_on(st, p->in_link, p->bytes) + lat_of(st, p->in_link) > st->fail_at_ps;
}

/* ev_arrive's hop after the failure: the output p takes at its switch,
 * or NONE when p is lost (counted and released here). */
static __attribute__((noinline, cold)) uint32_t route_failed(swnet *st, swnet_pkt *p, int64_t now)
{
    if (lost_on_link(st, p, now)) {
        st->lost_packets++;
        packet_dropped(st, p);
        return NONE;
    }
    uint32_t l;
    if (st->lookahead) {
        l = p->la_link;
        p->next_sw = p->la_next;
        p->vc = p->la_vc;
        if (l == NONE || topo_fail_dead(&st->t, l)) {
            l = NONE;
            if (topo_fail_reroutes(&st->t)) /* the trees' records are not changed by a hop: route it again */
                l = route_at(st, p, p->sw, now, &p->next_sw, &p->vc);
        }
    } else {
        l = route_at(st, p, p->sw, now, &p->next_sw, &p->vc);
    }
    if (l == NONE)
        packet_lost_at(st, p, now);
    return l;
}

/* p's head has crossed switch p->sw: route it (or take the route found as
 * it left the switch before) and join an output FIFO. */
static void ev_arrive(sim *s, void *ctx, uint64_t arg)
{
    swnet *st = ctx;
    swnet_pkt *p = pkt_of_id(st, (uint32_t)arg);
    int64_t now = sim_now(s);
    p->hops++;
    uint32_t l;
    if (__builtin_expect(st->failed, 0)) {
        l = route_failed(st, p, now);
        if (l == NONE)
            return;
    } else if (st->lookahead) {
        l = p->la_link;
        p->next_sw = p->la_next;
        p->vc = p->la_vc;
    } else {
        /* every block a hop touches is a cache miss at scale: start
         * fetching the credits this packet will give back while it is routed */
        if (st->credit)
            __builtin_prefetch(credit_at(st, p->in_link, pool_of(st, p->cls, p->in_vc)), 1);
        uint32_t next;
        uint8_t vc;
        l = route_at(st, p, p->sw, now, &next, &vc); /* never NONE before a failure */
        __builtin_prefetch(port_at(st, l), 1);
        p->next_sw = next;
        p->vc = vc;
    }
    if (__builtin_expect(st->lrate != NULL, 0)) {
        /* from a slower link: the output starts p no earlier than lets its
         * tail, which arrives ser_in - ser_out after that, keep up */
        int64_t d = ser_on(st, p->in_link, p->bytes) - ser_on(st, l, p->bytes);
        if (d > 0) {
            p->la_link = l; /* the output it joins (lookahead routing sets it again as p leaves) */
            st->rate_waits++;
            sim_schedule_at(s, now + d, ev_join, st, p->id);
            return;
        }
    }
    join(st, p, l, now);
}

/* p (routed) joins output l's queue now; deferred (ev_join) when its tail
 * comes from a slower link. */
static void ev_join(sim *s, void *ctx, uint64_t arg)
{
    swnet *st = ctx;
    swnet_pkt *p = pkt_of_id(st, (uint32_t)arg);
    join(st, p, p->la_link, sim_now(s));
}

static inline __attribute__((always_inline)) void join(swnet *st, swnet_pkt *p, uint32_t l, int64_t now)
{
    if (__builtin_expect(st->ci, 0)) {
        size_t i = (size_t)p->msg->dst * NET_PRIO_CLASSES + p->cls;
        st->ci_n[i] -= p->in_vc == st->ci_vc; /* it leaves isolation here, unless it takes the VC again */
        if (p->next_sw != NONE) {
            /* toward an isolated destination: the isolation VC of the next buffer (an adaptive packet keeps
             * the VC whose room it reserved) */
            if (!p->reserved && ci_seen(st, p->msg->dst, p->cls, now)) {
                p->vc = (uint8_t)st->ci_vc;
                st->ci_n[i]++;
            }
        } else {
            /* the destination's port (the congestion point): with ci_thr bytes of this class already
             * waiting there, the destination is congested in this class */
            if (st->ci_q[i] >= st->ci_thr && !(st->ci_iso[i] & 1u)) {
                st->ci_isolations++;
                ci_set(st, i, 1, now);
            }
            st->ci_q[i] += p->bytes;
        }
    }
    if (st->buffered) {
        net_msg *m = p->msg;
        swnet_port *bp = port_at(st, l);
        int v = PORT_DROP;
        if (!(m->aux & MSG_DROPPED)) {
            if (st->pfc && (bp->o.busy_until_ps > now || (st->paused[l] & (1u << pfc_prio(st, p->cls, p->vc)))) &&
                !pfc_fits(st, p, now)) {
                /* it would wait past its ingress headroom (pfc-headroom below the round trip); a packet the
                 * port starts at once is never dropped */
                v = PORT_DROP;
            } else {
                v = port_admit(&st->buf, bp->o.qbytes, st->qsw[p->sw], p->bytes, m->ecn != NET_ECN_NOT_ECT,
                               &st->bq[l].red, st->n->rng);
                if (v == PORT_DROP && st->pfc)
                    v = PORT_ENQUEUE; /* lossless: accounted at ingress (pfc_fits), no output limit */
            }
            if (v == PORT_DROP)
                st->drops++;
        }
        if (v == PORT_DROP) {
            packet_dropped(st, p);
            return;
        }
        if (v == PORT_MARK && m->ecn != NET_ECN_CE) {
            m->ecn = NET_ECN_CE;
            st->marks++;
        }
        port_stats_change(&st->bq[l].stats, bp->o.qbytes, now);
        st->qsw[p->sw] += p->bytes;
        if (bp->o.busy_until_ps > now) /* it waits (an idle port sends it at once) */
            port_stats_max(&st->bq[l].stats, bp->o.qbytes + p->bytes);
        if (st->pfc)
            pfc_add(st, p->in_link, p->cls, p->in_vc, p->bytes, now);
    }
    p->seq = st->seq++;
    if (st->srpt) {
        srpt_join(st, l, p);
    } else {
        port_fifo_push(fifo_at(st, l, p->cls, p->vc), p, PKT_LINK);
    }
    swnet_port *pt = port_at(st, l);
    port_enqueued(&pt->o, p->bytes);
    port_try(st, l, now);
}

/* Lookahead (sim_lane_prefetch, two stages): packet id's hop event comes
 * soon. At scale, where thousands of events ran since it was sent, its
 * record is out of the caches, and so are the blocks of the links its hop
 * touches: stage 0 fetches the record, stage 1 (the record in cache by
 * then) the output's port, FIFOs and credits (known before the hop with
 * lookahead routing), the credits of the link it came by (given back when
 * it leaves), and on its last hop its message. */
static void pf_arrive(void *ctx, uint32_t id, unsigned stage)
{
    const swnet *st = ctx;
    const swnet_pkt *p = pkt_of_id(st, id);
    if (stage == 0) {
        __builtin_prefetch(p, 1);
        __builtin_prefetch((const char *)p + 64, 1); /* the routing record */
        return;
    }
    if (st->credit && p->in_link != NONE)
        __builtin_prefetch(credit_at(st, p->in_link, pool_of(st, p->cls, p->in_vc)), 1);
    if (!st->lookahead)
        return;
    const unsigned char *b = (const unsigned char *)port_at(st, p->la_link);
    __builtin_prefetch(b, 1);
    if (st->stride > 64)
        __builtin_prefetch(b + 64, 1);
    if (p->la_next == NONE)
        __builtin_prefetch(p->msg, 1);
}

/* ---- ops ---- */

/* The links' blocks (lk), written at the first message or failure:
 * zeroed, every credit pool full. Before that every port is idle and
 * empty and every pool full, which the readers that may come first
 * (metrics, credit leaks, queue report, fini) take as such; a fabric made
 * for its routes alone (pattern timing="off": 16 MB at 21,296 hosts,
 * zeroed every run, a fifth of a mapping's time) never writes them. */
static void lk_ready(swnet *st)
{
    if (st->lk_live || !st->lk) /* the input-queued router has none */
        return;
    st->lk_live = 1;
    memset(st->lk, 0, tn_xalloc_big_bytes((size_t)st->links * st->stride));
    if (st->n->int_on && !st->int_tx) {
        st->int_tx = tn_xcalloc(st->links, sizeof *st->int_tx);
        st->port_slow = 1;
    }
    for (uint32_t l = 0; st->credit && l < st->links; l++)
        for (unsigned v = 0; v < st->npool; v++)
            credit_at(st, l, v)->free = st->cap_bytes;
}

void swnet_send(void *state, net_msg *m)
{
    swnet *st = state;
    if (st->iq) {
        iqr_send(st, m);
        return;
    }
    lk_ready(st);
    int64_t now = sim_now(net_sim(st->n));
    TN_ASSERT(m->src < st->hosts && m->dst < st->hosts, "message %u -> %u on %u hosts", m->src, m->dst,
              st->hosts);
    if (st->t_first_ps < 0)
        st->t_first_ps = now;
    m->aux = packets_of(st, m->size_bytes);
    m->t_aux_ps = 0;
    m->next = NULL;
    nic_push(&st->nic, m);
    port_try(st, m->src, now);
}

int64_t swnet_zero_load_h_ps(const void *state, uint32_t h, uint64_t bytes)
{
    const swnet *st = state;
    if (st->iq)
        return iqr_zero_load_h_ps(st, h, bytes);
    uint64_t K = packets_of(st, bytes);
    uint64_t last = bytes - (K - 1) * st->mtu;
    int64_t A = 0; /* A(K-1): the last packet leaves its source */
    if (K >= 2) {
        int64_t P = ser_ps(st, st->mtu);
        A = (int64_t)(K - 1) * P;
        if (st->credit) {
            int64_t R = 2 * st->link_ps + st->sw_ps;
            uint64_t n = (uint64_t)st->cap_bytes / st->mtu;
            uint64_t k = K - 2; /* A(K-2) */
            int64_t a2 = (int64_t)k * P, b2 = (int64_t)(k / n) * R + (int64_t)(k % n) * P;
            A = (a2 > b2 ? a2 : b2) + P;
            uint64_t f = footprint((uint32_t)last);
            uint64_t n2 = ((uint64_t)st->cap_bytes - f) / st->mtu;
            if (K >= n2 + 2) {
                uint64_t j = K - 2 - n2; /* A(j) + R */
                int64_t aj = (int64_t)j * P, bj = (int64_t)(j / n) * R + (int64_t)(j % n) * P;
                int64_t c = (aj > bj ? aj : bj) + R;
                if (c > A)
                    A = c;
            }
        }
    }
    return A + (int64_t)h * (st->link_ps + st->sw_ps) + st->link_ps + ser_ps(st, last);
}

void swnet_set_zero_load_topo(void *state, topo *zl)
{
    swnet *st = state;
    if (zl->hosts > st->hosts && st->placement != TOPO_PLACE_FULL) {
        topo whole = *zl;
        char err[256];
        TN_ASSERT(topo_sub_init(zl, &whole, st->hosts, (topo_placement)st->placement, err, sizeof err) == 0, "%s",
                  err);
    }
    TN_ASSERT(zl->hosts == st->hosts, "zero-load topology of %u hosts for %u", zl->hosts, st->hosts);
    topo_free(&st->zl);
    st->zl = *zl;
    memset(zl, 0, sizeof *zl);
}

/* Zero load on a route whose links have their own rates or latencies
 * (output-queued core): links j = 0..L-1 of the route, P_j = ser_j(mtu),
 * p_j = ser_j(last packet), lat_j, S the switch traversal. Packet k starts
 * on link j at S_j(k) = max(S_j(k-1) + P_j, S_{j-1}(k) + c_j), c_j =
 * lat_{j-1} + S + max(0, P_{j-1} - P_j) (the wait for a slower link's tail,
 * ev_arrive), S_0(k) = (k-1) P_0. A max-plus recurrence: the longest path
 * from (0, 0) stays on the slowest link so far for all its k steps, so
 * S_j(k) = C_j + k max_{i<=j} P_i with C_j = c_1 + ... + c_j; the last
 * packet (c'_j with its own p) steps down from packet K-2 at some link i:
 *   S_{L-1}(K-1) = max_i [C_i + (K-2) max_{m<=i} P_m + P_i + c'_{i+1} + ... + c'_{L-1}]
 * (K = 1: c'_1 + ... + c'_{L-1}), and its last bit arrives p_{L-1} +
 * lat_{L-1} later. Credits are not counted: exact when the buffers cover
 * every link's credit round trip, else a lower bound. Uniform links give
 * swnet_zero_load_h_ps's formula. */
static int64_t zero_load_route_ps(const swnet *st, const uint64_t *lk, size_t L, uint64_t bytes)
{
    uint64_t K = packets_of(st, bytes);
    uint64_t last = bytes - (K - 1) * st->mtu;
    int64_t cp_total = 0; /* c'_1 + ... + c'_{L-1} */
    for (size_t j = 1; j < L; j++) {
        int64_t d = ser_on(st, (uint32_t)lk[j - 1], last) - ser_on(st, (uint32_t)lk[j], last);
        cp_total += lat_of(st, (uint32_t)lk[j - 1]) + st->sw_ps + (d > 0 ? d : 0);
    }
    int64_t S;
    if (K == 1) {
        S = cp_total;
    } else {
        int64_t C = 0, cp = 0, pmax = 0; /* C_i, c'_1 + ... + c'_i, max P so far */
        S = INT64_MIN;
        for (size_t i = 0; i < L; i++) {
            int64_t Pi = ser_on(st, (uint32_t)lk[i], st->mtu);
            if (i > 0) {
                int64_t d = ser_on(st, (uint32_t)lk[i - 1], st->mtu) - Pi;
                C += lat_of(st, (uint32_t)lk[i - 1]) + st->sw_ps + (d > 0 ? d : 0);
                int64_t d2 = ser_on(st, (uint32_t)lk[i - 1], last) - ser_on(st, (uint32_t)lk[i], last);
                cp += lat_of(st, (uint32_t)lk[i - 1]) + st->sw_ps + (d2 > 0 ? d2 : 0);
            }
            if (Pi > pmax)
                pmax = Pi;
            int64_t v = C + (int64_t)(K - 2) * pmax + Pi + (cp_total - cp);
            if (v > S)
                S = v;
        }
    }
    uint32_t e = (uint32_t)lk[L - 1];
    return S + ser_on(st, e, last) + lat_of(st, e);
}

int64_t swnet_zero_load_ps(const void *state, uint32_t src, uint32_t dst, uint64_t bytes)
{
    const swnet *st = state;
    const topo *t = st->zl.ops ? &st->zl : &st->t;
    if (st->iq && iqr_link_latency_varies(st)) { /* links of several latencies: sum the route's */
        uint64_t buf[64], *links = st->zl_links ? st->zl_links : buf;
        TN_ASSERT(st->zl_links || t->max_route_links <= 64, "routes of %u links", t->max_route_links);
        size_t L = topo_route(t, src, dst, 0, links, NULL, t->max_route_links);
        return iqr_zero_load_route_ps(st, links, L, bytes);
    }
    if (!st->iq && (st->lrate || st->llat)) {
        uint64_t *lk = st->zl_links;
        size_t L = topo_route(t, src, dst, 0, lk, NULL, t->max_route_links);
        return zero_load_route_ps(st, lk, L, bytes);
    }
    size_t L = topo_route(t, src, dst, 0, NULL, NULL, 0);
    return swnet_zero_load_h_ps(state, (uint32_t)(L - 1), bytes);
}

uint64_t swnet_link_count(const void *state) { return ((const swnet *)state)->links; }

/* One fixed path per pair (a salt hashed from it): the route of a message
 * alone whose routing choices that salt makes. */
size_t swnet_route(const void *state, uint32_t src, uint32_t dst, uint64_t *links, size_t max)
{
    const swnet *st = state;
    return topo_route(&st->t, src, dst, swnet_mix64(((uint64_t)src << 32) | dst), links, NULL, max);
}

uint64_t swnet_routes_key(const void *state) { return ((const swnet *)state)->routes_key; }

/* swnet_route for many pairs (topo_route_many: the topology's kernel). */
size_t swnet_route_many(const void *state, size_t n, const uint64_t *ends, uint32_t *links, uint32_t *len,
                        size_t stride)
{
    const swnet *st = state;
    if (stride < st->t.max_route_links)
        return st->t.max_route_links;
    uint64_t salts[1024];
    for (size_t i = 0; i < n; i += 1024) {
        size_t m = n - i < 1024 ? n - i : 1024;
        for (size_t j = 0; j < m; j++)
            salts[j] = swnet_mix64(ends[i + j]); /* swnet_route's salt of (src, dst) */
        topo_route_many(&st->t, m, ends + i, salts, links + i * stride, len + i, stride);
    }
    return 0;
}

void swnet_fill_metrics(void *state, double *m)
{
    const swnet *st = state;
    m[M_saturation_bound] = st->bound;
    if (st->msgs_delivered)
        m[M_hops_mean] = st->hops_acc / ((double)st->msgs_delivered + st->lost_share);
    int64_t span = st->t_last_ps - st->t_first_ps;
    if (st->iq)
        iqr_fill_metrics(st, m);
    else if (st->t_first_ps >= 0 && span > 0) {
        double sum = 0, max = 0;
        for (uint32_t l = 0; l < st->links; l++) {
            double u = (double)port_at(st, l)->o.busy_ps;
            sum += u;
            if (u > max)
                max = u;
        }
        m[M_link_utilization_mean] = sum / ((double)st->links * (double)span);
        m[M_link_utilization_max] = max / (double)span;
    }
    if (st->energy_modelled)
        m[M_energy_per_bit_j] = st->bits_delivered > 0
                                    ? (st->iq ? iqr_energy_j(st) : st->energy_j) / st->bits_delivered
                                    : st->energy_zero_j;
    if (st->fail_at_ps >= 0)
        m[M_lost_packets] = (double)st->lost_packets;
}

/* Test aid (output-queued router): the credit pools, on links whose buffer
 * is counted (into a switch, not failed), whose free bytes plus the credits
 * on their way back differ from the buffer depth, under PFC the (ingress
 * link, class) counts not back to 0 or still paused, plus the packets
 * alive. 0 once every credit came back (the run over). */
uint64_t swnet_credit_leaks(const void *state)
{
    const swnet *st = state;
    uint64_t bad = st->st.live_packets;
    for (uint32_t l = 0; st->credit && !st->iq && st->lk_live && l < st->links; l++) { /* else every pool full */
        if (topo_fail_dead(&st->t, l))
            continue;
        for (unsigned v = 0; v < st->npool; v++) {
            const swnet_credit *c = credit_at(st, l, v);
            int64_t have = c->free + (c->n0 ? (int64_t)c->b0 : 0);
            for (const swnet_tok *k = c->head; k; k = k->next)
                have += (int64_t)k->bytes;
            bad += have != st->cap_bytes;
        }
    }
    for (size_t i = 0; st->pfc && i < (size_t)st->links * st->nprio; i++) /* pfc: every ingress count back to 0 */
        bad += st->ingress[i] != 0 || st->xoff_sent[i] || (st->paused[i / st->nprio] & (1u << (i % st->nprio)));
    return bad;
}

/* Test aid (pfc): the length of a cycle of paused (link, priority) pairs
 * each holding bytes that wait at the next one's output (a PFC deadlock:
 * none of them can resume), 0 if there is none. Edges (a, q) -> (l, q'):
 * a packet that entered its switch by link a in priority q waits in output
 * l's queue of priority q', which is paused; a depth-first search over
 * those finds a cycle. */
typedef struct pfc_edge {
    uint64_t from, to;
} pfc_edge;

static int pfc_edge_cmp(const void *x, const void *y)
{
    const pfc_edge *a = x, *b = y;
    return a->from < b->from ? -1 : a->from > b->from ? 1 : (a->to > b->to) - (a->to < b->to);
}

/* The first of the edges e[0..ne) (sorted by from) that leave node from. */
static size_t first_edge(const pfc_edge *e, size_t ne, uint64_t from)
{
    size_t lo = 0, hi = ne;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e[mid].from < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t swnet_pfc_wait_cycle(const void *state)
{
    const swnet *st = state;
    if (!st->pfc)
        return 0;
    size_t ne = 0, cap = 0;
    pfc_edge *e = NULL;
    for (uint32_t l = st->hosts; l < st->links; l++)
        for (unsigned c = 0; c < st->nclass; c++)
            for (unsigned v = 0; v < st->vcs; v++) {
                unsigned q = pfc_prio(st, c, v);
                if (!(st->paused[l] & (1u << q)))
                    continue;
                for (const swnet_pkt *p = fifo_at(st, l, c, v)->head; p; p = p->next) {
                    if (ne == cap) {
                        cap = cap ? 2 * cap : 64;
                        e = tn_xrealloc(e, cap * sizeof *e);
                    }
                    e[ne].from = (uint64_t)p->in_link * st->nprio + pfc_prio(st, p->cls, p->in_vc);
                    e[ne].to = (uint64_t)l * st->nprio + q;
                    ne++;
                }
            }
    if (ne) /* qsort(NULL, 0, ...) is undefined (UBSan) */
        qsort(e, ne, sizeof *e, pfc_edge_cmp);
    size_t nn = (size_t)st->links * st->nprio;
    uint8_t *color = tn_xcalloc(nn, 1);      /* 0 new, 1 on the path, 2 done */
    uint64_t *depth = tn_xcalloc(nn, sizeof *depth);
    size_t *stk = tn_xcalloc(ne + 1, sizeof *stk), *pos = tn_xcalloc(ne + 1, sizeof *pos);
    uint64_t found = 0;
    for (size_t i = 0; i < ne && !found; i++) {
        uint64_t s0 = e[i].from;
        if (color[s0])
            continue;
        /* iterative DFS: stk holds nodes, pos the next edge index to try */
        size_t top = 0;
        stk[0] = s0;
        color[s0] = 1;
        depth[s0] = 0;
        pos[0] = first_edge(e, ne, s0);
        while (!found) {
            uint64_t u = stk[top];
            if (pos[top] < ne && e[pos[top]].from == u) {
                uint64_t w = e[pos[top]++].to;
                if (color[w] == 1) {
                    found = depth[u] - depth[w] + 1;
                } else if (color[w] == 0 && top + 1 <= ne) {
                    color[w] = 1;
                    depth[w] = depth[u] + 1;
                    stk[++top] = w;
                    pos[top] = first_edge(e, ne, w);
                }
            } else {
                color[u] = 2;
                if (top == 0)
                    break;
                top--;
            }
        }
    }
    free(e);
    free(color);
    free(depth);
    free(stk);
    free(pos);
    return found;
}

int swnet_queue_report(void *state, int64_t t_end_ps, net_queue_report *r)
{
    const swnet *st = state;
    if (!st->buffered)
        return 0;
    port_report pr = {0};
    for (uint32_t l = st->hosts; l < st->links; l++) /* no lk: every queue empty */
        port_report_fold(&pr, &st->bq[l].stats, st->lk_live ? port_at(st, l)->o.qbytes : 0, t_end_ps);
    r->drops = st->drops;
    r->marks = st->marks;
    r->queue_max = (double)pr.queue_max;
    r->queue_mean = pr.queue_mean;
    r->queue_now = (double)pr.queue_now;
    if (st->pfc) {
        r->pfc = 1;
        r->pause_frames = st->pause_frames;
        int64_t paused = st->paused_ps;
        for (size_t i = 0; i < (size_t)st->links * st->nprio; i++)
            if (st->paused[i / st->nprio] & (1u << (i % st->nprio)))
                paused += t_end_ps - st->paused_at[i]; /* still paused at the end */
        r->paused_s = units_ps_to_s(paused);
        r->ingress_max = (double)st->ingress_max;
    }
    return 1;
}

void swnet_get_stats(const void *state, swnet_stats *out) { *out = ((const swnet *)state)->st; }

const topo *swnet_topo(const void *state) { return &((const swnet *)state)->t; }

double *swnet_link_rates(const void *state)
{
    const swnet *st = state;
    if (!st->lrate)
        return NULL;
    const topo *t = &st->t;
    double *r = tn_xcalloc((size_t)st->links + 1, sizeof *r);
    int any = 0;
    for (uint32_t l = 0; l < st->links; l++) {
        double b = 0;
        int64_t ps;
        if (t->ops->link_attr)
            t->ops->link_attr(t, l, &b, &ps);
        double own = b > 0 ? b : net_core(st->n)->bandwidth_bps;
        if (st->lrate[l].bps != own) {
            r[l] = st->lrate[l].bps;
            any = 1;
        }
    }
    if (!any) {
        free(r);
        return NULL;
    }
    return r;
}

void swnet_fini(void *state)
{
    swnet *st = state;
    iqr_fini(st);
    for (size_t i = 0; i < st->nchunks; i++)
        free(st->chunks[i]);
    free(st->chunks);
    free(st->pchunks);
    for (uint32_t l = st->hosts; st->srpt && st->lk_live && l < st->links; l++)
        for (unsigned q = 0; q < st->nq; q++)
            free(((swnet_queue *)(st->lk + (size_t)l * st->stride + sizeof(swnet_port)))[q].h.a);
    free(st->lk);
    free(st->ci_q);
    free(st->ci_iso);
    free(st->ci_t);
    free(st->ci_n);
    free(st->lrate);
    free(st->int_tx);
    free(st->llat);
    free(st->lback);
    free(st->zl_links);
    free(st->bq);
    free(st->qsw);
    free(st->ingress);
    free(st->xoff_sent);
    free(st->paused_at);
    free(st->paused);
    free(st->pfc_lim);
    if (st->nic.node)
        nic_fini(&st->nic);
    topo_free(&st->t);
    topo_free(&st->zl);
    memset(st, 0, sizeof *st);
}

/* Mean switches crossed from host 0 to the others (at most 4096 of them,
 * evenly spaced): the summary path of the energy per bit. */
static double mean_hops(const topo *t)
{
    uint32_t N = t->hosts, step = N > 4097 ? (N - 1) / 4096 : 1;
    double sum = 0;
    uint32_t n = 0;
    for (uint32_t b = 1; b < N; b += step) {
        sum += (double)(topo_route(t, 0, b, 0, NULL, NULL, 0) - 1);
        n++;
    }
    return n ? sum / n : 1.0;
}

int swnet_resolve_phy(const net_params *core, swnet_params *p, const phy_params *phy, const topo *t,
                      net_phy *out, char *err, size_t errlen)
{
    char e2[512];
    if (phy_energy_check(&phy->energy, e2, sizeof e2) != 0)
        return tn_error(err, errlen, "network.phy: %s", e2);
    double lane = phy->energy.electrical_lane_bps;
    if (!(lane > 0) || lane > core->bandwidth_bps)
        lane = core->bandwidth_bps;
    /* the single switch's path is 2 links: half its SerDes are one link's */
    p->serdes_link_j_per_bit = phy->energy.serdes_per_electrical_path / 2.0 * phy_serdes_j_per_bit(&phy->energy, lane);
    p->core_j_per_bit = phy->energy.switch_core_j_per_bit;
    p->phy_resolved = 1;
    double h = mean_hops(t);
    out->bit_error_rate = 0;
    out->energy_per_bit_j = (h + 1) * p->serdes_link_j_per_bit + h * p->core_j_per_bit;
    return 0;
}

static unsigned shape_nclass(const swnet_params *p);

/* The default headroom as a check sees the fabric (links of their own
 * latency, a graph's, are checked again at init, swnet_init): the round
 * trip over the longer of the host and switch links, plus two packets with
 * links of their own rate (head comment: Output buffers). */
static uint64_t pfc_auto_headroom_core(const net_params *core, const swnet_params *p)
{
    int64_t l = core->link_latency_ps;
    if (p->host_link_ps > l)
        l = p->host_link_ps;
    return swnet_pfc_headroom(l, l, core->switch_latency_ps, core->bandwidth_bps, p->nic.mtu_bytes) +
           (p->degraded_links[0] ? 2 * p->nic.mtu_bytes : 0);
}

void swnet_ci_classes(const swnet_params *p, unsigned vcs, const char *shape, param_report *rep)
{
    if (p->ci == SWNET_CI_DEST && vcs > 1)
        param_invalid(rep, "network.congestion-isolation",
                      "%s routes with %u deadlock classes (VCs); the isolation VC keeps a routing deadlock-free "
                      "only where one class does (fat-tree, leaf-spine, graph)", shape, vcs);
}

void swnet_pfc_classes(const net_params *core, const swnet_params *p, unsigned vcs, const char *why_not,
                       const char *shape, param_report *rep)
{
    if (p->flow_control != SWNET_PFC)
        return;
    unsigned nclass = shape_nclass(p), need = nclass * vcs;
    if (why_not) {
        param_invalid(rep, "network.flow-control", "pfc is not offered on %s with this routing: %s", shape, why_not);
    } else if (need > SWNET_PFC_PRIOS) {
        param_invalid(rep, "network.flow-control",
                      "pfc on %s pauses each (class, VC) pair on its own priority (a pause shared by the VCs of a "
                      "link can close a cycle of paused links: PFC deadlock), and %u classes x %u VCs need %u "
                      "priorities: IEEE 802.1Qbb has %u. Use one class (network.priority fifo, host-scheduling "
                      "not priority), or credit flow control",
                      shape, nclass, vcs, need, SWNET_PFC_PRIOS);
    } else {
        /* swnet_check counted the classes alone (one VC): report here only what the VCs add */
        uint64_t h = p->pfc_headroom ? p->pfc_headroom : pfc_auto_headroom_core(core, p);
        if (vcs > 1 && p->buf.buffer_bytes > 0 && p->buf.policy == PORT_STATIC &&
            nclass * (p->pfc_xoff + h) <= p->buf.buffer_bytes)
            swnet_pfc_buffer_check(&p->buf, need, p->pfc_xoff, h, p->pfc_headroom == 0, rep);
    }
}

uint64_t swnet_pfc_headroom(int64_t there_ps, int64_t back_ps, int64_t sw_ps, double bps, uint64_t mtu)
{
    long double b = (long double)(there_ps + back_ps + sw_ps) * (long double)bps / 8e12L;
    return (uint64_t)ceill(b) + mtu;
}

void swnet_pfc_buffer_check(const port_cfg *buf, unsigned prios, uint64_t xoff, uint64_t headroom, int automatic,
                            param_report *rep)
{
    if (buf->buffer_bytes == 0)
        return;
    if (buf->policy != PORT_STATIC) {
        param_invalid(rep, "network.buffer-policy",
                      "dynamic (a shared buffer under the dynamic threshold) is not modelled with "
                      "flow-control=\"pfc\": its pause threshold pfc-xoff is static per ingress port and priority; "
                      "use static (network.buffer per port)");
        return;
    }
    uint64_t need = (uint64_t)prios * (xoff + headroom);
    if (need > buf->buffer_bytes)
        param_invalid(rep, "network.buffer",
                      "under pfc a port's buffer is accounted at ingress, as a switch MMU's for lossless traffic: "
                      "each of its %u pause priorities may hold pfc-xoff + headroom = %llu + %llu B%s, %llu B in "
                      "all, more than network.buffer = %llu B (raise it, or lower pfc-xoff or pfc-headroom)",
                      prios, (unsigned long long)xoff, (unsigned long long)headroom,
                      automatic ? " (the default headroom: the pause's round trip, (2 link + switch) x B + mtu)" : "",
                      (unsigned long long)need, (unsigned long long)buf->buffer_bytes);
}

void swnet_pfc_shared(void *state)
{
    swnet *st = state;
    if (!st->pfc)
        return;
    st->pvcs = 1;
    st->nprio = st->nclass;
}

void swnet_check(const net_params *core, const swnet_params *p, const char *const *routings, uint64_t hosts,
                 const char *shape, param_report *rep)
{
    uint64_t mtu = p->nic.mtu_bytes;
    if (mtu == 0)
        param_invalid(rep, "network.mtu", "0 (whole messages) cannot be used on a switched fabric: virtual cut-through "
                                          "reserves a whole packet in a vc-buffer, so messages must be cut into "
                                          "packets (e.g. 4KiB)");
    else if (mtu > SWNET_MAX_MTU_BYTES)
        param_invalid(rep, "network.mtu", "must be between 1B and 1GiB (got %llu B)", (unsigned long long)mtu);
    nic_check(&p->nic, rep);
    if (p->fail_at_ps >= 0) {
        const char *s = p->failed_links;
        while (tn_is_space(*s) || *s == ',')
            s++;
        if (!*s)
            param_invalid(rep, "network.fail-at", "needs network.failed-links (the links that fail then)");
        if (p->nic.policy == NIC_SRPT && p->flow_control != SWNET_CREDIT)
            param_invalid(rep, "network.fail-at", "not with host-scheduling=\"srpt\"'s output heaps (so far)");
        if (p->flow_control == SWNET_PFC)
            param_invalid(rep, "network.fail-at", "not with network.flow-control=\"pfc\" (so far): its pause "
                                                  "accounting does not follow packets lost at a switch");
    }
    if (p->flow_control == SWNET_PFC) {
        if (p->router != SWNET_OQ)
            param_invalid(rep, "network.flow-control", "pfc pauses output-queued routers' links "
                                                       "(network.router = output-queued); the input-queued router "
                                                       "has its own credit flow control");
        if (p->nic.policy == NIC_SRPT)
            param_invalid(rep, "network.flow-control", "pfc is not modelled with srpt ports");
        if (p->pfc_xon >= p->pfc_xoff)
            param_invalid(rep, "network.pfc-xon", "pfc-xon (%llu B) must be below pfc-xoff (%llu B)",
                          (unsigned long long)p->pfc_xon, (unsigned long long)p->pfc_xoff);
        swnet_pfc_buffer_check(&p->buf, shape_nclass(p), p->pfc_xoff,
                               p->pfc_headroom ? p->pfc_headroom : pfc_auto_headroom_core(core, p),
                               p->pfc_headroom == 0, rep);
    } else if (p->flow_control != SWNET_CREDIT && p->flow_control != SWNET_INFINITE)
        param_invalid(rep, "network.flow-control", "unknown flow control %d", p->flow_control);
    if (p->flow_control == SWNET_CREDIT && p->vc_buffer_bytes < mtu && p->router != SWNET_IQ)
        param_invalid(rep, "network.vc-buffer",
                      "%llu B cannot hold one packet of network.mtu = %llu B (virtual cut-through reserves a whole "
                      "packet)",
                      (unsigned long long)p->vc_buffer_bytes, (unsigned long long)mtu);
    port_cfg_check(&p->buf, mtu, rep);
    if (port_cfg_on(&p->buf) && p->flow_control == SWNET_CREDIT)
        param_invalid(rep, "network.buffer", "finite output buffers and ECN need flow-control=\"infinite\" "
                                             "(credit flow control is lossless: its buffers never overflow)");
    if (port_cfg_on(&p->buf) && p->nic.policy == NIC_SRPT && p->flow_control != SWNET_PFC)
        param_invalid(rep, "network.buffer", "finite buffers and ECN are not modelled with pFabric's srpt ports "
                                             "(network.host-scheduling = srpt)");
    if (port_cfg_on(&p->buf) && p->router != SWNET_OQ)
        param_invalid(rep, "network.buffer", "finite output buffers and ECN are the output-queued router's "
                                             "(network.router = output-queued)");
    if (p->vc_buffer_bytes > (uint64_t)INT64_MAX / 4)
        param_invalid(rep, "network.vc-buffer", "too large (%llu B)", (unsigned long long)p->vc_buffer_bytes);
    if (p->control_first < NET_PORTS_FIFO || p->control_first > NET_PORTS_DEFAULT)
        param_invalid(rep, "network.priority", "unknown priority mode %d", p->control_first);
    if (p->vc_map != SWNET_VC_PER_CLASS && p->vc_map != SWNET_VC_SHARED)
        param_invalid(rep, "network.vc-map", "unknown VC mapping %d", p->vc_map);
    if (p->ci != SWNET_CI_OFF && p->ci != SWNET_CI_DEST)
        param_invalid(rep, "network.congestion-isolation", "unknown mode %d", p->ci);
    if (p->ci == SWNET_CI_DEST) {
        if (p->flow_control != SWNET_CREDIT)
            param_invalid(rep, "network.congestion-isolation", "isolates within credit flow control's lossless "
                                                               "buffers (network.flow-control = credit)");
        if (p->router != SWNET_OQ)
            param_invalid(rep, "network.congestion-isolation", "is modelled on the output-queued router (network.router "
                                                               "= output-queued) only");
        if (p->nic.policy == NIC_SRPT)
            param_invalid(rep, "network.congestion-isolation", "not with host-scheduling=\"srpt\" (so far): the NIC "
                                                               "skips a message it cannot send in list order only");
        if (p->fail_at_ps >= 0)
            param_invalid(rep, "network.congestion-isolation", "not with network.fail-at (so far): the packets lost "
                                                               "at a port are not taken off its congestion count");
    }
    iqr_check(core, p, rep);
    if (topo_routing_of(routings, p->routing) < 0) {
        char list[256];
        topo_routing_list(routings, list, sizeof list);
        param_invalid(rep, "network.routing", "%s has no routing %d (expected one of: default, %s)", shape,
                      p->routing, list); /* a row's value is one of its choices: params built in code */
    }
    /* a mtu's time must fit, as every other time (1 hour) */
    if (core->bandwidth_bps > 0 && (double)mtu * 8e12 / core->bandwidth_bps > 3.6e15)
        param_invalid(rep, "network.mtu",
                      "a packet of %llu B takes more than 1 hour at network.bandwidth = %g b/s; raise "
                      "network.bandwidth or lower network.mtu",
                      (unsigned long long)mtu, core->bandwidth_bps);
    if (hosts && !swnet_nodes_fit(p, core->nodes, hosts))
        param_invalid(rep, "system.nodes", "N = %u, but %s has %llu hosts%s", core->nodes, shape,
                      (unsigned long long)hosts,
                      p->placement == TOPO_PLACE_FULL && core->nodes < hosts
                          ? " (network.placement=\"first\" or \"spread\" populates it partly)"
                          : "");
}

/* The classes of params p (output-queued router): ports serving classes
 * (strict), hosts serving classes (nic), per-class VCs (pcv: credits, vc-map
 * per-class and classes at the hosts: more than one class may be in use),
 * classes at the ports (nclass: the hosts', served in order or by age as
 * strict says) and credit pools per link (npool). */
typedef struct swnet_shape {
    int strict, nic, pcv;
    unsigned nclass, npool;
} swnet_shape;

static swnet_shape shape_of(const swnet_params *p, unsigned vcs)
{
    swnet_shape h;
    h.strict = nic_ports_strict(&p->nic, p->control_first);
    h.nic = nic_classes_on(&p->nic, h.strict);
    h.pcv = p->flow_control == SWNET_CREDIT && p->vc_map == SWNET_VC_PER_CLASS && h.nic;
    h.nclass = h.nic ? NET_PRIO_CLASSES : 1; /* strict ports have classes at the hosts too */
    h.npool = h.pcv ? h.nclass * vcs : vcs;
    return h;
}

static unsigned shape_nclass(const swnet_params *p) { return shape_of(p, 1).nclass; }

/* VCs of each port of the output-queued core: the topology's deadlock
 * classes, and congestion isolation's VC after them. */
static unsigned oq_vcs(const swnet_params *p, const topo *t) { return t->vcs + (p->ci == SWNET_CI_DEST); }

/* Bytes of one link's block: the port, a FIFO per class and VC, and with
 * credits the credits of each pool, in whole cache lines (the port and its
 * first FIFOs share the first). */
static size_t link_stride(const swnet_params *p, const topo *t)
{
    swnet_shape h = shape_of(p, oq_vcs(p, t));
    size_t nq = h.nclass * (size_t)oq_vcs(p, t);
    size_t credits = p->flow_control == SWNET_CREDIT ? h.npool * sizeof(swnet_credit) : 0;
    return (sizeof(swnet_port) + nq * sizeof(swnet_queue) + credits + 63) / 64 * 64;
}

int64_t swnet_fixed_latency_ps(const net_params *core, const swnet_params *p)
{
    if (p->router == SWNET_IQ)
        return iqr_fixed_latency_ps(core, p);
    return 2 * core->link_latency_ps + core->switch_latency_ps; /* net_fixed_latency_ps's default */
}

double swnet_mem_bytes(const net_params *core, const swnet_params *p, const topo *t)
{
    (void)core;
    swnet_shape h = shape_of(p, t->vcs);
    if (p->router == SWNET_IQ)
        return sizeof(swnet) + iqr_mem_bytes(p, t) + nic_mem_bytes(t->hosts, &p->nic, h.strict) +
               (double)t->hosts * 96;
    return sizeof(swnet) + (double)tn_xalloc_big_bytes((size_t)t->links * link_stride(p, t)) +
           nic_mem_bytes(t->hosts, &p->nic, h.strict) + (double)t->hosts * sizeof(swnet_pkt) +
           (port_cfg_on(&p->buf) || p->flow_control == SWNET_PFC
                ? (double)t->links * sizeof(swnet_bq) + (double)t->switches * sizeof(uint64_t)
                : 0) +
           (p->flow_control == SWNET_PFC ? (double)t->links * (SWNET_PFC_PRIOS * 17.0 + 9) : 0) +
           (p->ci == SWNET_CI_DEST ? (double)t->hosts * NET_PRIO_CLASSES * (3 * sizeof(int64_t) + 1) : 0);
}

int swnet_nodes_fit(const swnet_params *p, uint64_t nodes, uint64_t hosts)
{
    return p->placement == TOPO_PLACE_FULL ? nodes == hosts : nodes >= 1 && nodes <= hosts;
}

/* network.failed-links: a count, or names A-B separated by spaces or commas */
int swnet_failed_ok(const char *text, char *err, size_t errlen)
{
    uint32_t k;
    if (topo_graph_failed_count(text, &k))
        return 0;
    size_t len;
    for (const char *p = text, *t; (t = tn_list_next(&p, &len));) {
        const char *dash = memchr(t + 1, '-', len > 1 ? len - 1 : 0);
        if (!dash || dash + 1 >= p)
            return tn_error(err, errlen,
                            "\"%.*s\": expected a number of links, or links named A-B (the names of their ends, as "
                            "export-topology or the DOT file writes them, joined by -), separated by spaces",
                            (int)len, t);
    }
    return 0;
}


/* network.failed-links on a parametric fabric (a graph applies its own,
 * topo_graph.c): t wrapped by topo_fail.c; a count fails links only when
 * draw (a run's build, from seed), else only its size is checked. */
static int apply_failed(const swnet_params *p, topo *t, int draw, uint64_t seed, int check_pairs, char *err,
                        size_t errlen)
{
    const char *s = p->failed_links;
    while (tn_is_space(*s) || *s == ',')
        s++;
    if (!*s || topo_is_graph(t))
        return 0;
    topo whole = *t;
    memset(t, 0, sizeof *t);
    if (topo_fail_init(t, &whole, p->failed_links, draw, seed, check_pairs, err, errlen) != 0) {
        topo_free(&whole);
        return -1;
    }
    return 0;
}

static int populate(const net_params *core, const swnet_params *p, topo *t, int draw, uint64_t seed, char *err,
                    size_t errlen)
{
    /* the pairs are checked by the fabric's check (named links) or here when
     * a count was drawn for this run; builds for estimates skip them */
    if (apply_failed(p, t, draw, seed, draw, err, errlen) != 0)
        return -1;
    if (p->placement == TOPO_PLACE_FULL || core->nodes >= t->hosts)
        return 0;
    topo whole = *t;
    memset(t, 0, sizeof *t);
    if (topo_sub_init(t, &whole, core->nodes, (topo_placement)p->placement, err, errlen) != 0) {
        topo_free(&whole);
        return -1;
    }
    return 0;
}

int swnet_populate(const net_params *core, const swnet_params *p, topo *t, char *err, size_t errlen)
{
    return populate(core, p, t, 0, 0, err, errlen);
}

void swnet_check_failures(const net_params *core, const swnet_params *p, topo *t, param_report *rep)
{
    char err[1024];
    (void)core;
    if (apply_failed(p, t, 0, 0, 1, err, sizeof err) != 0)
        param_invalid(rep, "network.failed-links", "%s", err);
    topo_free(t);
}

/* ---- network.degraded-links ---- */

/* The next entry of a degraded-links text from *pp: [*name, *name + *nlen)
 * and its factor; 0, 1 at the end, -1 + err (syntax). */
static int degraded_next(const char **pp, const char **name, size_t *nlen, double *factor, char *err, size_t errlen)
{
    size_t len;
    const char *t = tn_list_next(pp, &len);
    if (!t)
        return 1;
    const char *p = t + len;
    const char *colon = NULL;
    for (const char *c = t; c < p; c++)
        if (*c == ':')
            colon = c;
    char num[64] = "";
    if (colon && (size_t)(p - colon - 1) < sizeof num) {
        memcpy(num, colon + 1, (size_t)(p - colon - 1));
        num[p - colon - 1] = '\0';
    }
    char *end;
    double f = num[0] ? strtod(num, &end) : 0;
    if (!colon || colon == t || !num[0] || *end || !(f > 0 && f <= 1))
        return tn_error(err, errlen,
                        "\"%.*s\": expected A-B:factor, a link named by its ends (as export-topology or the DOT file "
                        "writes them, joined by -) and the fraction of its bandwidth it keeps, 0 < factor <= 1 "
                        "(e.g. S0-S4:0.5)",
                        (int)(p - t), t);
    *name = t;
    *nlen = (size_t)(colon - t);
    *factor = f;
    return 0;
}

int swnet_degraded_ok(const char *text, char *err, size_t errlen)
{
    const char *p = text, *name;
    size_t n;
    double f;
    int rc;
    while ((rc = degraded_next(&p, &name, &n, &f, err, errlen)) == 0) {
        const char *dash = memchr(name + 1, '-', n > 1 ? n - 1 : 0);
        if (!dash || dash + 1 >= name + n)
            return tn_error(err, errlen, "\"%.*s\": a link is named A-B by its ends (e.g. S0-S4:0.5)", (int)n, name);
    }
    return rc < 0 ? -1 : 0;
}

/* A valid link name of t for error messages: its first link between
 * switches (or host 0's link). */
static void example_link(const topo *t, char *buf, size_t len)
{
    char a[128], b[128];
    for (uint32_t s = 0; s < t->switches; s++)
        for (uint32_t q = 0; q < t->ops->radix(t, s); q++) {
            topo_end e = t->ops->peer(t, s, q);
            if (e.kind == TOPO_SWITCH) {
                topo_node_name(t, 0, s, a, sizeof a);
                topo_node_name(t, 0, e.id, b, sizeof b);
                snprintf(buf, len, "%s-%s", a, b);
                return;
            }
        }
    uint32_t sw, port;
    t->ops->attach(t, 0, &sw, &port);
    topo_node_name(t, 1, 0, a, sizeof a);
    topo_node_name(t, 0, sw, b, sizeof b);
    snprintf(buf, len, "%s-%s", a, b);
}

/* network.degraded-links on t: factor[l] (links entries, preset to 1) of
 * every directed link between each named pair of nodes multiplied by its
 * factor (both directions of every link between A and B; a host's link
 * too); factor NULL: only checked. 0, or -1 + err. */
static int degraded_apply(const topo *t, const char *spec, double *factor, char *err, size_t errlen)
{
    const char *p = spec, *name;
    size_t n;
    double f;
    int rc;
    char e2[256];
    while ((rc = degraded_next(&p, &name, &n, &f, e2, sizeof e2)) == 0) {
        uint32_t a, b;
        int ha, hb;
        if (topo_link_name_split(t, name, n, &a, &ha, &b, &hb) != 0) {
            char ex[300];
            example_link(t, ex, sizeof ex);
            return tn_error(err, errlen,
                            "network.degraded-links: \"%.*s\" is not A-B with A and B two nodes of the %s (a link is "
                            "named by its ends as export-topology writes them: %s, e.g. %s:0.5)",
                            (int)n, name, t->ops->name,
                            topo_is_graph(t) ? "the DOT file's node names" : "switches S0.., hosts H0..", ex);
        }
        int any = 0;
        for (int side = 0; side < 2; side++) {
            uint32_t x = side ? b : a, y = side ? a : b;
            int hx = side ? hb : ha, hy = side ? ha : hb;
            if (hx) { /* a host's uplink toward y */
                uint32_t sw, port;
                t->ops->attach(t, x, &sw, &port);
                if (!hy && sw == y) {
                    any = 1;
                    if (factor)
                        factor[topo_link_up(t, x)] *= f;
                }
                continue;
            }
            for (uint32_t q = 0; q < t->ops->radix(t, x); q++) {
                topo_end e = t->ops->peer(t, x, q);
                if (e.id == y && (e.kind == TOPO_HOST) == (hy != 0)) {
                    any = 1;
                    if (factor)
                        factor[topo_link_out(t, x, q)] *= f;
                }
            }
        }
        if (!any)
            return tn_error(err, errlen, "network.degraded-links: \"%.*s\": the two nodes are not linked in the %s",
                            (int)n, name, t->ops->name);
    }
    return rc < 0 ? tn_error(err, errlen, "network.degraded-links: %s", e2) : 0;
}

void swnet_check_degraded(const swnet_params *p, const topo *t, param_report *rep)
{
    char err[1024];
    if (p->degraded_links[0] && degraded_apply(t, p->degraded_links, NULL, err, sizeof err) != 0)
        param_invalid(rep, "network.degraded-links", "%s", err + strlen("network.degraded-links: "));
}

/* The links of their own rate or latency (topo_ops.link_attr): lrate,
 * llat and lback, only when some link differs from the fabric's values
 * (else none: the default path is unchanged). */
static int link_attrs_init(swnet *st, const net_params *core, const swnet_params *p, char *err, size_t errlen)
{
    const topo *t = &st->t;
    double *factor = NULL; /* network.degraded-links */
    int any_rate = 0, any_lat = 0;
    if (p->degraded_links[0]) {
        factor = tn_xmalloc((size_t)st->links * sizeof *factor);
        for (uint32_t l = 0; l < st->links; l++)
            factor[l] = 1;
        if (degraded_apply(t, p->degraded_links, factor, err, errlen) != 0) {
            free(factor);
            return -1;
        }
        for (uint32_t l = 0; l < st->links; l++)
            any_rate |= factor[l] != 1;
    }
    for (uint32_t l = 0; t->ops->link_attr && l < st->links; l++) {
        double b;
        int64_t ps;
        if (!t->ops->link_attr(t, l, &b, &ps))
            continue;
        any_rate |= b > 0 && b != core->bandwidth_bps;
        any_lat |= ps >= 0 && ps != st->link_ps;
    }
    if (any_rate)
        st->lrate = tn_xmalloc((size_t)st->links * sizeof *st->lrate);
    if (any_lat) {
        st->llat = tn_xmalloc((size_t)st->links * sizeof *st->llat);
        st->lback = tn_xmalloc((size_t)st->links * sizeof *st->lback);
    }
    if (!any_rate && !any_lat) {
        free(factor);
        return 0;
    }
    st->lown = 1;
    st->port_slow = 1;
    for (uint32_t l = 0; l < st->links; l++) {
        double b = 0;
        int64_t ps = -1;
        if (t->ops->link_attr)
            t->ops->link_attr(t, l, &b, &ps);
        if (st->lrate)
            net_rate_init(&st->lrate[l], (b > 0 ? b : core->bandwidth_bps) * (factor ? factor[l] : 1));
        if (st->llat)
            st->llat[l] = ps >= 0 ? ps : st->link_ps;
    }
    for (uint32_t l = 0; st->llat && l < st->links; l++) {
        topo_end from, to;
        topo_link_ends(t, l, &from, &to);
        uint32_t rev = from.kind == TOPO_HOST  ? topo_link_down(t, from.id)
                       : to.kind == TOPO_HOST ? topo_link_up(t, to.id)
                                               : topo_link_out(t, to.id, to.port);
        st->lback[l] = st->llat[rev];
    }
    st->zl_links = tn_xmalloc(((size_t)t->max_route_links + 1) * sizeof *st->zl_links);
    free(factor);
    return 0;
}

/* What p's flow control and host scheduling make of the output ports
 * (head comment "Output buffers"): pFabric's SRPT heaps (lossy buffers,
 * not under credits), PFC, and whether the output-queued router's ports
 * are buffers at all. swnet_init and swnet_lossy read them here. */
static int sw_srpt(const swnet_params *p) { return p->nic.policy == NIC_SRPT && p->flow_control != SWNET_CREDIT; }
static int sw_pfc(const swnet_params *p)
{
    return p->flow_control == SWNET_PFC && !sw_srpt(p) && p->router == SWNET_OQ;
}
static int sw_buffered(const swnet_params *p)
{
    return (port_cfg_on(&p->buf) || sw_pfc(p)) && p->flow_control != SWNET_CREDIT && !sw_srpt(p) &&
           p->router == SWNET_OQ;
}

int swnet_lossy(const swnet_params *p)
{
    if (sw_buffered(p) && !sw_pfc(p) && (p->buf.buffer_bytes > 0 || p->buf.ecn == PORT_ECN_RED))
        return 1;
    /* under pfc only past a headroom given (it may be below the round trip,
     * which the attributes alone do not tell; the default never drops) */
    if (sw_pfc(p) && p->pfc_headroom)
        return NET_LOSSY_PFC;
    uint32_t count;
    const char *s = p->failed_links;
    while (tn_is_space(*s) || *s == ',')
        s++;
    /* fail-at needs failed links (swnet_check); a count of 0 fails none */
    if (p->fail_at_ps >= 0 && *s && !(topo_graph_failed_count(s, &count) && count == 0))
        return NET_LOSSY_FAILURES;
    return 0;
}

int swnet_lossy_op(const void *params) { return swnet_lossy(params); }

int swnet_init(void *state, net *n, topo *t, const swnet_params *p, char *err, size_t errlen)
{
    swnet *st = state;
    memset(st, 0, sizeof *st);
    st->t = *t;
    memset(t, 0, sizeof *t);
    st->n = n;
    const net_params *core = net_core(n);
    st->placement = p->placement;
    /* a count of failed links is drawn per replica from a copy of the
     * fabric's stream (the stream itself is left as without failures) */
    uint64_t fail_seed = 0;
    uint32_t nfail;
    int draw = topo_graph_failed_count(p->failed_links, &nfail) && nfail > 0 && !topo_is_graph(&st->t);
    if (draw) {
        gsl_rng *c = gsl_rng_clone(n->rng);
        fail_seed = (uint64_t)gsl_rng_get(c) << 32 ^ (uint64_t)gsl_rng_get(c);
        gsl_rng_free(c);
    }
    if (populate(core, p, &st->t, draw, fail_seed, err, errlen) != 0) {
        swnet_fini(st);
        return -1;
    }
    /* the routes' dependence on this run's stream: the drawn seed, or the
     * graph's drawn links (topo_graph.c draws them itself) */
    st->routes_key = draw ? fail_seed : 0;
    const char *gfail = topo_is_graph(&st->t) ? topo_graph_failed(&st->t) : NULL;
    for (const char *c = gfail; c && *c; c++)
        st->routes_key = (st->routes_key ^ (unsigned char)*c) * UINT64_C(1099511628211);
    st->fail_at_ps = -1;
    if (p->fail_at_ps >= 0 && topo_is_fail(&st->t)) {
        /* the links work until then (swnet_check refused what this cannot do) */
        st->fail_at_ps = p->fail_at_ps;
        topo_fail_activate(&st->t, 0);
        sim_schedule_at(net_sim(n), p->fail_at_ps, ev_fail, st, 0);
        if (swnet_lossy(p) == NET_LOSSY_FAILURES) /* a count of 0 fails no link */
            n->lossy = NET_LOSSY_FAILURES;
    }
    if (core->nodes != st->t.hosts) {
        tn_error(err, errlen, "system.nodes: N = %u, but the %s has %u hosts", core->nodes, st->t.ops->name,
                 st->t.hosts);
        swnet_fini(st);
        return -1;
    }
    TN_ASSERT(st->t.vcs >= 1 && st->t.vcs <= 255, "%s: %u VC classes", st->t.ops->name, st->t.vcs);
    st->hosts = st->t.hosts;
    st->links = st->t.links;
    net_rate_init(&st->rate, core->bandwidth_bps);
    st->link_ps = core->link_latency_ps;
    st->sw_ps = core->switch_latency_ps;
    if (link_attrs_init(st, core, p, err, errlen) != 0) {
        swnet_fini(st);
        return -1;
    }
    st->mtu = p->nic.mtu_bytes;
    st->credit = p->flow_control == SWNET_CREDIT;
    st->cap_bytes = (int64_t)p->vc_buffer_bytes;
    st->vcs = st->t.vcs;
    if (p->ci == SWNET_CI_DEST && p->router == SWNET_OQ) {
        if (st->t.vcs != 1) {
            tn_error(err, errlen, "network.congestion-isolation: the %s routes with %u deadlock classes (VCs); the "
                                  "isolation VC keeps the routing deadlock-free only where one class does (trees, "
                                  "leaf-spines, graphs)", st->t.ops->name, st->t.vcs);
            swnet_fini(st);
            return -1;
        }
        st->ci = 1;
        st->ci_vc = st->t.vcs;
        st->vcs = oq_vcs(p, &st->t);
        st->ci_thr = (int64_t)(p->ci_threshold_bytes ? p->ci_threshold_bytes : p->vc_buffer_bytes);
        st->ci_q = tn_xcalloc((size_t)st->hosts * NET_PRIO_CLASSES, sizeof *st->ci_q);
        st->ci_iso = tn_xcalloc((size_t)st->hosts * NET_PRIO_CLASSES, sizeof *st->ci_iso);
        st->ci_n = tn_xcalloc((size_t)st->hosts * NET_PRIO_CLASSES, sizeof *st->ci_n);
        st->ci_t = tn_xmalloc((size_t)st->hosts * NET_PRIO_CLASSES * sizeof *st->ci_t);
        for (size_t i = 0; i < (size_t)st->hosts * NET_PRIO_CLASSES; i++)
            st->ci_t[i] = INT64_MIN / 2;
        /* the notice's way back from a destination's port to the farthest source: every link of the
         * longest route but the last, every switch on it but the destination's */
        uint32_t L = st->t.max_route_links;
        st->ci_delay = p->ci_delay_ps >= 0 ? p->ci_delay_ps
                                           : (int64_t)(L > 1 ? L - 1 : 0) * st->link_ps +
                                                 (int64_t)(L > 2 ? L - 2 : 0) * st->sw_ps;
    }
    swnet_shape sh = shape_of(p, st->vcs);
    int classes = sh.nic;
    st->strict = sh.strict;
    st->pcv = sh.pcv;
    st->nclass = sh.nclass;
    st->npool = sh.npool;
    for (unsigned c = 0; c < NET_PRIO_CLASSES; c++)
        st->class_of_prio[c] = (uint8_t)(st->nclass > 1 ? c : 0);
    st->nq = st->nclass * st->vcs;
    st->pool_cstride = st->pcv ? st->vcs : 0;
    st->pick_ncl = st->strict ? st->nclass : 1;
    st->pick_nv = st->strict ? st->vcs : st->nq;
    /* pFabric's ports need its lossy buffers: with credits a starved packet
     * pins its upstream buffer (head comment) */
    st->srpt = sw_srpt(p);
    /* oblivious routings decide a hop from the packet's record alone */
    st->lookahead = !st->t.adaptive;
    st->salt_key = ((uint64_t)gsl_rng_get(n->rng) << 32) ^ (uint64_t)gsl_rng_get(n->rng);
    if (p->router == SWNET_IQ) {
        nic_init(&st->nic, st->hosts, &p->nic, classes);
        st->t_first_ps = st->t_last_ps = -1;
        st->bound = st->t.ops->uniform_bound(&st->t);
        st->energy_modelled = p->phy_resolved;
        if (p->phy_resolved) {
            st->serdes_link_j = p->serdes_link_j_per_bit;
            st->core_j = p->core_j_per_bit;
            double h = mean_hops(&st->t);
            st->energy_zero_j = (h + 1) * st->serdes_link_j + h * st->core_j;
        }
        if (iqr_init(st, p, err, errlen) != 0) {
            swnet_fini(st);
            return -1;
        }
        return 0;
    }
    st->stride = link_stride(p, &st->t);
    st->lk = tn_xalloc_big_raw((size_t)st->links * st->stride); /* written by lk_ready */
    nic_init(&st->nic, st->hosts, &p->nic, classes);
    /* every hop event is one link and one switch ahead: a lane (not when
     * links have latencies of their own) */
    st->arrive_lane = st->llat ? -1 : sim_lane(net_sim(n), st->link_ps + st->sw_ps, ev_arrive, st);
    if (st->arrive_lane >= 0 && (size_t)st->links * st->stride >= SIM_LOOKAHEAD_MIN_BYTES)
        sim_lane_prefetch(net_sim(n), st->arrive_lane, pf_arrive, SWNET_LOOKAHEAD, 2);
    st->pfc = sw_pfc(p);
    st->buffered = sw_buffered(p);
    st->pick_mode = st->srpt ? 1 : st->pfc ? 2 : 0;
    if (st->buffered) {
        st->buf = p->buf;
        st->bq = tn_xcalloc(st->links, sizeof *st->bq);
        st->qsw = tn_xcalloc(st->t.switches ? st->t.switches : 1, sizeof *st->qsw);
        if (swnet_lossy(p) == 1)
            n->lossy = 1;
    }
    if (st->pfc) {
        st->pfc_xoff = p->pfc_xoff;
        st->pfc_xon = p->pfc_xon;
        st->pvcs = st->vcs;
        st->nprio = st->nclass * st->vcs;
        if (st->nprio > SWNET_PFC_PRIOS) {
            tn_error(err, errlen, "network.flow-control: pfc on %s needs %u pause priorities (%u classes x %u VCs): "
                     "IEEE 802.1Qbb has %u", st->t.ops->name, st->nprio, st->nclass, st->vcs, SWNET_PFC_PRIOS);
            swnet_fini(st);
            return -1;
        }
        /* xoff + headroom per ingress link: the given headroom, or the
         * pause's round trip over that link (head comment) */
        st->pfc_lim = tn_xcalloc(st->links, sizeof *st->pfc_lim);
        for (uint32_t l = 0; l < st->links; l++) {
            uint64_t rt = swnet_pfc_headroom(lat_of(st, l), back_of(st, l), st->sw_ps,
                                             st->lrate ? st->lrate[l].bps : st->rate.bps, st->mtu) +
                          (st->lrate ? 2 * st->mtu : 0);
            uint64_t h = p->pfc_headroom ? p->pfc_headroom : rt;
            st->pfc_lim[l] = p->pfc_xoff + h;
            if (p->buf.buffer_bytes && (uint64_t)st->nprio * st->pfc_lim[l] > p->buf.buffer_bytes) {
                tn_error(err, errlen, "network.buffer: under pfc each of a port's %u pause priorities may hold "
                         "pfc-xoff + headroom = %llu B on link %u (its own latency or rate), more than %llu B in all",
                         st->nprio, (unsigned long long)st->pfc_lim[l], l, (unsigned long long)p->buf.buffer_bytes);
                swnet_fini(st);
                return -1;
            }
        }
        if (swnet_lossy(p) == NET_LOSSY_PFC)
            n->lossy = NET_LOSSY_PFC; /* a packet may find its headroom exhausted */
        size_t k = (size_t)st->links * st->nprio;
        st->ingress = tn_xcalloc(k, sizeof *st->ingress);
        st->xoff_sent = tn_xcalloc(k, 1);
        st->paused_at = tn_xcalloc(k, sizeof *st->paused_at);
        st->paused = tn_xcalloc(st->links, 1);
    }
    st->t_first_ps = st->t_last_ps = -1;
    st->bound = st->t.ops->uniform_bound(&st->t);
    st->energy_modelled = p->phy_resolved;
    if (p->phy_resolved) {
        st->serdes_link_j = p->serdes_link_j_per_bit;
        st->core_j = p->core_j_per_bit;
        double h = mean_hops(&st->t);
        st->energy_zero_j = (h + 1) * st->serdes_link_j + h * st->core_j;
    }
    return 0;
}
