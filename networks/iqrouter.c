/* The input-queued virtual-channel router of the switched fabrics
 * (network.router = "input-queued"). Contract in iqrouter.h.
 *
 * Model: BookSim2's input-queued router (Dally and Towles, "Principles and
 * Practices of Interconnection Networks", 2004, chapters 16-19; BookSim2's
 * routers/iq_router.cpp, whose parameter names we keep), on the switched
 * core's topologies (topo.h), hosts (host_nic.h) and units. Times are
 * integer ps; a flit of f = network.flit-size bytes takes T = f 8 / B on a
 * link, the flit time (BookSim2's cycle: 1 B flits at 8 Gb/s give 1 ns).
 *   Clock. Every router acts at multiples of T only (its "ticks"), as
 *     BookSim2's routers act once per cycle; an event falling between two
 *     ticks is seen at the next. A flit sent on a link at tick w (its first
 *     bit) is whole at the far end at w + T + link and takes part in the far
 *     router's tick from then (flit-level store and forward: a router reads
 *     whole flits).
 *   Flits and packets. The host NIC cuts messages into packets of at most
 *     network.mtu bytes (swnet.c); a packet of b bytes is F = max(1,
 *     ceil(b / f)) flits, the first its head, the last its tail. No header
 *     flit is added (a 1-flit packet of 1 B is BookSim2's 1-flit packet).
 *   Virtual channels. Every input port has V = classes x vcs VCs (classes:
 *     the routing's deadlock classes, topo.h; vcs: network.vcs per class),
 *     each a FIFO of vc-buffer / f flits. A packet whose route asks class c
 *     may take any of VCs c vcs .. c vcs + vcs - 1 of the next buffer, and
 *     any of the V toward a host (BookSim2's ejection: hosts sink every
 *     flit, no class is needed there). An
 *     output port has an output VC per VC of the buffer it feeds: its owner
 *     (the input VC whose packet holds it, from VC allocation until its tail
 *     has crossed the crossbar) and its credits.
 *   Pipeline of a head flit at the front of its input VC (whole there at a):
 *     route computation ends at a + routing-delay (the topology's `next`,
 *     with its adaptive choice below); it then requests VC allocation: the
 *     free output VCs of its class at the chosen output; a grant is known
 *     vc-alloc-delay after the request, a refusal too, and the packet then
 *     requests again (a packet losing an allocation waits the delay again);
 *     with an output VC it requests switch allocation, again known
 *     sw-alloc-delay after the request; a granted flit crosses the crossbar
 *     in st-delay and goes on the link. Body and tail flits request switch
 *     allocation as soon as they are at the front and their VC's previous
 *     flit was granted (one per flit time). An input VC holds one packet at
 *     a time: the next head behind a tail starts route computation at the
 *     tick after that tail was granted (BookSim2's VC states: idle, routing,
 *     vc_alloc, active).
 *   Allocation. Each tick the router allocates output VCs among the heads
 *     waiting for one, then the crossbar among the VCs with a flit ready and
 *     credit for it. network.allocator: separable-input-first (each input
 *     picks one request by a round-robin pointer over its VCs, then each
 *     output one of the inputs that picked it by a round-robin pointer over
 *     the inputs; pointers move past the winners) or islip (McKeown, IEEE/ACM
 *     ToN 1999: each output grants the requesting input nearest its pointer,
 *     each input accepts the granting output nearest its; pointers move only
 *     on acceptance in the first iteration); network.allocator-iterations
 *     rounds among the inputs and outputs still unmatched. VC allocation's
 *     inputs are input VCs and outputs output VCs; switch allocation's are
 *     ports, and an input port's requests to one output are first narrowed to
 *     one VC by a round-robin pointer of that input (islip). The crossbar
 *     moves at most one flit per input port and per output port per tick.
 *   Credits (credit flow control; BookSim2 counts credits per flit). The
 *     sender of a link knows the free flits of every VC of the buffer the
 *     link enters. Wormhole: a flit may be granted with one credit;
 *     cut-through (network.switching): a head only when the whole packet's
 *     flits are free in the VC (virtual cut-through, Kermani and Kleinrock
 *     1979), its other flits then always have theirs. A flit granted at tick
 *     x leaves its input buffer at x + sw-alloc-delay; the credit reaches the
 *     upstream sender credit-delay + link later (with speedup, later still:
 *     "Internal speedup" below). Buffers toward hosts take every flit
 *     (BookSim2's ejection).
 *   Sources. A host's NIC (network.host-scheduling) names its next packet;
 *     the host sends it flit by flit on its uplink, one per flit time, in
 *     an input VC of its switch (any of the V: an injection buffer is on no
 *     cycle of channel dependencies, whatever its class), chosen round
 *     robin from the one after its last among those with credit
 *     (cut-through: room for the packet), as BookSim2's sources do
 *     (trafficmanager.cpp: the first available VC after the last used).
 *     A host decides at every flit time at which it can send: a message
 *     handed to it with no packet on its uplink is named at the first
 *     flit time from then (if a VC has room for it, it goes then).
 *   Routing: the topology's `next` at route computation; with several
 *     candidates: torus minimal adaptive takes the adaptive candidate with a
 *     free output VC that has room for the packet (credits for its flits,
 *     at most a buffer's) and the most credits, else the DOR escape; when
 *     the candidate it asks for has no such VC at a VC allocation request,
 *     the choice is made again then, among the same candidates (BookSim2's
 *     route set keeps every candidate, routefunc.cpp min_adapt_torus: the
 *     adaptive VCs and the escape, and iq_router.cpp's VC allocation asks
 *     for every available VC of it each cycle). The packet's record moves on
 *     (topology `take`) when its head wins the output VC. Duato's protocol
 *     (IEEE TPDS 1993; 1995 for cut-through) needs both rules: a head
 *     blocked on adaptive VCs held by others must be able to take the
 *     escape, and a packet holding an adaptive VC must not wait for the
 *     credit of a buffer another packet fills (with VCs granted before
 *     they drain, a cycle of such packets is a deadlock that no escape can
 *     break); i24prio's 4x4 stress case stuck in 9 of 60 seeds without
 *     either (check_iqrouter test_adaptive_torus_escape). Dragonfly
 *     UGAL compares (flits held in the next buffers) x hops of the minimal
 *     and the Valiant first hop (topo_ugal_minimal), as BookSim2's
 *     credit-count UGAL; fat tree anca takes, of its two up ports, the one
 *     whose next buffer holds fewer flits (used credits, all VCs), the
 *     first on a tie (BookSim2's fattree_anca compares GetUsedCredit).
 *   Deadlock freedom: the topology's classes (topo.h); a packet holds
 *     output VCs only of its class order, as the output-queued core.
 *   Internal speedup (network.speedup = S; BookSim2's internal_speedup,
 *     routers/router.cpp Evaluate: _InternalStep runs S times a cycle, with
 *     input_speedup = output_speedup = 1 and unbounded output buffers,
 *     output_buffer_size = -1, as examples/dragonflyconfig sets them): the
 *     router steps every Tr = T / S (route, VC and switch allocation and the
 *     crossbar, each input and each output at most one flit per step, so up
 *     to S per flit time); a flit that crossed joins its output's buffer,
 *     which sends one flit per flit time on the link at flit-time edges
 *     (BookSim2's _SendFlits, once a cycle): on the first edge at or after
 *     its crossing not yet taken. Its downstream credit was taken at switch
 *     allocation, so the buffer needs no bound. A BookSim2 stage of 1 cycle
 *     at speedup S is one step: a delay of Tr (its update runs in the step
 *     of its evaluation). Credits go back the same way, at most one per
 *     input port per flit time, at flit-time edges: the credit of a flit
 *     that left an input buffer at `leave` is sent at the first edge at or
 *     after `leave` not yet taken by that input port's credits, in the
 *     order the flits left, and reaches the sender credit-delay + link
 *     after that edge (credit_send). Source, routers/iq_router.cpp: the
 *     flits leaving an input in one internal step put their VCs in one
 *     Credit (_SWAllocUpdate, _out_queue_credits[input]), which the step's
 *     end queues on the input's _credit_buffer (_OutputQueuing);
 *     WriteOutputs' _SendCredits, once a cycle, sends only the front Credit
 *     of each input's queue. With one crossbar port per input
 *     (input_speedup 1) a Credit carries one flit, so an input that lost a
 *     flit in each of a cycle's S steps sends their credits in S cycles;
 *     at 1 cycle = T a step's end maps to its `leave` and the cycle's end to
 *     the next edge, as at speedup 1 (credit_delay c = credit-delay
 *     (c + 1) T). A flit lost to a failed link (iq_kill) gives its credit
 *     back under the same rule, as if it had left then. S = 1 is the router
 *     above unchanged (an input port loses at most one flit a tick: the
 *     rule never binds, credit_send keeps `leave`).
 *   Link latencies: host links network.host-link-latency, the dragonfly's
 *     links between groups network.global-link-latency (both directions),
 *     every other link network.link-latency (BookSim2's dragonfly.cpp with
 *     DRAGON_LATENCY: 10 cycles inside a group, 100 between groups).
 *   Switch latency (network.switch-latency; one rule for every fabric
 *     under this router): it joins st-delay at every switch, a pure delay
 *     between a flit's switch allocation and its first bit on the output
 *     link (iqr_init: stx = st-delay + switch-latency), so a lone packet
 *     crossing h switches takes h x switch-latency more (the zero load
 *     below, D with it). Not in the allocation stages: those hold the
 *     packet's input VC, and hundreds of ns there would cap an input at one
 *     packet per that time where the output-queued router's switch latency
 *     occupies nothing. Its default is each fabric's own: the switched
 *     fabrics' row (swnet.h SWNET_ROW_SWITCH_LATENCY) is 0 when not given,
 *     as BookSim2's routers have no such term (the pipeline delays are the
 *     router), while the output-queued router on the same fabric keeps the
 *     core's 200 ns; the single electrical switch hands over the core's
 *     value (200 ns by default: the same switch under both routers,
 *     net_switch.c). A value given (attribute, --set, axis) reaches both
 *     rows, so a sweep over network.router compares the two routers with
 *     the same switch latency. Before this rule the switched fabrics
 *     ignored the parameter under this router; every run that did not set
 *     it is unchanged.
 *   Links of their own rate (a graph's edge attribute bandwidth,
 *     network.degraded-links; topo_ops.link_attr and swnet.c's lrate): a
 *     link at f times the fabric's rate B takes T_l = 8 flit-size / (f B), rounded
 *     up to a whole ps as every serialisation (net_rate_ps), per flit. Not
 *     from BookSim2, whose channels all carry a flit per cycle; the rule is
 *     ours: the link keeps lnext, the earliest start of its next flit. A
 *     flit handed to it at a tick whose first bit is ready at w (now + sa +
 *     st; a host's at its tick) starts at s = max(w, lnext), is whole at the
 *     far end at s + T_l + link, and lnext becomes s + T_l; a tick may hand
 *     it a flit only if s comes before the next tick's w + T (switch
 *     allocation holds the request back otherwise, and the router ticks
 *     again when it can start). So a busy link sends back to back at its
 *     own rate in exact time, and the ticks only pick which flit: in budget
 *     terms, a budget growing by f per flit time sends when it reaches 1
 *     within the coming flit time, the remainder carried (f = 0.4: flits at
 *     0, 2.5, 5, 7.5 ns handed over at the ticks 0, 2, 5, 7 of a 1 ns T,
 *     0.4 flit per T; waiting for whole ticks, ceil(1 / f) = 3, would give
 *     1/3). f = 1 is the router above unchanged (s = w); f = 1/k sends every
 *     k-th tick. A link faster than B carries its flit in its own T_l but
 *     still one per tick. With speedup the output buffer starts a flit at
 *     max(the flit-time edge, lnext) likewise. Zero load with such links
 *     (iqr_zero_load_route_ps): stage i (0 the source host, then the h
 *     switches) sends on link i (P_i = max(T_l,i, T) apart, latency lat_i);
 *     the head's first bit leaves stage i at w_i,0 = w_i-1,0 + T_l,i-1 +
 *     lat_i-1 + D, flit j's at w_i,j = max(w_i-1,j + T_l,i-1 + lat_i-1 +
 *     E, w_i,j-1 + P_i), E = sa + st (a body flit's pipeline); the longest
 *     path of that max-plus lattice takes every stage step at the head (D >=
 *     E) up to some stage m, the F - 1 flit steps at m, then the stage steps
 *     at the tail, so the tail is whole at the host at
 *       max_m [ sum_{i<m} (T_l,i + lat_i + D) + (F - 1) P_m
 *               + sum_{m<=i<h} (T_l,i + lat_i + E) ] + T_l,h + lat_h,
 *     exact for one packet whose times are all on the grid of T (f = 1/k),
 *     a lower bound otherwise; with every T_l = T it is the formula below.
 *   Links failing during the run (network.fail-at; swnet.c's ev_fail turns
 *     the topology's failed links off, topo_fail.c, and calls iqr_fail).
 *     BookSim2 has no runtime failures (its links are fixed at
 *     construction), so these rules are ours, chosen so that nothing is
 *     held for ever and every credit comes back:
 *     - a packet that holds an output VC of a failed link (its head
 *       committed to it: the route record moved on at the VC grant), or
 *       has a flit on one (not whole at the far end at fail-at; with
 *       speedup or a link of its own rate, also a flit waiting to start on
 *       it), is lost whole, counted once in lost_packets: iq_kill removes
 *       every flit of it from every input VC it is in (downstream along the
 *       output VCs its head took, upstream along the owners of the output
 *       VCs feeding them, and its host stops sending it), gives each
 *       removed flit's credit back to the VC's sender as if the flit had
 *       left then (sw-alloc-delay + credit-delay + the way back), and
 *       frees every input and output VC it held; a wormhole packet whose
 *       head passed and whose body is cut so leaves no VC held; its
 *       message is reported lost to the transport (once its last packet is
 *       gone), which sends it again;
 *     - a head routed before the failure that holds no output VC yet is
 *       routed again from where it is (its record has not moved on);
 *     - from then on `next` is the failed topology's (trees climb another
 *       way, a graph's computed tables are the new ones, a torus's or
 *       dragonfly's record fixed at the source may have no way on): a
 *       packet with no candidate where it is routed is lost at its VC
 *       allocation request, as above.
 *     Flits whole at the far end by fail-at stay (a packet whose tail
 *     crossed before the failure goes on; the credits of the dead link's
 *     buffer then still come back, so the counts are full at the end).
 *   Priority classes (net_msg.prio, when the hosts serve classes:
 *     host-scheduling priority or network.priority strict). network.vc-map
 *     per-class (the default): every class has a group of VCs of its own
 *     (V = NET_PRIO_CLASSES x deadlock classes x vcs; a packet of class k
 *     takes only group k's, toward hosts too, and its host injects only
 *     into them), so a packet never waits for a VC or a credit another
 *     class holds; a host sends the first class, in class order, with an
 *     injection VC that has room for it (a class out of credit blocks no
 *     other; a packet on the uplink is never preempted). shared: the
 *     classes share the deadlock classes' VCs (the historical single group).
 *     network.priority strict: both allocators match the lowest class's
 *     requests first (all iterations), then the next class's among the
 *     inputs and outputs still free (BookSim2's separable allocators hand
 *     each request a priority that every arbiter compares before its
 *     round-robin pointer, src/allocators/separable_input_first.cpp; a
 *     matching round per class gives the higher class the same precedence
 *     at every input and output); iSLIP's narrowing of an input's requests to
 *     one output picks the lowest class, then round robin. fifo: round
 *     robin across classes.
 *   Not modelled: speculation, input and output speedup (crossbar ports per
 *     input or output beyond one), bounded output buffers, flow-control
 *     infinite (refused: the input VC buffers are the model).
 *
 * Zero load (iqr_zero_load_h_ps): one packet of F flits alone over h
 * switches, D = routing + vc-alloc + sw-alloc + st delays, each a multiple
 * of T, link a multiple of T: its head is whole at the first switch at
 * T + link, leaves each switch D after it is whole there and is whole at
 * the next T + link later; the tail follows (F - 1) T behind (a VC buffer of
 * at least F flits whose credit round trip is covered), so the tail is
 * whole at the destination at
 *   (h + 1)(T + link) + h D + (F - 1) T.
 * Times not on the grid of T are rounded up to it at every tick (the
 * formula then is a lower bound), as are messages of several packets,
 * whose packets may wait for the VC behind the one before.
 *
 * Events: a router ticks only when one of its input VCs can act (a flit
 * becomes whole, a delay ends, a credit it waits for arrives): per packet
 * and hop about one tick per pipeline stage and one per flit crossing, per
 * flit time only while flits stream or contend. A flit's crossing is no
 * event: it is written at once into the next input VC with the time it is
 * whole there, and the next router is asked to tick then. Credits come back
 * lazily: a FIFO of arrival times per output VC, added when the sender
 * looks (they arrive in time order); a sender whose VC waits for a credit
 * not yet on its way is ticked by its return.
 *   Order of events at one time (canonical): the fabric moves in steps, one
 *   engine event per multiple of Tr while anything in it is due (the next
 *   scheduled by the step before; when nothing is due, by the first thing
 *   asked; when W steps in a row found nothing due, by the last of them for
 *   the first step something is due at: step_skip, so a wait of a long
 *   switch-latency costs W steps, not one per flit time). A step at t runs the hosts due at t in host order, then the
 *   routers due at t in router order, then schedules the delivery events of
 *   the messages whose last tail is whole at its host in (t, t + Tr], in
 *   host order (so equal-time deliveries go in host order, and all of them
 *   before the step at their time; they go through a lane at absolute
 *   times, sorted by time stably, which keeps exactly that order: iqr's
 *   `dlane`). A host or router acts at most once per
 *   step, and nothing one does at t is seen by another before t + the
 *   shortest credit or flit delay (iqr_check keeps it positive), so the
 *   order inside a step decides only the order of the delivery events and
 *   of the floating-point sums over messages, which are therefore made in
 *   delivery order (hops) or from integer counts (energy). A tick is a bit
 *   in a wheel of W slots (calendar_init); a tick asked W or more steps
 *   ahead waits in its slot for its turn. Before this order (main before
 *   2026-11-27 18:30) ticks were engine events ordered by when they were
 *   asked: every input-queued result moved once, by that order only (means
 *   within their seed noise; the hand-derived tests unchanged).
 *   Due VCs: each active input VC keeps `due` (adue[], beside its place in
 *   the active list, so that a tick reads one array to find the VCs it
 *   visits), a step before which no tick
 *   can find it anything to do, and a tick visits only the VCs due by its
 *   step (its route, VA and SA requests, then their next due times by
 *   vc_due); the router's next tick is the least `due` of its active VCs.
 *   Why nothing changes: a VC's request at a tick depends on its own flits,
 *   stage time (ready), and the credits of the output VC it holds, and on
 *   no other input VC (the output VCs' owners matter only to VA requests,
 *   which are made at `ready` whatever else happened, and a VC that loses
 *   asks again at its next delay). What vc_due computed at its last visit
 *   stays its answer until one of three things happens outside its tick:
 *   a flit written into it while empty (flit_in sets `due` to the flit's
 *   time, or its route's with an oblivious routing), a credit it waits for
 *   put on its way (credit_back lowers the owner VC's `due` to the
 *   credit's time, as it asks the router's tick), or a failure (iqr_fail:
 *   kills and re-routes change VCs anywhere, so from then on every tick
 *   visits every active VC, as do routers with links of their own rate,
 *   whose link gate moves with other VCs' grants). A VC visited early does
 *   nothing (each request tests its own times and credits), so an early
 *   `due` costs a visit and a late one is never set: the same requests at
 *   the same steps, the same active-list order (a VC leaves it only at its
 *   own visit, as before), the same ticks' times up to ticks that find
 *   nothing to do. Only the iqr_stats counter link_waits (requests held
 *   back for a link of its own rate, counted per visit) and the ticks count
 *   visits; credit_waits counts the times vc_due finds a VC with a flit
 *   ready short of credit (so it waits for a credit's return).
 *   Route table: with a routing that decides a hop from the destination
 *   (topo_ops dst_routed/next_dst: the torus's dor without a twist, the fat
 *   tree's d-mod-k and random-up's down hops), route
 *   looks the hop up in a table per (switch, destination), filled on first
 *   use from next_dst, instead of calling `next`; where the topology says
 *   the hop depends on the packet's record (a tie's direction drawn from
 *   the salt, a ring dateline class the source decides) the entry says so
 *   and `next` is asked with the record. `take` is called on every hop
 *   as before, so the record stays true. The same hop, so the same
 *   results; bounded to RT_MAX_ENTRIES (a table past a core's L2 cache
 *   misses more than `next` costs: a 32x32 torus has none) and dropped at
 *   a failure.
 *   Route words: with a routing whose every hop follows from the switch,
 *   the destination and a word fixed at the source (topo_ops rec_word,
 *   next_word: the torus's dor without a twist, whose word keeps each
 *   dimension's direction, a tie's included, and its ring dateline class),
 *   a packet keeps that word (rec_word at the source, instead of hdr_init's
 *   record) and route asks next_word where the table says "ask next" or
 *   where there is no table; `take` is not called. next_word's hop is
 *   `next`'s on the record at every switch of the route (topo_torus.c,
 *   above rec_word), so the same hops and the same results. Not with links
 *   failing during the run (iqr_fail routes again from the records). The
 *   IQ_RTAB_CHECK build keeps the record too and compares every table hit
 *   and every word's hop with `next`'s.
 *   Packet facts: what a hop reads of its packet (destination, route word,
 *   flits, class, the switches its head crossed before, its candidate's
 *   kind) is kept in the input VC that serves it (iq_ivc, one 64-byte
 *   line), taken when its head is routed there: from the VC it left when
 *   its head is routed as it arrives (flit_in, the common case), else from
 *   the packet, whose hop count is then written as its head arrives. So a
 *   hop touches the packet only to pass its pointer on (on a large fabric
 *   a packet's line is rarely still cached by its next router's tick).
 *   The same values, so the same results. A packet's hops (net.packet_hops,
 *   the energy's switch crossings) are the switches its head crossed, its
 *   tail's before 2026-11-28: the same count for every delivered packet.
 * Watchdog (no progress): a fabric that deadlocks (a routing whose channel
 * dependencies close a cycle in its classes, a model bug, an imported
 * fabric past the static checks: topo_graph.c's cycles, swnet.c's PFC
 * refusals) would step for ever (a head losing VC allocation asks again
 * every vc-alloc-delay), the clock's 2^62 ps never reached in wall time.
 * So ev_step looks every bound / 4 (one compare per step otherwise): when
 * packets are in the fabric and no flit has crossed a switch, no packet
 * has left a host and none was lost (s.flits + packets + lost_packets
 * unchanged) for the bound, the run stops with a run error (net_fault)
 * naming a few stuck input VCs: switch, input port, VC, the packet's
 * source and destination, the output VC it holds and waits for a credit
 * of, or the output whose VCs it waits for and their holder. The bound:
 * in a deadlock-free state some packet waits for nothing held (or holds
 * what it waits for only until a flit in flight arrives), so some flit
 * crosses a crossbar within one per-hop loop: a flit's trip on the link
 * (T_l <= Tmax, the slowest link's flit time, + Lmax, the longest link or
 * host link latency), its pipeline at the next switch (rd + va + sa +
 * st-delay + switch-latency), the credit's way back (cd + Lmax), grid
 * rounding (at most T per tick, 4 T in all), and with speedup an output
 * buffer draining or an input's credits queued at one per flit time, at
 * most V x depth flits each (2 V depth Tmax); packet lengths do not enter
 * (a packet streaming crosses a flit per flit time). The bound is 64 such
 * loops, capped at 2^60 ps: 64 x (2 V depth Tmax + 2 Lmax + rd + va + sa
 * + st + switch-latency + cd + 4 T). The run stops between bound and 5/4
 * bound after the last move. No result of a run that ends moves: the look
 * reads counters only (check_iqrouter test_deadlock_watchdog; /work/eq
 * and bench/iqr-diff.sh unchanged).
 * No malloc in the event loop once warm: packets come from a free list
 * grown by chunks; buffers, credit FIFOs, allocator scratch and the wheel
 * are sized at init. Memory: per switch port V (98 + 24 depth) bytes plus
 * 16 for pointers, per host V (16 + 8 depth), the wheel W (switches + 2
 * hosts) / 8. */
#include "iqrouter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "metrics.h"

#define NONE UINT32_MAX
/* net_msg.aux's flag of a message that lost a packet (swnet.c's MSG_DROPPED; here in the packet count's
 * half, bit 31: a message has fewer packets) */
#define MSG_DROPPED (UINT64_C(1) << 31)
#define HOSTBIT 0x80000000u
#define POOL_CHUNK 256

enum { VC_IDLE = 0, VC_ROUTING = 1, VC_VA = 2, VC_ACTIVE = 3 };

typedef struct iq_pkt {
    union {
        struct iq_pkt *next; /* free list */
        net_msg *msg;        /* in use */
    };
    uint32_t bytes;
    uint32_t nflits;
    uint32_t hops; /* switches its head crossed, as of when it was last written (vc_take's) */
    uint8_t cls;   /* its priority class at the fabric (0 first; 0 when the fabric has one class) */
    uint32_t word; /* route words (q->words): its topo_ops.rec_word */
    topo_hop hop;  /* the candidate its head asks for at its current router (taken at the VC grant) */
    topo_hdr hdr;  /* (what a hop reads of a packet, hdr.dst included, is in its first 64 bytes) */
} iq_pkt;
_Static_assert(sizeof(iq_pkt) == 128, "a packet is two cache lines");

typedef struct iq_flit {
    int64_t t;    /* whole in this buffer */
    iq_pkt *p;    /* its packet */
} iq_flit;

/* an input VC: a ring of flits and its packet's state; one 64-byte line
 * (iqr.ivc is aligned to 64), so that a hop reads its packet's facts here
 * and not from the packet (head comment "Packet facts") */
typedef struct iq_ivc {
    iq_flit *buf;      /* its ring of depth flits (in iqr.ring) */
    int64_t ready;     /* the current stage's request may be made (VC_ROUTING: its route is known) */
    uint32_t head, n;  /* ring: front index, flits held */
    uint32_t sent;     /* flits of its packet granted so far (the front flit's index) */
    uint32_t act;      /* position in the router's active list, NONE */
    /* its packet's facts, from the routing of its head here (vc_take) to its tail's grant: */
    uint32_t dst, word; /* destination host, route word (iq_pkt's hdr.dst, word) */
    uint32_t nflits;   /* flits */
    uint32_t hops;     /* switches its head crossed before this one */
    uint16_t out;      /* after routing: output port at this router (OUT_NONE: no way on) */
    uint16_t vc_base;  /* first VC of the class asked for */
    uint16_t nvc;      /* VCs it may take from vc_base: vcs, or all V toward a host */
    uint16_t pin, vin; /* its input port at its router and its VC (fixed) */
    uint16_t out_vc;   /* after VC allocation: output VC (< V) */
    uint8_t state;
    uint8_t kind;      /* its route's candidate kind (topo_hop.kind) */
    uint8_t cls;       /* its priority class (iq_pkt.cls) */
    uint8_t host;      /* after routing: 1 if its output enters a host (peer's HOSTBIT, read once a hop) */
} iq_ivc;
#define OUT_NONE UINT16_MAX
/* the tick's lean copies (above router_tick, "The tick's copies"): iqr.lean */
enum { LEAN_IF = 1, LEAN_ISLIP = 2, LEAN_ALLOC = 3, LEAN_V2 = 4 }; /* LEAN_ALLOC: the allocator's bits */
_Static_assert(sizeof(iq_ivc) == 64, "an input VC is one cache line");

/* an output VC at a sender: owner and credits */
typedef struct iq_ovc {
    int64_t front;    /* cn > 0: its credit FIFO's front entry (cring[ch]), kept here so that a sender's look
                         at its credits reads this line alone while the front one is still on its way */
    int32_t credits;  /* free flits of the buffer it feeds, credits on their way excluded */
    uint32_t owner;   /* the local input VC holding it, NONE: free */
    uint32_t ch, cn;  /* credit FIFO: front, entries */
    uint8_t waiting;  /* the sender waits for a credit not yet on its way */
} iq_ovc;

typedef struct iq_router {
    int64_t tick_at;  /* pending tick (its bit in the step calendar), INT64_MAX: none */
    uint32_t tslot;   /* its slot */
    uint32_t x0;      /* global index of its port 0 */
    uint32_t radix;
    uint32_t nact;    /* active input VCs */
} iq_router;

typedef struct iq_host {
    int64_t tick_at;
    iq_pkt *p;        /* packet on its uplink, NULL */
    uint32_t sent;    /* its flits sent */
    uint32_t x;       /* global index of the switch port it enters */
    uint16_t vc;      /* its VC */
    uint16_t rr;      /* next VC tried */
    int64_t last_ps;  /* its last flit went on the uplink */
} iq_host;

typedef struct iq_req {
    uint32_t in, out, key, who;
    uint32_t prio; /* the requesting packet's class (strict allocation: lower first) */
} iq_req;

typedef struct iqr {
    swnet *st;
    uint32_t X;          /* switch ports */
    uint32_t V;          /* VCs per port */
    uint32_t vpc;        /* VCs per deadlock class */
    uint32_t ninj;       /* VCs a host injects into: all V (BookSim2 injects into any), or its priority class's */
    uint32_t pcls;       /* priority classes with VCs of their own: 1 (shared), or NET_PRIO_CLASSES (per-class) */
    uint32_t vgrp;       /* VCs of one priority class: deadlock classes x vpc (V with one) */
    int classes;         /* 1: packets carry their class (the hosts serve classes) */
    int strict;          /* 1: the allocators serve the lowest class first (network.priority strict) */
    uint32_t depth;      /* flits per VC buffer */
    uint32_t maxr;       /* largest radix */
    int64_t T;           /* flit time, ps */
    int64_t Tr;          /* a router's step: T / network.speedup */
    uint64_t flit;       /* bytes */
    int64_t rd, va, sa, stx, cd, link, hlink; /* hlink: host links' latency */
    int64_t *hup;        /* [hosts] the hosts' uplinks' latencies when some link has its own (topo_ops.link_attr),
                            else NULL: all at hlink */
    int wormhole;
    int islip;
    int oblivious;       /* 1: one candidate per hop (routed as a head becomes whole) */
    int duescan;         /* 1: every tick visits all its active VCs (after a failure; links of their own rate
                            always do: router_tick_k's `rates` copy) */
    int sa_grid;         /* 1: a flit a switch sends at a step is whole at the next switch at a step (sa + st +
                            T + link a multiple of Tr, every switch-to-switch link at link: !varies) */
    int lean;            /* the tick compiled for the common case (above router_tick, "The tick's copies"): LEAN_IF,
                            LEAN_ISLIP, or 0: the general tick */
    uint32_t *rtab;      /* [switches hosts] the route table (head comment "Route table"), NULL: none */
    int words;           /* 1: route words (head comment "Route words"): next_word instead of next, no take */
    int varies;          /* 1: some switch-to-switch link's latency is not q->link (dragonfly global links) */
    unsigned iters;
    iq_router *r;        /* [switches] */
    uint32_t *peer;      /* [X] what the output of port x enters: a port index, or HOSTBIT | host */
    uint32_t *rid;       /* [X] the switch of port x */
    int64_t *olink;      /* [X] latency of the output link of port x (host-link, global or link latency) */
    int64_t *out_free;   /* [X] speedup > 1: the output link is free from then (its output buffer drains) */
    int64_t *cfree;      /* [X] speedup > 1: input port x's credit return is free from then (one credit a flit
                            time, at flit-time edges: credit_send), else NULL */
    /* links of their own rate (topo_ops.link_attr bandwidth, network.degraded-links; head comment "Links of
     * their own rate"), else NULL: */
    int64_t *lT;         /* [X + hosts] a flit's time on link x (switch output x, host h's uplink X + h) */
    int64_t *lnext;      /* [X + hosts] the earliest start of the link's next flit */
    int lgate;           /* 1: lT and speedup 1: switch allocation offers an output only when its link can start */
    iq_ivc *ivc;         /* [X V] */
    iq_flit *ring;       /* [X V depth] */
    iq_ovc *ovc;         /* [X V] switch outputs, then [hosts V] host uplinks */
    int64_t *cring;      /* [(X + hosts) V depth] credit arrival times */
    uint32_t *act;       /* [X V] active lists, a router's at x0 V */
    int64_t *adue;       /* [X V] beside act: the VC at that place can find nothing to do before (head
                            comment "Due VCs"; vc_due's value, or a flit's or a credit's time since) */
    uint16_t *va_in, *va_out, *sa_in, *sa_out, *sa_vc; /* round-robin pointers */
    uint64_t *busy;      /* [X + hosts] flits sent on each link */
    iq_host *h;          /* [hosts] */
    iq_pkt *free;
    /* scratch for one tick */
    iq_req *rq;
    iq_req *sq;          /* [maxr V] a tick's switch allocation requests */
    int64_t express;     /* > 0: sa_express may decide a lone head's switch allocation at its VC grant,
                            for the step this many ps later (vc-alloc-delay on the grid of Tr) */
    int x_idle, x_behind; /* express_clear: an idle VC's head (express < Tr + rd), a head behind a tail
                            (express < 2 Tr + rd) cannot ask for an output VC by the express step */
    uint32_t *m_in, *m_out, *choice;
    uint32_t *vis, *vreq; /* [maxr V] router_tick_lean_k's due VCs' places, its heads asking for VC allocation */
    uint8_t *granted;
    /* The step calendar (see "Events" at the head): a wheel of W slots, slot
     * n % W for the step at n Tr; per slot a bit per router due (rcal), per
     * host due (hcal), and per host whose next delivery's event the step
     * schedules (dcal). A tick asked W or more steps ahead shares a slot
     * with nearer ones and waits there for its turn. */
    uint32_t W;          /* slots, a power of two */
    uint32_t rwords, hwords; /* 64-bit words per slot */
    uint32_t nsw, nhost; /* switches, hosts */
    uint32_t idle;       /* steps in a row that found nothing due (step_skip after W of them) */
    uint64_t *rcal, *hcal, *dcal;
    uint64_t due;        /* bits set in the wheel */
    int64_t step_at;     /* the step event's time, INT64_MAX: none scheduled */
    sim_event_id step_ev;
    net_msg **dq_head, **dq_tail; /* [hosts] messages whose delivery is known, in time order (linked by next) */
    /* Deliveries through a lane at absolute times (sim_lane_abs): each step
     * schedules its deliveries, all within (t, t + Tr], the step after
     * later ones; sorted by time (stably: host order within a time, as
     * they were scheduled one by one) they go into the lane with
     * consecutive sequence numbers, so every delivery fires when and in
     * the order it did through sim_schedule_at (no other event's key falls
     * between theirs), the same events, without the heap's sifting. The
     * deliveries of one time go in as one lane event, their count its
     * argument (nothing can fire between consecutive keys of one time:
     * their order and everything they schedule are the same), which counts
     * them as as many events (sim_count_events: runs.csv's events). */
    int dlane;           /* the lane, -1: none left (sim_schedule_at, as before) */
    net_msg **dr;        /* the lane's messages, in its order: [dr_head, dr_tail) mod dr_cap (a power of two) */
    uint32_t dr_cap, dr_head, dr_tail;
    int64_t grid_seen;   /* the last hand-over time iqr_send found on the grid of T (-1: none) */
    uint64_t link_bits, core_bits; /* bits delivered x links crossed (hops + 1), x switch cores crossed */
    /* the no-progress watchdog (head comment "Watchdog"): ev_step looks every wd_bound / 4 */
    int64_t wd_at;       /* the step at or after which it looks next */
    int64_t wd_bound;    /* no flit moved for this long with packets in the fabric: a deadlock */
    int64_t wd_seen;     /* the look at which it last saw a move (or an empty fabric) */
    uint64_t wd_moves;   /* flits crossed + packets started + packets lost, at that look */
    iqr_stats s;
} iqr;

/* ---- small helpers ---- */

/* VCs per port in a tick's copy: the constant 2 in the lean copies compiled
 * for it (LEAN_V2: iqr.lean, "The tick's copies"), else q->V */
#define VOF(q, lean) (((lean) & LEAN_V2) ? 2u : (q)->V)

static inline int64_t grid(const iqr *q, int64_t t) { return (t + q->T - 1) / q->T * q->T; }
/* a router's steps: every Tr (T with speedup 1) */
static inline int64_t grid_r(const iqr *q, int64_t t) { return (t + q->Tr - 1) / q->Tr * q->Tr; }
static inline uint32_t ring_i(const iqr *q, uint32_t i) { return i >= q->depth ? i - q->depth : i; }
static inline iq_ivc *ivc_at(const iqr *q, uint32_t x, uint32_t v) { return &q->ivc[(size_t)x * q->V + v]; }
/* input VC c's front flit */
static inline iq_flit *vc_front(const iq_ivc *c) { return &c->buf[c->head]; }
/* flit i of input VC idx's ring (i < 2 depth: a front index plus a count) */
static inline iq_flit *ring_at(const iqr *q, size_t ivc_idx, uint32_t i)
{
    return &q->ivc[ivc_idx].buf[i >= q->depth ? i - q->depth : i];
}
/* output VC index: switch port x, or host h as X + h */
static inline iq_ovc *ovc_v(const iqr *q, uint32_t xo, uint32_t v, uint32_t V) { return &q->ovc[(size_t)xo * V + v]; }
static inline iq_ovc *ovc_at(const iqr *q, uint32_t xo, uint32_t v) { return ovc_v(q, xo, v, q->V); }

static __attribute__((noinline, cold)) void pkt_pool_grow(iqr *q)
{
    swnet *st = q->st;
    iq_pkt *c = tn_xalloc_big_raw(POOL_CHUNK * sizeof *c); /* 64-aligned: a packet is two whole lines */
    st->chunks = tn_xrealloc(st->chunks, (st->nchunks + 1) * sizeof *st->chunks);
    st->chunks[st->nchunks++] = c;
    for (size_t i = POOL_CHUNK; i-- > 0;) {
        c[i].next = q->free;
        q->free = &c[i];
    }
}

static inline iq_pkt *pkt_alloc(iqr *q)
{
    if (__builtin_expect(!q->free, 0))
        pkt_pool_grow(q);
    iq_pkt *p = q->free;
    q->free = p->next;
    q->st->st.live_packets++;
    return p;
}

static void pkt_release(iqr *q, iq_pkt *p)
{
    p->next = q->free;
    q->free = p;
    q->st->st.live_packets--;
}

/* Links of their own rate: link xo (a switch output x, a host's uplink
 * X + h) can start a flit sent at this tick, whose first bit is ready at
 * now + sa + st, before the next tick's (head comment) */
static inline int link_can_start(const iqr *q, uint32_t xo, int64_t now)
{
    return q->lnext[xo] < now + q->sa + q->stx + q->T;
}

/* credits of output VC (xo, v) now: those arrived are added first */
static void credits_pop(iqr *q, uint32_t xo, uint32_t v, int64_t now);
static inline __attribute__((always_inline)) int32_t credits_now_v(iqr *q, uint32_t xo, uint32_t v, int64_t now,
                                                                   uint32_t V)
{
    iq_ovc *o = ovc_v(q, xo, v, V);
    /* nothing on its way, or the first not yet arrived: no update (the common case) */
    if (o->cn && o->front <= now) {
        if (o->cn == 1) { /* the one on its way arrived: credits_pop's loop once, inline */
            o->credits++;
            o->cn = 0;
            o->ch = 0;
        } else
            credits_pop(q, xo, v, now);
    }
    return o->credits;
}
static inline int32_t credits_now(iqr *q, uint32_t xo, uint32_t v, int64_t now)
{
    return credits_now_v(q, xo, v, now, q->V);
}

static void credits_pop(iqr *q, uint32_t xo, uint32_t v, int64_t now)
{
    iq_ovc *o = ovc_at(q, xo, v);
    const int64_t *cr = &q->cring[((size_t)xo * q->V + v) * q->depth];
    while (o->cn && o->front <= now) {
        o->credits++;
        o->cn--;
        o->ch = o->cn == 0 || o->ch + 1 == q->depth ? 0 : o->ch + 1; /* (empty: from its first slot again) */
        if (o->cn)
            o->front = cr[o->ch];
    }
}

static void ev_step(sim *s, void *ctx, uint64_t arg);

static inline void bit_set(uint64_t *w, uint32_t i) { w[i >> 6] |= UINT64_C(1) << (i & 63); }
static inline void bit_clr(uint64_t *w, uint32_t i) { w[i >> 6] &= ~(UINT64_C(1) << (i & 63)); }
static inline size_t slot_of(const iqr *q, uint64_t n) { return (size_t)(n & (q->W - 1)); }

/* a step event at t, unless one comes by then (a step in progress counts as
 * one: what it asks is later and its end schedules the next step) */
static void step_ensure(iqr *q, int64_t t)
{
    if (q->step_at <= t)
        return;
    sim *s = net_sim(q->st->n);
    if (q->step_at != INT64_MAX)
        sim_cancel(s, q->step_ev);
    q->step_at = t;
    q->step_ev = sim_schedule_at(s, t, ev_step, q, 0);
}

/* ask router sw to tick at the first step at or after t (an earlier pending
 * tick stays; a later one is moved) */
static inline __attribute__((always_inline)) void router_tick_at(iqr *q, uint32_t sw, int64_t t)
{
    iq_router *r = &q->r[sw];
    if (r->tick_at < t) /* a pending tick before t (on the grid: before t's step too) stays; no division */
        return;
    uint64_t n = (uint64_t)((t + q->Tr - 1) / q->Tr);
    t = (int64_t)n * q->Tr;
    if (r->tick_at <= t)
        return;
    if (r->tick_at != INT64_MAX)
        bit_clr(&q->rcal[(size_t)r->tslot * q->rwords], sw);
    else
        q->due++;
    r->tick_at = t;
    r->tslot = (uint32_t)slot_of(q, n);
    bit_set(&q->rcal[(size_t)r->tslot * q->rwords], sw);
    if (q->step_at > t)
        step_ensure(q, t);
}

static void host_tick_at(iqr *q, uint32_t h, int64_t t)
{
    iq_host *hs = &q->h[h];
    if (hs->tick_at < t) /* (as router_tick_at) */
        return;
    t = grid(q, t); /* on the grid of T, hence of Tr */
    if (hs->tick_at <= t)
        return;
    if (hs->tick_at != INT64_MAX)
        bit_clr(&q->hcal[slot_of(q, (uint64_t)(hs->tick_at / q->Tr)) * q->hwords], h);
    else
        q->due++;
    hs->tick_at = t;
    bit_set(&q->hcal[slot_of(q, (uint64_t)(t / q->Tr)) * q->hwords], h);
    step_ensure(q, t);
}

/* The time the credit of a flit leaving input port x's buffer at `leave`
 * goes back upstream. Speedup 1: then (one flit a tick leaves an input
 * port, so nothing to space). Speedup S > 1 (head comment "Credits"): at
 * the first flit-time edge at or after `leave`, at most one credit per
 * input port per flit time, in the order the flits left (BookSim2's
 * _OutputQueuing / _SendCredits). */
static inline __attribute__((always_inline)) int64_t credit_send(iqr *q, uint32_t x, int64_t leave, const int lean)
{
    if (lean || __builtin_expect(!q->cfree, 1)) /* speedup 1 */
        return leave;
    int64_t ts = grid(q, leave);
    if (ts < q->cfree[x])
        ts = q->cfree[x];
    q->cfree[x] = ts + q->T;
    return ts;
}

/* a credit for output VC (xo, v) reaches its sender at t */
static inline __attribute__((always_inline)) void credit_back(iqr *q, uint32_t xo, uint32_t v, int64_t t,
                                                                 const uint32_t V)
{
    iq_ovc *o = ovc_v(q, xo, v, V);
    TN_ASSERT(o->cn < q->depth, "credit FIFO of port %u VC %u overflows", xo, v);
    uint32_t i = o->ch + o->cn;
    if (i >= q->depth)
        i -= q->depth;
    q->cring[((size_t)xo * V + v) * q->depth + i] = t;
    if (!o->cn)
        o->front = t;
    o->cn++;
    /* A sender that waits for a credit not yet on its way (iq_ovc.waiting)
     * is woken for this one's arrival. The flag may be stale: a host sets
     * it on each injection VC whose missing credit is not on its way when
     * none can take its packet (host_try) and keeps it on those it does not
     * use when it later sends on another; a router's stays on an output VC
     * whose next owner does not wait. A stale wake is a tick and decides
     * nothing: a router's tick visits only its due VCs, and one visited
     * early does nothing (head comment "Due VCs"); a host's tick runs
     * host_try, which decides from the credits arrived, its NIC and its last
     * flit what the host decides at that flit time in any case, and a
     * host's pending tick holds back no message handed to it before
     * (iqr_send; until 2026-11-28 it did: a message handed to an idle host
     * between the grant and the arrival of a stale flag's credit left at
     * that arrival, check_iqrouter test_host_tick_pending). For the same
     * reasons a credit sent at now by a switch allocation decided for a
     * later step te (sa_express, express_clear) decides what it does at te:
     * it arrives at te + sw-alloc + credit-delay + link > te (later than
     * any step the express decides, express_init), so no sender counts it
     * earlier; a sender looking before te finds it on its way and asks a
     * tick for its arrival instead of setting its flag, the one te would
     * have cleared with that tick; and a tick asked at now rather than te
     * holds nothing back (the same test: the express once delayed a
     * message handed over between now and te). */
    if (o->waiting) {
        o->waiting = 0;
        if (xo >= q->X)
            host_tick_at(q, xo - q->X, t);
        else {
            uint32_t sw = q->rid[xo];
            if (o->owner != NONE) { /* the input VC that waits for it is due then */
                size_t x0V = (size_t)q->r[sw].x0 * V;
                uint32_t a = q->ivc[x0V + o->owner].act;
                if (a != NONE && t < q->adue[x0V + a])
                    q->adue[x0V + a] = t;
            }
            router_tick_at(q, sw, t);
        }
    }
}

static void route(iqr *q, uint32_t sw, iq_ivc *c, iq_pkt *p, int64_t now);
static inline __attribute__((always_inline)) void route_k(iqr *q, uint32_t sw, iq_ivc *c, iq_pkt *p, int64_t now,
                                                          const int lean);

/* olink[x] for port x whose output enters peer: when no link has a latency
 * of its own (!q->varies, iqr_init) it is hlink toward a host, else link;
 * the lean copies take it so, without reading olink (a cache line a hop on
 * a large fabric) */
static inline __attribute__((always_inline)) int64_t olink_of(const iqr *q, uint32_t x, uint32_t peer, const int lean)
{
    if (lean && !q->varies)
        return (peer & HOSTBIT) ? q->hlink : q->link;
    return q->olink[x];
}
static void iq_kill(iqr *q, iq_pkt *p, uint32_t x, uint32_t v, int64_t now, int cur);

/* Input VC c takes the facts of packet p, whose head is at its front and
 * is routed here now: from the packet, whose hops were written when its
 * head was not routed at once (flit_in) */
static inline void vc_take(iq_ivc *c, const iq_pkt *p)
{
    c->dst = p->hdr.dst;
    c->word = p->word;
    c->nflits = p->nflits;
    c->hops = p->hops;
    c->cls = p->cls;
}

/* flit of p (its head: head) is whole in input VC (x, v) at t; from: the
 * input VC it left (its facts are p's), NULL from a host */
static inline __attribute__((always_inline)) void flit_in_k(iqr *q, uint32_t x, uint32_t v, iq_pkt *p, int64_t t,
                                                            int head, const iq_ivc *from, const int lean)
{
    size_t idx = (size_t)x * VOF(q, lean) + v;
    iq_ivc *c = &q->ivc[idx];
    TN_ASSERT(c->n < q->depth, "input buffer of port %u VC %u overflows", x, v);
    uint32_t i = c->head + c->n; /* < 2 depth: no division */
    iq_flit *f = &c->buf[i >= q->depth ? i - q->depth : i];
    f->t = t;
    f->p = p;
    c->n++;
    uint32_t sw = q->rid[x];
    iq_router *r = &q->r[sw];
    if (head && c->n == 1 && c->state == VC_IDLE && (lean || q->oblivious)) {
        /* a head that will be at the front of an idle VC: its oblivious
         * route is known routing-delay after it is whole (no tick at t) */
        c->state = VC_VA;
        /* (the lean copies' switch-to-switch flits are whole on the grid when sa_grid says so: no division) */
        c->ready = (lean && from && q->sa_grid ? t : grid_r(q, t)) + q->rd;
        c->sent = 0;
        if (from) { /* its facts from the VC it left, not from the packet */
            c->dst = from->dst;
            c->word = from->word;
            c->nflits = from->nflits;
            c->hops = from->hops + 1;
            c->cls = from->cls;
        } else
            vc_take(c, p);
        route_k(q, sw, c, p, t, lean);
        t = c->ready;
    } else if (head && from)
        p->hops = from->hops + 1; /* routed later here (vc_take) */
    if (c->act == NONE) {
        uint32_t li = x - r->x0;
        c->act = r->nact;
        q->act[(size_t)r->x0 * VOF(q, lean) + r->nact++] = li * VOF(q, lean) + v;
    }
    if (c->n == 1) /* it was empty: nothing to do before this flit is whole (routed, above) */
        q->adue[(size_t)r->x0 * VOF(q, lean) + c->act] = t;
    router_tick_at(q, sw, t);
}
/* (a host's flit: the lean copies' flit_in_k when the tick has them, iqr.lean; the same statements) */
static __attribute__((noinline)) void flit_in(iqr *q, uint32_t x, uint32_t v, iq_pkt *p, int64_t t, int head,
                                              const iq_ivc *from)
{
    if (q->lean & LEAN_V2)
        flit_in_k(q, x, v, p, t, head, from, LEAN_IF | LEAN_V2);
    else if (q->lean)
        flit_in_k(q, x, v, p, t, head, from, LEAN_IF);
    else
        flit_in_k(q, x, v, p, t, head, from, 0);
}

/* ---- delivery (as swnet.c's) ---- */

static inline __attribute__((always_inline)) void deliver(iqr *q, sim *s, net_msg *m)
{
    /* the message's mean hops over its packets (their sum rides in aux's
     * high half), added in delivery order: a floating-point sum that does
     * not depend on the order in which its packets' tails crossed */
    uint64_t K = m->size_bytes <= q->st->mtu ? 1 : (m->size_bytes - 1) / q->st->mtu + 1;
    double hops = (double)(m->aux >> 32);
    q->st->hops_acc += K == 1 ? hops : hops / (double)K; /* (x / 1.0 is x) */
    q->st->msgs_delivered++;
    q->st->t_last_ps = sim_now(s);
    net_delivered(q->st->n, m);
}

static void ev_deliver(sim *s, void *ctx, uint64_t arg) { deliver(ctx, s, (net_msg *)(uintptr_t)arg); }

/* the lane's deliveries, arg of them at now: the ring's first (the same
 * order), counted as arg events */
static void ev_deliver_lane(sim *s, void *ctx, uint64_t arg)
{
    iqr *q = ctx;
    for (uint64_t k = 0; k < arg; k++) /* (q->dr read again: a delivery may do anything but a step) */
        deliver(q, s, q->dr[q->dr_head++ & (q->dr_cap - 1)]);
    sim_count_events(s, arg - 1);
}

/* m into the ring among this step's deliveries (from `first` on), after
 * those not later than it (a stable insertion sort: a step has few) */
static void dr_insert(iqr *q, uint32_t first, net_msg *m)
{
    if (q->dr_tail - q->dr_head == q->dr_cap) { /* twice the room; the free-running indices stay valid */
        net_msg **b = tn_xmalloc(2 * (size_t)q->dr_cap * sizeof *b);
        for (uint32_t k = q->dr_head; k != q->dr_tail; k++)
            b[k & (2 * q->dr_cap - 1)] = q->dr[k & (q->dr_cap - 1)];
        free(q->dr);
        q->dr = b;
        q->dr_cap *= 2;
    }
    uint32_t i = q->dr_tail++, mask = q->dr_cap - 1;
    while (i != first && q->dr[(i - 1) & mask]->t_aux_ps > m->t_aux_ps) {
        q->dr[i & mask] = q->dr[(i - 1) & mask];
        i--;
    }
    q->dr[i & mask] = m;
}

static void packet_arrived(iqr *q, iq_pkt *p, int64_t t_ps, uint32_t hops)
{
    swnet *st = q->st;
    net_msg *m = p->msg;
    if (t_ps > m->t_aux_ps)
        m->t_aux_ps = t_ps;
    /* integer sums (exact in any order: see iqr_energy_j) */
    st->bits_delivered += 8.0 * p->bytes;
    q->link_bits += 8 * (uint64_t)p->bytes * (hops + 1);
    q->core_bits += 8 * (uint64_t)p->bytes * hops;
    st->st.packet_hops += hops;
    TN_ASSERT((uint32_t)m->aux > 0, "message %llu: more packets arrived than were cut", (unsigned long long)m->id);
    m->aux += ((uint64_t)hops << 32) - 1; /* packets outstanding in the low half, hops in the high */
    pkt_release(q, p);
    if ((uint32_t)m->aux == 0) {
        /* its delivery event is scheduled by the step before its time
         * (ev_step), in host order: deliveries to a host come in time order
         * (its one link from its switch) */
        uint32_t h = m->dst;
        m->next = NULL;
        if (q->dq_tail[h]) {
            TN_ASSERT(q->dq_tail[h]->t_aux_ps <= m->t_aux_ps, "deliveries to host %u out of time order", h);
            q->dq_tail[h]->next = m;
        } else {
            q->dq_head[h] = m;
            uint64_t n = (uint64_t)((m->t_aux_ps + q->Tr - 1) / q->Tr) - 1;
            bit_set(&q->dcal[slot_of(q, n) * q->hwords], h);
            q->due++;
            step_ensure(q, (int64_t)n * q->Tr);
        }
        q->dq_tail[h] = m;
    } else if (__builtin_expect((uint32_t)m->aux == MSG_DROPPED, 0))
        net_dropped(st->n, m); /* its last packet in the fabric arrived: the message is lost (iq_kill) */
}

/* ---- allocators ---- */

static inline uint32_t rr_dist(uint32_t a, uint32_t ptr, uint32_t n) { return a >= ptr ? a - ptr : a + n - ptr; }
/* (a + 1) % n without the division in the common case (a + 1 < n) */
static inline uint32_t rr_next(uint32_t a, uint32_t n) { return a + 1 < n ? a + 1 : a + 1 == n ? 0 : (a + 1) % n; }

/* Match requests rq[0..nr) (in < nin, out < nout, key < nkey) with at most one
 * grant per input and per output: granted[r] = 1 for the winners. pin[in]
 * is the input's pointer (over keys: input-first; over outputs: islip),
 * pout[out] the output's over inputs. */
/* allocate's rule when every request comes from one input (and one
 * class): the input's choice alone decides, as the full rounds would (each
 * output sees only that input): input-first grants the key nearest the
 * input's pointer, iSLIP the output nearest it; both pointers move past the
 * grant. Inline: the router tick calls it directly for a head's requests. */
static inline __attribute__((always_inline)) uint32_t grant_one_input(iqr *q, uint32_t nr, uint32_t nin,
                                                                      uint32_t nout, uint32_t nkey, uint16_t *pin,
                                                                      uint16_t *pout, const int islip)
{
    const iq_req *rq = q->rq;
    uint32_t in = rq[0].in, best = 0;
    for (uint32_t r = 1; r < nr; r++) {
        if (islip ? rr_dist(rq[r].out, pin[in], nout) < rr_dist(rq[best].out, pin[in], nout)
                     : rr_dist(rq[r].key, pin[in], nkey) < rr_dist(rq[best].key, pin[in], nkey))
            best = r;
    }
    pin[in] = (uint16_t)(islip ? rr_next(rq[best].out, nout) : rr_next(rq[best].key, nkey));
    pout[rq[best].out] = (uint16_t)rr_next(in, nin);
    return best; /* the one granted */
}

/* two of requests rq[0..nr) share an input or an output (allocate's clash) */
static inline int rq_clash(const iq_req *rq, uint32_t nr)
{
    for (uint32_t r = 1; r < nr; r++)
        for (uint32_t k = 0; k < r; k++)
            if (rq[k].in == rq[r].in || rq[k].out == rq[r].out)
                return 1;
    return 0;
}

static void allocate(iqr *q, uint32_t nr, uint32_t nin, uint32_t nout, uint32_t nkey, uint16_t *pin, uint16_t *pout)
{
    iq_req *rq = q->rq;
    uint32_t *m_in = q->m_in, *m_out = q->m_out, *ch = q->choice;
    /* every request from one input (a head asking for several output VCs,
     * or a single request): the input's choice alone decides, as the full
     * rounds below would (each output sees only that input; one class, so
     * strict has one level): input-first takes the key nearest the input's
     * pointer, iSLIP the granting output nearest it */
    uint32_t one = 1;
    for (uint32_t r = 1; r < nr && one; r++)
        one = rq[r].in == rq[0].in && rq[r].prio == rq[0].prio;
    if (one) {
        uint32_t best = grant_one_input(q, nr, nin, nout, nkey, pin, pout, q->islip);
        for (uint32_t r = 0; r < nr; r++)
            q->granted[r] = r == best;
        return;
    }
    /* no two requests share an input or an output (the common case): both
     * allocators grant them all, and move the pointers as below */
    if (!rq_clash(rq, nr)) {
        for (uint32_t r = 0; r < nr; r++) {
            q->granted[r] = 1;
            pin[rq[r].in] = (uint16_t)(q->islip ? rr_next(rq[r].out, nout) : rr_next(rq[r].key, nkey));
            pout[rq[r].out] = (uint16_t)rr_next(rq[r].in, nin);
        }
        return;
    }
    for (uint32_t i = 0; i < nin; i++)
        m_in[i] = NONE;
    for (uint32_t o = 0; o < nout; o++)
        m_out[o] = NONE;
    memset(q->granted, 0, nr);
    /* strict classes: the lowest class's requests are matched first (all
     * iterations), then the next class's among the inputs and outputs
     * still free, and so on; else every request at once */
    uint32_t levels = 0;
    if (q->strict)
        for (uint32_t r = 0; r < nr; r++)
            levels |= 1u << rq[r].prio;
    if (__builtin_popcount(levels) < 2)
        levels = 0;
    do {
    uint32_t lvl = levels ? (uint32_t)__builtin_ctz(levels) : UINT32_MAX;
    levels &= levels - 1;
    for (unsigned it = 0; it < q->iters; it++) {
        int any = 0;
        if (!q->islip) {
            /* inputs pick one request each */
            for (uint32_t i = 0; i < nin; i++)
                ch[i] = NONE;
            for (uint32_t r = 0; r < nr; r++) {
                const iq_req *a = &rq[r];
                if (m_in[a->in] != NONE || m_out[a->out] != NONE || (lvl != UINT32_MAX && a->prio != lvl))
                    continue;
                uint32_t c = ch[a->in];
                if (c == NONE || rr_dist(a->key, pin[a->in], nkey) < rr_dist(rq[c].key, pin[a->in], nkey))
                    ch[a->in] = r;
            }
            /* outputs pick one input among those that picked them */
            for (uint32_t i = 0; i < nin; i++) {
                uint32_t r = ch[i];
                if (r == NONE)
                    continue;
                uint32_t o = rq[r].out, w = m_out[o];
                if (w == NONE || rr_dist(i, pout[o], nin) < rr_dist(rq[w].in, pout[o], nin)) {
                    if (w != NONE)
                        m_in[rq[w].in] = NONE;
                    m_out[o] = r;
                    m_in[i] = r;
                }
            }
            for (uint32_t o = 0; o < nout; o++) {
                uint32_t r = m_out[o];
                if (r == NONE || q->granted[r])
                    continue;
                q->granted[r] = 1;
                any = 1;
                pin[rq[r].in] = (uint16_t)rr_next(rq[r].key, nkey);
                pout[o] = (uint16_t)rr_next(rq[r].in, nin);
            }
        } else {
            /* grant: each free output the free input nearest its pointer */
            for (uint32_t o = 0; o < nout; o++)
                ch[o] = NONE;
            for (uint32_t r = 0; r < nr; r++) {
                const iq_req *a = &rq[r];
                if (m_in[a->in] != NONE || m_out[a->out] != NONE || (lvl != UINT32_MAX && a->prio != lvl))
                    continue;
                uint32_t c = ch[a->out];
                if (c == NONE || rr_dist(a->in, pout[a->out], nin) < rr_dist(rq[c].in, pout[a->out], nin))
                    ch[a->out] = r;
            }
            /* accept: each input the granting output nearest its pointer */
            for (uint32_t o = 0; o < nout; o++) {
                uint32_t r = ch[o];
                if (r == NONE)
                    continue;
                uint32_t i = rq[r].in, w = m_in[i];
                if (w == NONE || rr_dist(o, pin[i], nout) < rr_dist(rq[w].out, pin[i], nout))
                    m_in[i] = r;
            }
            for (uint32_t i = 0; i < nin; i++) {
                uint32_t r = m_in[i];
                if (r == NONE || q->granted[r])
                    continue;
                q->granted[r] = 1;
                m_out[rq[r].out] = r;
                any = 1;
                if (it == 0) {
                    pin[i] = (uint16_t)rr_next(rq[r].out, nout);
                    pout[rq[r].out] = (uint16_t)rr_next(i, nin);
                }
            }
        }
        if (!any)
            break;
    }
    } while (levels);
}

/* ---- routing ---- */

/* flits held downstream of output VC range (xo, b..b+n): UGAL's queue */
static uint64_t port_held(iqr *q, uint32_t xo, int64_t now)
{
    uint64_t held = 0;
    for (uint32_t v = 0; v < q->V; v++)
        held += (uint64_t)(q->depth - (uint32_t)credits_now(q, xo, v, now));
    return held;
}

/* Torus adaptive: the credits an adaptive output VC must have for p to take
 * it, room for the whole packet (at most a buffer: a longer wormhole packet
 * needs the buffer empty). Duato's protocol under cut-through and wormhole
 * VCs reallocated before they drain: a packet that holds an adaptive VC
 * then never waits for credit that another packet holds, so only heads
 * waiting for an output VC wait, and those may take the escape. */
static inline int32_t adaptive_need(const iqr *q, uint32_t nflits)
{
    return (int32_t)(nflits < q->depth ? nflits : q->depth);
}

/* Torus adaptive: output VC v of port xo can be granted to p's head now
 * (free; an adaptive one with adaptive_need's credits) */
static inline __attribute__((always_inline)) int va_open(iqr *q, uint32_t xo, uint32_t v, const iq_ivc *c, int64_t now,
                                                        const uint32_t V)
{
    return ovc_v(q, xo, v, V)->owner == NONE &&
           (c->kind != TOPO_HOP_ADAPTIVE || credits_now_v(q, xo, v, now, V) >= adaptive_need(q, c->nflits));
}

/* What the input-queued router measures of a candidate's output for the
 * topology's choose (topo_probe): load, the flits held in the next buffer
 * (used credits over its VCs, BookSim2's GetUsedCredit); room, the most
 * credits of a free output VC of the class (the packet's group) with
 * adaptive_need's credits, -1 when none is. */
typedef struct iq_probe {
    iqr *q;
    uint32_t x0;
    const iq_pkt *p;
    int64_t now;
} iq_probe;

static uint64_t iq_load(void *ctx, uint32_t port)
{
    const iq_probe *o = ctx;
    return port_held(o->q, o->x0 + port, o->now);
}

static int64_t iq_room(void *ctx, uint32_t port, uint8_t vc)
{
    const iq_probe *o = ctx;
    iqr *q = o->q;
    uint32_t xo = o->x0 + port, g = q->pcls > 1 ? o->p->cls * q->vgrp : 0; /* (o->p: its facts are the VC's too) */
    int64_t best = -1;
    int32_t need = adaptive_need(q, o->p->nflits);
    for (uint32_t v = g + vc * q->vpc; v < g + (vc + 1u) * q->vpc; v++) {
        if (ovc_at(q, xo, v)->owner != NONE)
            continue;
        int32_t cr = credits_now(q, xo, v, o->now);
        if (cr >= need && cr > best)
            best = cr;
    }
    return best;
}

/* The route table (head comment "Route table"): an entry per (switch,
 * destination), 0 not yet asked, RT_RECORD when the hop there depends on
 * the packet's record, else the hop: port + 2 (8 bits), class (8),
 * hops_left (16). */
#define RT_UNKNOWN 0u
#define RT_RECORD 1u
/* 64Ki entries, 256 KB (a 16x16 torus): a table much past a core's L2 cache misses more than `next` costs. Measured
 * on bench/iqrouter.sh's 32x32 torus (1Mi entries, 4 MB), one 20-us replica, user seconds interleaved: with the table
 * 12.5 and 12.5, without 9.75 and 9.30 (main before both 11.8 and 10.6), at 1.7 % fewer instructions with it. */
#define RT_MAX_ENTRIES (UINT64_C(1) << 16)
static int rt_wanted(const topo *t)
{
    return !t->adaptive && t->ops->dst_routed && t->ops->next_dst && t->ops->dst_routed(t) && t->max_radix < 254 &&
           (uint64_t)t->switches * t->hosts <= RT_MAX_ENTRIES;
}

static uint32_t rt_fill(const topo *t, uint32_t sw, uint32_t dst)
{
    topo_hop h;
    if (!t->ops->next_dst(t, sw, dst, &h))
        return RT_RECORD;
    TN_ASSERT(h.kind == TOPO_HOP_ONLY && h.port < 254, "route table: switch %u dst %u: port %u kind %u", sw, dst,
              h.port, h.kind);
    return (h.port + 2) | (uint32_t)h.vc << 8 | (uint32_t)h.hops_left << 16;
}

/* IQ_RTAB_CHECK builds: the one hop a table entry or a route word gave
 * (cand[0]) is the one `next` gives on the record the packet still keeps */
#ifdef IQ_RTAB_CHECK
static void rt_check(const topo *t, uint32_t sw, const iq_pkt *p, const topo_hop *cand, const char *what)
{
    topo_hop c2[TOPO_MAX_CAND];
    TN_ASSERT(t->ops->next(t, sw, &p->hdr, c2) == 1 && c2[0].port == cand[0].port && c2[0].vc == cand[0].vc &&
                  c2[0].kind == cand[0].kind && c2[0].hops_left == cand[0].hops_left,
              "%s: switch %u dst %u", what, sw, p->hdr.dst);
}
#define RT_CHECK(what) rt_check(t, sw, p, cand, what)
#else
#define RT_CHECK(what) ((void)0)
#endif

/* route the head of input VC c (of port x at switch sw): the topology's
 * `next`, and its choose over this router's probe when it offers more */
static void route(iqr *q, uint32_t sw, iq_ivc *c, iq_pkt *p, int64_t now)
{
    swnet *st = q->st;
    const topo *t = &st->t;
    topo_hop cand[TOPO_MAX_CAND];
    unsigned n, k = 0;
    uint32_t *e = NULL;
    if (q->rtab) {
        e = &q->rtab[(size_t)sw * t->hosts + c->dst];
        if (__builtin_expect(*e == RT_UNKNOWN, 0))
            *e = rt_fill(t, sw, c->dst);
    }
    if (e && *e != RT_RECORD) {
        cand[0] = (topo_hop){.port = (*e & 0xFFu) - 2, .vc = (uint8_t)(*e >> 8), .kind = TOPO_HOP_ONLY,
                             .hops_left = (uint16_t)(*e >> 16)};
        n = 1;
        RT_CHECK("route table");
    } else if (q->words) {
        t->ops->next_word(t, sw, c->dst, c->word, cand);
        n = 1;
        RT_CHECK("route word");
    } else
        n = t->ops->next(t, sw, &p->hdr, cand);
    uint32_t x0 = q->r[sw].x0;
    if (__builtin_expect(n == 0, 0)) {
        /* no way on from here since a link failed (network.fail-at): its VC
         * allocation request loses the packet (iq_lost_here) */
        c->out = OUT_NONE;
        c->host = 0;
        c->kind = p->hop.kind = TOPO_HOP_MINIMAL;
        return;
    }
    if (n > 1) {
        iq_probe o = {.q = q, .x0 = x0, .p = p, .now = now};
        const topo_probe pr = {.ctx = &o, .load = iq_load, .room = iq_room};
        k = t->ops->choose(t, sw, &p->hdr, cand, n, &pr);
        TN_ASSERT(k < n, "switch %u: choice %u of %u candidates", sw, k, n);
        if (cand[k].kind == TOPO_HOP_VALIANT)
            st->st.valiant_packets++; /* (the escape is counted when the head wins its output VC) */
    }
    if (!q->words)
        p->hop = cand[k]; /* the record moves on (take) when the head wins an output VC */
    c->kind = cand[k].kind;
    c->out = (uint16_t)cand[k].port;
    /* per-class VCs: the packet's class's group of VCs */
    uint32_t g = q->pcls > 1 ? c->cls * q->vgrp : 0;
    c->host = (q->peer[x0 + c->out] & HOSTBIT) != 0;
    if (c->host) { /* a host takes every VC (of its class): no deadlock class toward it */
        c->vc_base = (uint16_t)g;
        c->nvc = (uint16_t)q->vgrp;
    } else {
        c->vc_base = (uint16_t)(g + cand[k].vc * q->vpc);
        c->nvc = (uint16_t)q->vpc;
    }
}

/* route for the lean copies ("The tick's copies": an oblivious routing,
 * one priority class's VCs, no failure): the same hop as route's, its one
 * candidate read inline from the route table or asked of next_word; route
 * itself where neither gives it (a routing with neither, whose `next` may
 * also offer several candidates) */
static inline __attribute__((always_inline)) void route_k(iqr *q, uint32_t sw, iq_ivc *c, iq_pkt *p, int64_t now,
                                                          const int lean)
{
    if (!lean) {
        route(q, sw, c, p, now);
        return;
    }
    const topo *t = &q->st->t;
    uint32_t port, vc;
    uint8_t kind = TOPO_HOP_ONLY;
    uint32_t e = RT_RECORD;
    if (q->rtab) {
        uint32_t *ep = &q->rtab[(size_t)sw * t->hosts + c->dst];
        if (__builtin_expect(*ep == RT_UNKNOWN, 0))
            *ep = rt_fill(t, sw, c->dst);
        e = *ep;
    }
    if (e != RT_RECORD) {
        port = (e & 0xFFu) - 2;
        vc = (uint8_t)(e >> 8);
        if (!q->words) /* the record moves on (take) when the head wins an output VC */
            p->hop = (topo_hop){.port = port, .vc = (uint8_t)vc, .kind = TOPO_HOP_ONLY, .hops_left = (uint16_t)(e >> 16)};
#ifdef IQ_RTAB_CHECK
        topo_hop cand[1] = {{.port = port, .vc = (uint8_t)vc, .kind = TOPO_HOP_ONLY, .hops_left = (uint16_t)(e >> 16)}};
        RT_CHECK("route table");
#endif
    } else if (q->words) {
        topo_hop cand[1];
        t->ops->next_word(t, sw, c->dst, c->word, cand);
        RT_CHECK("route word");
        port = cand[0].port;
        vc = cand[0].vc;
        kind = cand[0].kind;
    } else {
        route(q, sw, c, p, now);
        return;
    }
    c->kind = kind;
    c->out = (uint16_t)port;
    c->host = (q->peer[q->r[sw].x0 + port] & HOSTBIT) != 0;
    if (c->host) { /* (route: a host takes every VC) */
        c->vc_base = 0;
        c->nvc = (uint16_t)q->vgrp;
    } else {
        c->vc_base = (uint16_t)(vc * q->vpc);
        c->nvc = (uint16_t)q->vpc;
    }
}

/* ---- a router's tick ---- */

/* The switch allocation of input VC c (index idx, local li) is granted at
 * now: its front flit crosses, goes on the link (into the next input VC or
 * to its host), its credit goes back upstream, and a tail frees the output
 * VC and lets the next head behind it start. */
static inline __attribute__((always_inline)) void sa_grant_k(iqr *q, uint32_t sw, uint32_t x0, iq_ivc *c,
                                                             int64_t now, const int lean)
{
    iq_flit *f = vc_front(c);
    iq_pkt *p = f->p;
    c->n--;
    /* an empty ring starts again at its first slot: at low load a VC's
     * flits then stay in its ring's first line (fewer lines a hop touches) */
    c->head = c->n == 0 || c->head + 1 == q->depth ? 0 : c->head + 1;
    uint32_t k_flit = c->sent++;
    int tail = c->sent == c->nflits;
    q->s.flits++;
    int64_t leave = now + q->sa;          /* the flit leaves its input buffer */
    int64_t wire = leave + q->stx;        /* its first bit on the output link */
    uint32_t xo = x0 + c->out;
    uint32_t dn = q->peer[xo];
    int64_t Tl = q->T; /* the flit's time on the link */
    const int rates = !lean && __builtin_expect(q->lT != NULL, 0);
    if (!lean && q->Tr != q->T) {
        /* speedup: the crossbar fills the output buffer up to
         * `speedup` flits per flit time; the link takes one per
         * flit time, at the flit-time edges (BookSim2's
         * _SendFlits once per cycle); a link of its own rate as
         * soon as it has sent the flit before */
        wire = grid(q, wire);
        if (wire < q->out_free[xo])
            wire = q->out_free[xo];
        if (rates)
            Tl = q->lT[xo];
        q->out_free[xo] = wire + Tl;
    } else if (rates) {
        /* a link of its own rate: the flit starts when the link has
         * sent the one before (before the next tick: switch
         * allocation waited for that, link_can_start) */
        if (wire < q->lnext[xo])
            wire = q->lnext[xo];
        Tl = q->lT[xo];
        q->lnext[xo] = wire + Tl;
    }
    int64_t whole = wire + Tl + olink_of(q, xo, dn, lean); /* whole at the far end */
    q->busy[xo]++;
    /* its credit back upstream */
    uint32_t xin = x0 + c->pin, up = q->peer[xin];
    credit_back(q, (up & HOSTBIT) ? q->X + (up & ~HOSTBIT) : up, c->vin,
                credit_send(q, xin, leave, lean) + q->cd + olink_of(q, xin, up, lean), VOF(q, lean)); /* back on the reverse link:
                                                                                          port xin's output */
    if (dn & HOSTBIT) {
        if (k_flit == 0) {
            int64_t head = wire + olink_of(q, xo, dn, lean);
            if (p->msg->t_head_ps < 0 || head < p->msg->t_head_ps)
                p->msg->t_head_ps = head;
        }
        if (tail)
            packet_arrived(q, p, whole, c->hops + 1);
    } else {
        ovc_v(q, xo, c->out_vc, VOF(q, lean))->credits--;
        flit_in_k(q, dn, c->out_vc, p, whole, k_flit == 0, c, lean);
    }
    c->ready = now + q->Tr;
    if (tail) {
        ovc_v(q, xo, c->out_vc, VOF(q, lean))->owner = NONE;
        c->state = VC_IDLE;
        /* the next head, if whole here, starts route computation at
         * the next tick (BookSim2's _SWAllocUpdate queues it for
         * routing after this cycle's route evaluation) */
        if (c->n && vc_front(c)->t <= now) {
            c->state = VC_ROUTING;
            c->ready = now + q->Tr + q->rd;
            c->sent = 0;
            if (lean || q->oblivious) {
                vc_take(c, vc_front(c)->p);
                route_k(q, sw, c, vc_front(c)->p, now, lean);
                c->state = VC_VA;
            }
        }
    }
}

static __attribute__((noinline)) void sa_grant(iqr *q, uint32_t sw, uint32_t x0, iq_ivc *c, int64_t now)
{
    sa_grant_k(q, sw, x0, c, now, 0);
}

/* the credits the front flit of active input VC c needs on its output VC
 * (none toward a host: 0) */
static inline int32_t sa_need(const iqr *q, uint32_t x0, const iq_ivc *c, const iq_flit *f)
{
    (void)x0;
    if (c->host)
        return 0;
    (void)f;
    return (!q->wormhole && c->sent == 0) ? (int32_t)c->nflits : 1;
}

/* Active input VC c (position li) of the router at x0 asks switch
 * allocation for its front flit now: appends the request to sq[*ns], or
 * counts why it cannot (a credit, a link of its own rate still busy). The
 * one test of both request passes (router_tick_k). */
static inline __attribute__((always_inline)) void sa_request(iqr *q, uint32_t x0, uint32_t li, const iq_ivc *c,
                                                             int64_t now, const int rates, iq_req *sq, uint32_t *ns,
                                                             const uint32_t V)
{
    if (c->ready > now || !c->n)
        return;
    iq_flit *f = vc_front(c);
    if (f->t > now)
        return;
    int32_t need = sa_need(q, x0, c, f);
    if (need && credits_now_v(q, x0 + c->out, c->out_vc, now, V) < need)
        return; /* (counted by vc_due, which sets when it asks again) */
    if (rates && q->lgate && !link_can_start(q, x0 + c->out, now)) {
        q->s.link_waits++; /* a link of its own rate still sends the flit before */
        return;
    }
    sq[(*ns)++] = (iq_req){.in = c->pin, .out = c->out, .key = c->vin, .who = li, .prio = c->cls};
}

/* When the input VC at position a of router r's active list next needs a
 * tick after now (INT64_MAX: when a flit or a credit not yet on its way
 * comes, which ticks it); a VC with nothing left leaves the list (the last
 * one moves to a). */
static inline __attribute__((always_inline)) int64_t vc_due(iqr *q, iq_router *r, uint32_t a, int64_t now,
                                                            const int lean)
{
    const uint32_t V = VOF(q, lean), x0 = r->x0;
    uint32_t *act = &q->act[(size_t)x0 * V];
    uint32_t li = act[a];
    size_t idx = (size_t)x0 * V + li;
    iq_ivc *c = &q->ivc[idx];
    if (!c->n) {
        if (c->state == VC_IDLE) {
            uint32_t lj = act[--r->nact];
            act[a] = lj;
            q->adue[(size_t)x0 * V + a] = q->adue[(size_t)x0 * V + r->nact];
            q->ivc[(size_t)x0 * V + lj].act = a;
            c->act = NONE;
        }
        return INT64_MAX; /* a flit's arrival ticks it */
    }
    iq_flit *f = vc_front(c);
    int64_t t;
    if (f->t > now)
        t = f->t;
    else if (c->state == VC_IDLE)
        t = now + q->Tr;
    else if (c->state == VC_ACTIVE && !c->host) {
        int32_t need = (!q->wormhole && c->sent == 0) ? (int32_t)c->nflits : 1;
        uint32_t xo = x0 + c->out;
        iq_ovc *o = ovc_v(q, xo, c->out_vc, V);
        if (credits_now_v(q, xo, c->out_vc, now, V) >= need)
            t = c->ready > now ? c->ready : now + q->Tr;
        else {
            q->s.credit_waits++; /* short of credit: it waits for one */
            if (o->cn) {
                /* the credit that lets it go */
                uint32_t miss = (uint32_t)(need - o->credits);
                t = miss <= o->cn ? q->cring[((size_t)xo * V + c->out_vc) * q->depth + ring_i(q, o->ch + miss - 1)]
                                  : INT64_MAX;
                if (t == INT64_MAX)
                    o->waiting = 1;
                if (t < c->ready)
                    t = c->ready;
            } else {
                o->waiting = 1;
                t = INT64_MAX;
            }
        }
    } else
        t = c->ready > now ? c->ready : now + q->Tr;
    if (!lean && __builtin_expect(q->lT != NULL, 0) && q->lgate && c->state == VC_ACTIVE && t != INT64_MAX) {
        /* its link of its own rate: the first tick link_can_start */
        int64_t tl = q->lnext[x0 + c->out] - q->T - q->sa - q->stx + 1;
        if (t < tl)
            t = tl;
    }
    return t;
}

/* the earliest vc_due over router r's active VCs but `skip` (a local VC
 * index, NONE: none skipped) */
static inline __attribute__((always_inline)) int64_t router_next(iqr *q, iq_router *r, int64_t now, uint32_t skip,
                                                                 const int scan, const int lean)
{
    const uint32_t *act = &q->act[(size_t)r->x0 * VOF(q, lean)];
    int64_t *adue = &q->adue[(size_t)r->x0 * VOF(q, lean)];
    int64_t next = INT64_MAX;
    for (uint32_t a = r->nact; a-- > 0;) {
        int64_t t = adue[a];
        if (!scan && t > now) { /* not visited at this tick */
            if (t < next)
                next = t;
            continue;
        }
        if (act[a] == skip)
            continue;
        uint32_t n0 = r->nact;
        t = vc_due(q, r, a, now, lean); /* visited: due again when vc_due says (it may leave the list) */
        if (r->nact == n0)
            adue[a] = t;
        if (t < next)
            next = t;
    }
    return next;
}

/* Express switch allocation: the head of input VC li won its output VC at
 * now, and no other VC of its router has anything to do by its switch
 * allocation's step t = now + q->express. That allocation is then decided
 * now (iqr_init's express_init: nothing not known at now can act at this
 * router by t): alone, it wins if its credits are there, with the pointer
 * moves of a one-request allocation. Returns the VC's next due time after
 * t, or -1 if it must wait for its tick. */
static inline __attribute__((always_inline)) int64_t sa_express(iqr *q, uint32_t sw, iq_router *r, uint32_t li,
                                                                int64_t now, const int islip, const int lean)
{
    const uint32_t V = VOF(q, lean), x0 = r->x0;
    size_t idx = (size_t)x0 * V + li;
    iq_ivc *c = &q->ivc[idx];
    int64_t t = now + q->express;
    iq_flit *f = vc_front(c);
    int32_t need = sa_need(q, x0, c, f);
    if (need && credits_now_v(q, x0 + c->out, c->out_vc, t, V) < need)
        return -1;
    q->s.ticks++;
    if (islip) {
        q->sa_in[x0 + c->pin] = (uint16_t)rr_next(c->out, r->radix);
        q->sa_vc[x0 + c->pin] = (uint16_t)rr_next(c->vin, V);
    } else
        q->sa_in[x0 + c->pin] = (uint16_t)rr_next(c->vin, V);
    q->sa_out[x0 + c->out] = (uint16_t)rr_next(c->pin, r->radix);
    if (lean)
        sa_grant_k(q, sw, x0, c, t, lean);
    else
        sa_grant(q, sw, x0, c, t);
    return vc_due(q, r, c->act, t, lean);
}

/* Input VC li (local index) is granted output VC v of its output at now:
 * it holds that output VC from now (va_granted: VC allocation request k of
 * q->rq) */
static inline __attribute__((always_inline)) void va_grant(iqr *q, uint32_t sw, uint32_t x0, uint32_t li, uint32_t v,
                                                           int64_t now, const uint32_t V)
{
    iq_ivc *c = &q->ivc[(size_t)x0 * V + li];
    c->out_vc = (uint16_t)v;
    ovc_v(q, x0 + c->out, c->out_vc, V)->owner = li;
    c->state = VC_ACTIVE;
    c->ready = now + q->va;
#ifndef IQ_RTAB_CHECK
    if (!q->words) /* (route words: the hops ahead need no record) */
#endif
    {
        iq_pkt *p = vc_front(c)->p;
#ifdef IQ_RTAB_CHECK
        if (q->words)
            p->hop = (topo_hop){.port = c->out, .kind = c->kind}; /* (take reads these) */
#endif
        q->st->t.ops->take(&q->st->t, sw, &p->hop, &p->hdr);
    }
    if (c->kind == TOPO_HOP_ESCAPE)
        q->st->st.adaptive_escape++;
}
static inline __attribute__((always_inline)) void va_granted(iqr *q, uint32_t sw, uint32_t x0, uint32_t k, int64_t now,
                                                             const uint32_t V)
{
    /* (the request's VC is its key) */
    va_grant(q, sw, x0, q->rq[k].who, q->rq[k].key, now, V);
}

/* The lean ticks' VC allocation of a lone head (input VC c, local index
 * li, the only one asking at now): the free output VC its round-robin
 * pointer reaches first is granted, with the pointer moves
 * grant_one_input's rule makes (iSLIP: the input's pointer over the
 * router's output VCs; input-first: over the V of its output); none free,
 * it loses this round. Returns 1 if granted. */
static inline __attribute__((always_inline)) int va_lone(iqr *q, uint32_t sw, uint32_t x0, uint32_t radix, iq_ivc *c,
                                                         uint32_t li, int64_t now, const uint32_t V, const int islip)
{
    TN_ASSERT(c->kind != TOPO_HOP_ADAPTIVE && c->kind != TOPO_HOP_ESCAPE && c->out != OUT_NONE,
              "lean tick: switch %u: an adaptive or unroutable head", sw);
    uint32_t xo = x0 + c->out, nin = radix * V, ob = c->out * V, best = NONE;
    uint16_t *pin = &q->va_in[(size_t)x0 * V], *pout = &q->va_out[(size_t)x0 * V];
    for (uint32_t v = c->vc_base; v < (uint32_t)c->vc_base + c->nvc; v++) {
        if (ovc_v(q, xo, v, V)->owner != NONE)
            continue;
        if (best == NONE || (islip ? rr_dist(ob + v, pin[li], nin) < rr_dist(ob + best, pin[li], nin)
                                   : rr_dist(v, pin[li], V) < rr_dist(best, pin[li], V)))
            best = v;
    }
    if (best == NONE) { /* no output VC free: it loses this round */
        c->ready = now + q->va;
        q->s.va_lost++;
        return 0;
    }
    pin[li] = (uint16_t)(islip ? rr_next(ob + best, nin) : rr_next(best, V));
    pout[ob + best] = (uint16_t)rr_next(li, nin);
    va_grant(q, sw, x0, li, best, now, V);
    return 1;
}

/* The lean tick's wider express (sa_express): the head of input VC c
 * (local index li) won its output VC at now; its switch allocation at te =
 * now + q->express may be decided now also when other VCs of its router act
 * by te, if none of them can touch that allocation. Switch allocation
 * matches requests on input and output ports: a request sharing neither
 * port with c's takes no part in c's grant or in the moves of c's ports'
 * pointers (allocate: input-first's input picks among its own requests, the
 * output among the inputs that picked it; iSLIP's output grants among its
 * requests, the input accepts among its grants; a request alone on both its
 * ports is granted in the first iteration either way, the pointers moving
 * as a one-request allocation moves them, as sa_express does). So c's grant
 * is decided now if no other VC can ask for switch allocation at a step in
 * (now, te] on c's input port or c's output port, and none can ask for c's
 * output VC, which c's tail frees (a VC allocation request at te comes
 * before te's switch allocation): an active VC asks for switch allocation
 * only at or after its `due` ("Due VCs"), a head not yet holding an output
 * VC cannot ask for switch allocation by te (its grant comes at a step
 * after now and va later), and what is not known at now cannot act here by
 * te (express_init; on this router no link leads back to itself, lean_of).
 * So: no other VC due by te that is active on c's input or output port, or
 * that holds flits without an output VC (a head) unless it asks for another
 * output than c's, or that is active and holds a flit behind its packet's
 * tail: that tail may leave by te, and the head behind it asks for its
 * output VC then, c's perhaps, which c's grant decided now would already
 * have freed (check_iqrouter test_express_tail_behind). The credit c's
 * grant sends upstream is sent at now, which decides nothing earlier
 * (credit_back; until 2026-11-28 a waiting sender was excluded here:
 * check_iqrouter test_lean_matches_general, test_host_tick_pending).
 *   Two of those VCs cannot ask for an output VC by te when the delays
 * say so (iqr_init: x_idle, x_behind; the bench's torus, rd = va = T, has
 * both). A VC idle with flits, whose head is not yet routed: that head is
 * whole only after now (one whole by now is routed at the tick that finds
 * it: a VC idle with a whole front is due then, and a tail granted at now
 * with a whole head behind it routes that head at once), so it is routed
 * at a tick x >= now + Tr and asks for its output VC at x + rd or later:
 * after te when e < Tr + rd (x_idle). A head behind an active VC's tail:
 * that tail is granted at a step y > now (this tick's grants are done, and
 * it is not c), and the head behind it is routed at y + Tr (BookSim2's
 * _SWAllocUpdate; whole later: at its own tick after y) and asks for its
 * output VC at y + Tr + rd >= now + 2 Tr + rd or later: after te when e <
 * 2 Tr + rd (x_behind); neither asks for switch allocation before its VC
 * grant. And a routed head (VC_VA) toward c's output port asks only for the
 * output VCs of its range (vc_base, nvc): one whose range does not hold
 * c's output VC is refused or granted the same whether c's tail has freed
 * it or not. check_iqrouter test_lean_matches_general's third and fourth
 * configurations (the bench's delays, multi-flit wormhole packets; and
 * delays where neither holds). */
static inline __attribute__((always_inline)) int express_clear(iqr *q, const iq_router *r, const iq_ivc *c,
                                                               uint32_t li, int64_t te, const int lean)
{
    const uint32_t V = VOF(q, lean), x0 = r->x0;
    const uint32_t *act = &q->act[(size_t)x0 * V];
    const int64_t *adue = &q->adue[(size_t)x0 * V];
    for (uint32_t a = 0, n = r->nact; a < n; a++) {
        if (adue[a] > te || act[a] == li)
            continue;
        const iq_ivc *o = &q->ivc[(size_t)x0 * V + act[a]];
        if (o->state == VC_ACTIVE
                ? o->pin == c->pin || o->out == c->out || (o->n > o->nflits - o->sent && !q->x_behind)
                : o->n && (o->state == VC_IDLE  ? !q->x_idle
                           : o->state == VC_VA ? o->out == c->out && (uint32_t)c->out_vc - o->vc_base < o->nvc
                                               : 1))
            return 0;
    }
    return 1;
}

/* The tick's copies: one body (router_tick_k) compiled with some of the
 * configuration's facts as constants, so that each copy has none of the
 * tests they decide. `rates`: links of their own rate (q->lT). `lean`
 * (iqr.lean, chosen once at iqr_init by lean_of): the common case, an
 * oblivious routing (one candidate a hop), speedup 1, no link of its own
 * rate, one priority class's VCs and no strict allocation, a positive
 * vc-alloc-delay and the express switch allocation (so no failure during
 * the run), with the allocator (LEAN_IF input-first, LEAN_ISLIP iSLIP) a
 * constant too, and with LEAN_V2 the VCs per port, V = 2 (the dateline
 * torus with network.vcs 1, BookSim2's 2 VCs: an index x V + v is then a
 * shift, round robin over V a compare; VOF). The same statements as the
 * general copy with those facts true, so the same decisions; the lean
 * copies' body is router_tick_lean_k (router_tick_k's passes merged where
 * those facts allow, and router_tick_one for a tick with one VC due). */
static inline __attribute__((always_inline)) void router_tick_k(iqr *q, uint32_t sw, int64_t now, const int rates);
static inline __attribute__((always_inline)) void router_tick_lean_k(iqr *q, uint32_t sw, int64_t now, const int lean);
static __attribute__((noinline)) void router_tick_rates(iqr *q, uint32_t sw, int64_t now)
{
    router_tick_k(q, sw, now, 1);
}
static __attribute__((noinline)) void router_tick_lean_if(iqr *q, uint32_t sw, int64_t now)
{
    router_tick_lean_k(q, sw, now, LEAN_IF);
}
static __attribute__((noinline)) void router_tick_lean_islip(iqr *q, uint32_t sw, int64_t now)
{
    router_tick_lean_k(q, sw, now, LEAN_ISLIP);
}
static __attribute__((noinline)) void router_tick_lean_if_v2(iqr *q, uint32_t sw, int64_t now)
{
    router_tick_lean_k(q, sw, now, LEAN_IF | LEAN_V2);
}
static __attribute__((noinline)) void router_tick_lean_islip_v2(iqr *q, uint32_t sw, int64_t now)
{
    router_tick_lean_k(q, sw, now, LEAN_ISLIP | LEAN_V2);
}
static void router_tick(iqr *q, uint32_t sw, int64_t now)
{
    if (q->lean == (LEAN_ISLIP | LEAN_V2))
        router_tick_lean_islip_v2(q, sw, now);
    else if (q->lean == (LEAN_IF | LEAN_V2))
        router_tick_lean_if_v2(q, sw, now);
    else if (q->lean == LEAN_ISLIP)
        router_tick_lean_islip(q, sw, now);
    else if (q->lean == LEAN_IF)
        router_tick_lean_if(q, sw, now);
    else if (__builtin_expect(q->lT != NULL, 0))
        router_tick_rates(q, sw, now);
    else
        router_tick_k(q, sw, now, 0);
}

/* The lean tick when at most one of its router's active VCs is due (head
 * comment "Due VCs"), most ticks at low load: router_tick_lean_k's
 * decisions for that case, with its pass, its VC allocation of a head
 * asking alone and its one switch allocation request, in a smaller body
 * (the common tick's registers). The due VC's route computation if its
 * head is whole in an idle VC; a routed head (VC_VA, ready) asks for the
 * free output VCs of its range from its one input: grant_one_input's rule
 * (the free VC nearest the input's pointer: its key under input-first, its
 * output under iSLIP; both pointers move past it), or with none free it
 * loses the round; an active VC's switch allocation request (sa_request)
 * is the only one, granted with a one-request allocation's pointer moves
 * (ns == 1). router_next then visits the due VC alone (vc_due) unless it
 * won its output VC (skipped: the express), and takes the others' due
 * times as they are, the least of which this pass finds (nothing in the
 * tick changes them: router_tick_lean_k). Returns 0, having changed
 * nothing, when two VCs or more are due. */
static inline __attribute__((always_inline)) int router_tick_one(iqr *q, uint32_t sw, iq_router *r, int64_t now,
                                                                 const int lean)
{
    const uint32_t V = VOF(q, lean), x0 = r->x0;
    const uint32_t *act = &q->act[(size_t)x0 * V];
    int64_t *adue = &q->adue[(size_t)x0 * V];
    const int islip = (lean & LEAN_ALLOC) == LEAN_ISLIP;
    uint32_t due = NONE;
    int64_t next = INT64_MAX; /* the least due time of the VCs not due now */
    for (uint32_t a = 0, n = r->nact; a < n; a++) {
        int64_t t = adue[a];
        if (t > now) {
            if (t < next)
                next = t;
        } else if (due == NONE)
            due = a;
        else
            return 0;
    }
    if (due != NONE) {
        uint32_t li = act[due], express = NONE;
        iq_ivc *c = &q->ivc[(size_t)x0 * V + li];
        if (c->state <= VC_ROUTING && c->n && vc_front(c)->t <= now) { /* route computation */
            if (c->state == VC_IDLE) {
                c->state = VC_ROUTING;
                c->ready = now + q->rd;
                c->sent = 0;
            }
            vc_take(c, vc_front(c)->p);
            route_k(q, sw, c, vc_front(c)->p, now, lean);
            c->state = VC_VA;
        }
        if (c->state == VC_VA) {
            if (c->ready <= now && va_lone(q, sw, x0, r->radix, c, li, now, V, islip))
                express = li;
        } else if (c->state == VC_ACTIVE) {
            uint32_t ns = 0;
            sa_request(q, x0, li, c, now, 0, q->sq, &ns, V);
            if (ns) {
                if (islip) {
                    q->sa_in[x0 + c->pin] = (uint16_t)rr_next(c->out, r->radix);
                    q->sa_vc[x0 + c->pin] = (uint16_t)rr_next(c->vin, V);
                } else
                    q->sa_in[x0 + c->pin] = (uint16_t)rr_next(c->vin, V);
                q->sa_out[x0 + c->out] = (uint16_t)rr_next(c->pin, r->radix);
                sa_grant_k(q, sw, x0, c, now, lean);
            }
        }
        if (express == NONE) { /* router_next's visit */
            uint32_t n0 = r->nact;
            int64_t t = vc_due(q, r, due, now, lean);
            if (r->nact == n0)
                adue[due] = t;
            if (t < next)
                next = t;
        } else {
            int64_t t = -1;
            if (next > now + q->express || express_clear(q, r, c, li, now + q->express, lean))
                t = sa_express(q, sw, r, li, now, islip, lean);
            if (t < 0)
                t = vc_due(q, r, c->act, now, lean);
            if (c->act != NONE)
                adue[c->act] = t;
            if (t < next)
                next = t;
        }
    }
    if (next != INT64_MAX)
        router_tick_at(q, sw, next);
    return 1;
}

/* The lean copies' tick (lean != 0, "The tick's copies"): router_tick_k's
 * decisions with fewer passes over the active list. Its one pass visits the
 * due VCs as router_tick_k's does (route computation, switch allocation
 * requests, the heads that ask for VC allocation), notes their places, and
 * takes the least due time of the others, which router_next would read as
 * they are: nothing in the tick changes them (its grants' flits and credits
 * go to other routers: no link from a router to itself, lean_of; no
 * failure, so no iq_kill). router_next's visits are then those places', in
 * its (descending) order. VC allocation: a head asking alone (most ticks at
 * low load) is granted as grant_one_input grants its requests, without
 * writing them: the free output VC of its range nearest its input's
 * pointer (its key under input-first, its output under iSLIP), both
 * pointers moving past it; none free, it loses the round. Several heads
 * write router_tick_k's requests, in its order. Switch allocation and the
 * express as router_tick_k's. */
static inline __attribute__((always_inline)) void router_tick_lean_k(iqr *q, uint32_t sw, int64_t now, const int lean)
{
    iq_router *r = &q->r[sw];
    r->tick_at = INT64_MAX;
    q->s.ticks++;
    if (router_tick_one(q, sw, r, now, lean))
        return;
    const uint32_t V = VOF(q, lean), x0 = r->x0;
    const int islip = (lean & LEAN_ALLOC) == LEAN_ISLIP;
    uint32_t *act = &q->act[(size_t)x0 * V];
    int64_t *adue = &q->adue[(size_t)x0 * V];
    uint32_t *vis = q->vis, *vreq = q->vreq; /* the due VCs' places; the heads asking for VC allocation */
    uint32_t nvis = 0, nva = 0, ns = 0;
    iq_req *sq = q->sq;
    int64_t next = INT64_MAX; /* the least due time of the VCs not due now */
    for (uint32_t a = 0, n = r->nact; a < n; a++) {
        int64_t t = adue[a];
        if (t > now) {
            if (t < next)
                next = t;
            continue;
        }
        vis[nvis++] = a;
        uint32_t li = act[a];
        iq_ivc *c = &q->ivc[(size_t)x0 * V + li];
        if (c->state == VC_ACTIVE) {
            sa_request(q, x0, li, c, now, 0, sq, &ns, V);
            continue;
        }
        if (c->state <= VC_ROUTING) {
            if (!c->n)
                continue;
            iq_flit *f = vc_front(c);
            if (f->t > now)
                continue;
            if (c->state == VC_IDLE) {
                c->state = VC_ROUTING;
                c->ready = now + q->rd;
                c->sent = 0;
            }
            vc_take(c, f->p);
            route_k(q, sw, c, f->p, now, lean);
            c->state = VC_VA;
        }
        if (c->state == VC_VA && c->ready <= now)
            vreq[nva++] = li;
    }
    uint32_t express = NONE; /* the head granted now, if it can take the express switch allocation */
    if (nva == 1) {
        uint32_t li = vreq[0];
        if (va_lone(q, sw, x0, r->radix, &q->ivc[(size_t)x0 * V + li], li, now, V, islip))
            express = li;
    } else if (nva) {
        uint32_t nr = 0, nrvc = 0; /* nrvc: VCs that made VC allocation requests */
        for (uint32_t i = 0; i < nva; i++) {
            uint32_t li = vreq[i];
            iq_ivc *c = &q->ivc[(size_t)x0 * V + li];
            TN_ASSERT(c->kind != TOPO_HOP_ADAPTIVE && c->kind != TOPO_HOP_ESCAPE && c->out != OUT_NONE,
                      "lean tick: switch %u: an adaptive or unroutable head", sw);
            uint32_t xo = x0 + c->out, any = 0;
            for (uint32_t v = c->vc_base; v < (uint32_t)c->vc_base + c->nvc; v++) {
                if (ovc_v(q, xo, v, V)->owner != NONE)
                    continue;
                q->rq[nr++] = (iq_req){.in = li, .out = c->out * V + v, .key = v, .who = li, .prio = c->cls};
                any = 1;
            }
            nrvc += any;
            if (!any) { /* no output VC free: it loses this round */
                c->ready = now + q->va;
                q->s.va_lost++;
            }
        }
        if (nr) {
            uint32_t nin = r->radix * V;
            uint16_t *pin = &q->va_in[(size_t)x0 * V], *pout = &q->va_out[(size_t)x0 * V];
            if (nrvc == 1) {
                uint32_t k = grant_one_input(q, nr, nin, nin, V, pin, pout, islip);
                va_granted(q, sw, x0, k, now, V);
                express = q->rq[k].who;
            } else if (nr == nrvc && !rq_clash(q->rq, nr)) {
                /* one request per head, no two for one output VC (allocate's case without a clash, its pointer
                   moves): all granted */
                for (uint32_t k = 0; k < nr; k++) {
                    const iq_req *a = &q->rq[k];
                    pin[a->in] = (uint16_t)(islip ? rr_next(a->out, nin) : rr_next(a->key, V));
                    pout[a->out] = (uint16_t)rr_next(a->in, nin);
                    va_granted(q, sw, x0, k, now, V);
                }
                express = q->rq[nr - 1].who;
            } else {
                allocate(q, nr, nin, nin, islip ? nin : V, pin, pout);
                for (uint32_t k = 0; k < nr; k++) {
                    iq_ivc *c = &q->ivc[(size_t)x0 * V + q->rq[k].who];
                    if (c->state != VC_VA)
                        continue; /* granted by an earlier request of its own */
                    if (q->granted[k]) {
                        va_granted(q, sw, x0, k, now, V);
                        express = q->rq[k].who;
                    }
                }
            }
            if (nr > 1 && nrvc > 1)
                for (uint32_t k = 0; k < nr; k++) {
                    iq_ivc *c = &q->ivc[(size_t)x0 * V + q->rq[k].who];
                    if (c->state == VC_VA && c->ready <= now) {
                        c->ready = now + q->va;
                        q->s.va_lost++;
                    }
                }
        }
    }
    /* switch allocation (router_tick_k's) */
    if (ns) {
        if (islip && ns > 1) { /* narrow each (input, output) to one VC, round robin */
            uint32_t k = 0;
            for (uint32_t i = 0; i < ns; i++) {
                iq_req a = sq[i];
                uint32_t j;
                for (j = 0; j < k; j++)
                    if (sq[j].in == a.in && sq[j].out == a.out)
                        break;
                uint16_t ptr = q->sa_vc[x0 + a.in];
                if (j == k)
                    sq[k++] = a;
                else if (rr_dist(a.key, ptr, V) < rr_dist(sq[j].key, ptr, V)) /* (lean: no strict) */
                    sq[j] = a;
            }
            ns = k;
        }
        uint16_t *pin = &q->sa_in[x0], *pout = &q->sa_out[x0];
        if (ns == 1 || !rq_clash(sq, ns)) { /* one request, or none sharing a port: all granted (allocate's
                                                one-input case and its case without a clash) */
            for (uint32_t k = 0; k < ns; k++) {
                q->granted[k] = 1;
                pin[sq[k].in] = (uint16_t)(islip ? rr_next(sq[k].out, r->radix) : rr_next(sq[k].key, V));
                pout[sq[k].out] = (uint16_t)rr_next(sq[k].in, r->radix);
            }
        } else {
            iq_req *save = q->rq; /* allocate works on q->rq */
            q->rq = sq;
            allocate(q, ns, r->radix, r->radix, islip ? r->radix : V, pin, pout);
            q->rq = save;
        }
        for (uint32_t k = 0; k < ns; k++) {
            iq_ivc *c = &q->ivc[(size_t)x0 * V + sq[k].who];
            if (!q->granted[k]) {
                c->ready = now + (q->sa ? q->sa : q->Tr);
                q->s.sa_lost++;
                continue;
            }
            if (islip)
                q->sa_vc[x0 + sq[k].in] = (uint16_t)rr_next(sq[k].key, V);
            sa_grant_k(q, sw, x0, c, now, lean);
        }
    }
    /* router_next's visits (the others' due times are in `next`) */
    for (uint32_t i = nvis; i-- > 0;) {
        uint32_t a = vis[i];
        if (act[a] == express)
            continue;
        uint32_t n0 = r->nact;
        int64_t t = vc_due(q, r, a, now, lean); /* due again when vc_due says (it may leave the list) */
        if (r->nact == n0)
            adue[a] = t;
        if (t < next)
            next = t;
    }
    if (express != NONE) {
        int64_t t = -1;
        iq_ivc *c = &q->ivc[(size_t)x0 * V + express];
        if (next > now + q->express || express_clear(q, r, c, express, now + q->express, lean))
            t = sa_express(q, sw, r, express, now, islip, lean);
        if (t < 0)
            t = vc_due(q, r, c->act, now, lean);
        if (c->act != NONE)
            adue[c->act] = t;
        if (t < next)
            next = t;
    }
    if (next != INT64_MAX)
        router_tick_at(q, sw, next);
}

static inline __attribute__((always_inline)) void router_tick_k(iqr *q, uint32_t sw, int64_t now, const int rates)
{
    iq_router *r = &q->r[sw];
    r->tick_at = INT64_MAX;
    q->s.ticks++;
    const uint32_t V = q->V, x0 = r->x0;
    uint32_t *act = &q->act[(size_t)x0 * V];
    /* route computation (and idle heads entering it), then the VC
     * allocation requests of the heads routed by now (one pass: a request
     * depends on its own VC and on the output VCs' owners only); with a
     * positive vc-alloc-delay the switch allocation requests in the same
     * pass (a head granted its output VC now cannot ask before now + va,
     * and a request depends on its own VC and its output VC's credits) */
    const int merged = q->va > 0;
    const int islip = q->islip;
    uint32_t nr = 0, ns = 0, nrvc = 0; /* nrvc: VCs that made VC allocation requests */
    iq_req *sq = q->sq;
    const int scan = rates || q->duescan;
    const int64_t *adue = &q->adue[(size_t)x0 * V];
    for (uint32_t a = 0; a < r->nact; a++) {
        if (!scan && adue[a] > now)
            continue; /* nothing to do at this step (head comment "Due VCs") */
        uint32_t li = act[a];
        size_t idx = (size_t)x0 * V + li;
        iq_ivc *c = &q->ivc[idx];
        if (c->state == VC_ACTIVE) {
            if (merged)
                sa_request(q, x0, li, c, now, rates, sq, &ns, V);
            continue;
        }
        if (c->state <= VC_ROUTING) {
            if (!c->n)
                continue;
            iq_flit *f = vc_front(c);
            if (f->t > now)
                continue;
            if (c->state == VC_IDLE) {
                c->state = VC_ROUTING;
                c->ready = now + q->rd;
                c->sent = 0;
            }
            /* an oblivious routing's choice depends on the packet alone: it is
             * made now and known routing-delay later (no tick of its own) */
            if (c->ready <= now || q->oblivious) {
                vc_take(c, f->p);
                route(q, sw, c, f->p, now);
                c->state = VC_VA;
            }
        }
        /* VC allocation */
        if (c->state != VC_VA || c->ready > now)
            continue;
        if (c->kind == TOPO_HOP_ADAPTIVE || c->kind == TOPO_HOP_ESCAPE) {
            /* torus adaptive: the choice among the route's candidates is
             * made again when the one asked for has no free output VC, so
             * a head that an adaptive VC held by others blocks asks for the
             * escape (Duato's protocol needs the escape always reachable) */
            uint32_t v = c->vc_base, xo = x0 + c->out;
            while (v < (uint32_t)c->vc_base + c->nvc && !va_open(q, xo, v, c, now, V))
                v++;
            if (v == (uint32_t)c->vc_base + c->nvc) {
                route(q, sw, c, vc_front(c)->p, now);
                q->s.rechosen++;
            }
        }
        if (__builtin_expect(c->out == OUT_NONE, 0)) { /* routed after a failure, no way on: lost */
            iq_kill(q, vc_front(c)->p, x0 + li / q->V, li % q->V, now, 1);
            continue;
        }
        uint32_t xo = x0 + c->out, any = 0;
        for (uint32_t v = c->vc_base; v < (uint32_t)c->vc_base + c->nvc; v++) {
            if (!va_open(q, xo, v, c, now, V))
                continue;
            q->rq[nr++] = (iq_req){.in = li, .out = c->out * V + v, .key = v, .who = li, .prio = c->cls};
            any = 1;
        }
        nrvc += any;
        if (!any) { /* no output VC free: it loses this round */
            c->ready = now + (q->va ? q->va : q->Tr);
            q->s.va_lost++;
        }
    }
    uint32_t express = NONE; /* the head granted now, if it can take the express switch allocation */
    if (nr) {
        uint32_t nin = r->radix * V;
        uint16_t *pin = &q->va_in[(size_t)x0 * V], *pout = &q->va_out[(size_t)x0 * V];
        if (nrvc == 1) { /* one input VC's requests (a head toward a host asks for every VC there): one granted,
                            and no other VC lost */
            uint32_t k = grant_one_input(q, nr, nin, nin, V, pin, pout, islip); /* nkey is read only by input-first */
            va_granted(q, sw, x0, k, now, V);
            express = q->rq[k].who;
        } else {
            allocate(q, nr, nin, nin, islip ? nin : V, pin, pout);
            for (uint32_t k = 0; k < nr; k++) {
                iq_ivc *c = &q->ivc[(size_t)x0 * V + q->rq[k].who];
                if (c->state != VC_VA)
                    continue; /* granted by an earlier request of its own */
                if (q->granted[k]) {
                    va_granted(q, sw, x0, k, now, V);
                    express = q->rq[k].who;
                }
            }
        }
        if (nr > 1 && nrvc > 1)
            for (uint32_t k = 0; k < nr; k++) {
                iq_ivc *c = &q->ivc[(size_t)x0 * V + q->rq[k].who];
                if (c->state == VC_VA && c->ready <= now) {
                    c->ready = now + (q->va ? q->va : q->Tr);
                    q->s.va_lost++;
                }
            }
    }
    /* switch allocation: one request per input VC with a flit ready and credit */
    if (!merged)
        for (uint32_t a = 0; a < r->nact; a++) {
            uint32_t li = act[a];
            size_t idx = (size_t)x0 * V + li;
            iq_ivc *c = &q->ivc[idx];
            if (c->state == VC_ACTIVE && (scan || adue[a] <= now))
                sa_request(q, x0, li, c, now, rates, sq, &ns, V);
        }
    if (ns) {
        if (islip && ns > 1) { /* narrow each (input, output) to one VC, round robin */
            uint32_t k = 0;
            for (uint32_t i = 0; i < ns; i++) {
                iq_req a = sq[i];
                uint32_t j;
                for (j = 0; j < k; j++)
                    if (sq[j].in == a.in && sq[j].out == a.out)
                        break;
                uint16_t ptr = q->sa_vc[x0 + a.in];
                if (j == k)
                    sq[k++] = a;
                else if (q->strict && a.prio != sq[j].prio ? a.prio < sq[j].prio
                                                             : rr_dist(a.key, ptr, V) < rr_dist(sq[j].key, ptr, V))
                    sq[j] = a;
            }
            ns = k;
        }
        uint16_t *pin = &q->sa_in[x0], *pout = &q->sa_out[x0];
        if (ns == 1) { /* one request: granted (allocate's one-input case) */
            q->granted[0] = 1;
            pin[sq[0].in] = (uint16_t)(islip ? rr_next(sq[0].out, r->radix) : rr_next(sq[0].key, V));
            pout[sq[0].out] = (uint16_t)rr_next(sq[0].in, r->radix);
        } else {
            iq_req *save = q->rq; /* allocate works on q->rq */
            q->rq = sq;
            allocate(q, ns, r->radix, r->radix, islip ? r->radix : V, pin, pout);
            q->rq = save;
        }
        for (uint32_t k = 0; k < ns; k++) {
            uint32_t li = sq[k].who;
            size_t idx = (size_t)x0 * V + li;
            iq_ivc *c = &q->ivc[idx];
            if (!q->granted[k]) {
                c->ready = now + (q->sa ? q->sa : q->Tr);
                q->s.sa_lost++;
                continue;
            }
            if (islip)
                q->sa_vc[x0 + sq[k].in] = (uint16_t)rr_next(sq[k].key, V);
            sa_grant(q, sw, x0, c, now);
        }
    }
    /* next tick; a head just granted its output VC whose router has nothing
     * else to do by its switch allocation's step: that allocation now
     * (sa_express) */
    if (!q->express)
        express = NONE;
    int64_t next = router_next(q, r, now, express, scan, 0);
    if (express != NONE) {
        int64_t t = -1;
        iq_ivc *c = &q->ivc[(size_t)x0 * V + express];
        if (next > now + q->express)
            t = sa_express(q, sw, r, express, now, islip, 0);
        if (t < 0)
            t = vc_due(q, r, c->act, now, 0);
        if (c->act != NONE)
            q->adue[(size_t)x0 * V + c->act] = t;
        if (t < next)
            next = t;
    }
    if (next != INT64_MAX)
        router_tick_at(q, sw, next);
}

/* ---- hosts ---- */

/* The host's try at now. With direct, dm is a message iqr_send hands to
 * an idle host with one class whose NIC would cut it alone (nic_alone),
 * taken without the NIC's queues if it goes now (1 returned), as the NIC's
 * choice would be; NULL (host_try): the NIC's messages. */
static inline __attribute__((always_inline)) int host_try_k(iqr *q, uint32_t h, int64_t now, net_msg *dm,
                                                            const int direct)
{
    swnet *st = q->st;
    iq_host *hs = &q->h[h];
    uint32_t xo = q->X + h;
    if (hs->last_ps >= 0 && now < hs->last_ps + q->T) {
        host_tick_at(q, h, hs->last_ps + q->T);
        return 0;
    }
    if (__builtin_expect(q->lT != NULL, 0) && q->lnext[xo] >= now + q->T) {
        /* an uplink of its own rate: the host's tick at which it can start
         * (link_can_start: a host's flit is on its uplink at its tick) */
        host_tick_at(q, h, q->lnext[xo] - q->T + 1);
        return 0;
    }
    int fresh = 0; /* a packet picked now: its VC has the credit (checked now) */
    if (direct || !hs->p) { /* (direct: iqr_send saw no packet) */
        if (!direct && !nic_pending(&st->nic, h))
            return 0;
        /* the NIC's choice; with per-class VCs the first class, in class
         * order, that has an injection VC of its own with room (a class
         * out of credit blocks no other) */
        uint32_t mask = !direct && q->pcls > 1 ? st->nic.node[h].mask : 0;
        uint32_t pick = NONE, kpick = UINT32_MAX, base = 0, n = q->ninj;
        int64_t t = INT64_MAX;
        do {
            uint32_t k = mask ? (uint32_t)__builtin_ctz(mask) : UINT32_MAX;
            mask &= mask - 1;
            int64_t pb = direct ? (int64_t)dm->size_bytes
                         : k == UINT32_MAX ? nic_peek_bytes(&st->nic, h) : nic_peek_class(&st->nic, h, k);
            uint64_t bytes = (uint64_t)pb;
            int32_t need = q->wormhole ? 1 : (int32_t)(bytes ? (bytes - 1) / q->flit + 1 : 1);
            base = k == UINT32_MAX ? 0 : k * q->vgrp;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t j = hs->rr + i; /* < 2n: (rr + i) mod n without a division */
                uint32_t v = base + (j >= n ? j - n : j);
                if (credits_now(q, xo, v, now) >= need) {
                    pick = v;
                    kpick = k;
                    break;
                }
            }
            if (pick != NONE)
                break;
            /* the earliest credit on its way that lets one VC go */
            for (uint32_t v = base; v < base + n; v++) {
                iq_ovc *o = ovc_at(q, xo, v);
                uint32_t miss = (uint32_t)(need - o->credits);
                if (miss <= o->cn) {
                    int64_t tv = q->cring[((size_t)xo * q->V + v) * q->depth + ring_i(q, o->ch + miss - 1)];
                    if (tv < t)
                        t = tv;
                } else
                    o->waiting = 1;
            }
        } while (mask);
        if (pick == NONE) {
            if (t != INT64_MAX)
                host_tick_at(q, h, t);
            return 0;
        }
        hs->rr = (uint16_t)(pick - base + 1 == n ? 0 : pick - base + 1);
        nic_piece pc;
        if (direct)
            nic_take_alone(&st->nic, dm, &pc);
        else if (kpick == UINT32_MAX)
            nic_take(&st->nic, h, 0, &pc);
        else
            nic_take_class(&st->nic, h, kpick, 0, &pc);
        net_msg_set_inject(pc.msg, now); /* its head flit leaves the host now (below) */
        iq_pkt *p = pkt_alloc(q);
        p->msg = pc.msg;
        p->bytes = (uint32_t)pc.bytes;
        p->nflits = (uint32_t)(pc.bytes <= q->flit ? 1 : (pc.bytes - 1) / q->flit + 1);
        p->hops = 0;
        p->cls = q->classes ? pc.prio : 0;
        if (q->words) { /* its word; of the record route reads only dst (head comment "Route words") */
            p->word = st->t.ops->rec_word(&st->t, pc.msg->src, pc.msg->dst, swnet_salt(st, pc.msg));
            p->hdr.src = pc.msg->src;
            p->hdr.dst = pc.msg->dst;
#ifdef IQ_RTAB_CHECK
            st->t.ops->hdr_init(&st->t, pc.msg->src, pc.msg->dst, swnet_salt(st, pc.msg), &p->hdr);
#endif
        } else
            st->t.ops->hdr_init(&st->t, pc.msg->src, pc.msg->dst, swnet_salt(st, pc.msg), &p->hdr);
        st->st.packets++;
        hs->p = p;
        hs->vc = (uint16_t)pick;
        hs->sent = 0;
        fresh = 1;
    }
    if (!fresh && credits_now(q, xo, hs->vc, now) < 1) {
        iq_ovc *o = ovc_at(q, xo, hs->vc);
        if (o->cn)
            host_tick_at(q, h, o->front);
        else
            o->waiting = 1;
        return 0;
    }
    ovc_at(q, xo, hs->vc)->credits--;
    iq_pkt *p = hs->p;
    hs->sent++;
    hs->last_ps = now;
    q->busy[xo]++;
    int64_t whole = now + q->T;
    if (__builtin_expect(q->lT != NULL, 0)) { /* an uplink of its own rate (as a switch's output) */
        int64_t w = now > q->lnext[xo] ? now : q->lnext[xo];
        q->lnext[xo] = w + q->lT[xo];
        whole = w + q->lT[xo];
    }
    flit_in(q, hs->x, hs->vc, p, whole + (q->hup ? q->hup[h] : q->hlink), hs->sent == 1, NULL);
    if (hs->sent == p->nflits)
        hs->p = NULL;
    if (hs->p || nic_pending(&st->nic, h))
        host_tick_at(q, h, now + q->T);
    return 1;
}

static void host_try(iqr *q, uint32_t h, int64_t now) { (void)host_try_k(q, h, now, NULL, 0); }

/* ---- the watchdog (head comment "Watchdog") ---- */

/* one stuck input VC, described into buf: where it is, its packet, and
 * what it waits for */
static int wd_describe(iqr *q, uint32_t x, uint32_t v, char *buf, size_t len)
{
    const topo *t = &q->st->t;
    const iq_ivc *c = ivc_at(q, x, v);
    uint32_t sw = q->rid[x];
    const iq_router *r = &q->r[sw];
    char swn[64], src[64], dst[64], outn[160];
    topo_node_name(t, 0, sw, swn, sizeof swn);
    const iq_pkt *p = c->n ? vc_front(c)->p : NULL;
    if (p) {
        topo_node_name(t, 1, p->msg->src, src, sizeof src);
        topo_node_name(t, 1, p->msg->dst, dst, sizeof dst);
    } else
        snprintf(src, sizeof src, "?"), snprintf(dst, sizeof dst, "?");
    if (c->state == VC_ACTIVE) {
        uint32_t xo = r->x0 + c->out;
        const iq_ovc *o = ovc_at(q, xo, c->out_vc);
        snprintf(outn, sizeof outn, "holds output %u VC %u and waits for %s", c->out, c->out_vc,
                 o->credits <= 0 && !o->cn ? "a credit that is not on its way" : "its turn");
    } else if (c->state == VC_VA && c->out != OUT_NONE) {
        uint32_t xo = r->x0 + c->out, held = NONE;
        for (uint32_t k = c->vc_base; k < c->vc_base + c->nvc && held == NONE; k++)
            held = ovc_at(q, xo, k)->owner;
        if (held != NONE)
            snprintf(outn, sizeof outn, "waits for an output VC (%u..%u) of output %u, held by input port %u VC %u",
                     c->vc_base, c->vc_base + c->nvc - 1, c->out, held / q->V, held % q->V);
        else
            snprintf(outn, sizeof outn, "waits for an output VC (%u..%u) of output %u", c->vc_base,
                     c->vc_base + c->nvc - 1, c->out);
    } else
        snprintf(outn, sizeof outn, "is being routed");
    return snprintf(buf, len, "switch %s input port %u VC %u: a packet %s -> %s (%u of %u flits here, %u sent on) %s",
                    swn, c->pin, v, src, dst, c->n, c->nflits, c->sent, outn);
}

/* no flit moved for wd_bound with packets in the fabric: stop the run with
 * the error (net_fault) naming a few stuck packets */
static __attribute__((noinline, cold)) void wd_fire(iqr *q, int64_t t)
{
    char where[2048] = "";
    size_t used = 0;
    uint32_t shown = 0, stuck = 0;
    for (uint32_t x = 0; x < q->X; x++)
        for (uint32_t v = 0; v < q->V; v++) {
            const iq_ivc *c = ivc_at(q, x, v);
            if (!c->n)
                continue;
            stuck++;
            if (shown < 4 && used + 400 < sizeof where) {
                used += (size_t)snprintf(where + used, sizeof where - used, "; ");
                int k = wd_describe(q, x, v, where + used, sizeof where - used);
                used += k > 0 && (size_t)k < sizeof where - used ? (size_t)k : 0;
                shown++;
            }
        }
    net_fault(q->st->n,
              "the input-queued fabric is deadlocked: no flit has crossed a switch and no host has started a packet "
              "for %.6g ns "
              "(since t <= %.6g ns) with %llu packets in the fabric (%u input VCs holding flits%s)%s. "
              "A deadlock-free run moves a flit within %.6g ns (iqrouter.c \"Watchdog\"): check the routing's "
              "deadlock classes and network.vcs (a channel dependency cycle), and the pipeline and credit delays",
              (double)(t - q->wd_seen) / 1e3, (double)q->wd_seen / 1e3,
              (unsigned long long)q->st->st.live_packets, stuck, shown < stuck ? ", the first 4 of them" : "", where,
              (double)q->wd_bound / 1e3);
}

/* ev_step's look, every wd_bound / 4: 1 when it stopped the run */
static __attribute__((noinline)) int wd_look(iqr *q, int64_t t)
{
    swnet *st = q->st;
    uint64_t moves = q->s.flits + st->st.packets + st->lost_packets;
    q->wd_at = t + q->wd_bound / 4;
    if (moves != q->wd_moves || st->st.live_packets == 0) {
        q->wd_moves = moves;
        q->wd_seen = t;
        return 0;
    }
    if (t - q->wd_seen < q->wd_bound)
        return 0;
    wd_fire(q, t);
    q->wd_at = INT64_MAX;
    return 1;
}

/* ---- the fabric's step ---- */

/* W steps in a row found nothing due, with ticks or deliveries pending: each
 * is further ahead than the wheel holds (a switch-latency, a link latency or
 * a slow link of thousands of steps; head comment "Events"). The first step
 * at or after `end` at which something is due: the least tick asked of a
 * router or host, and the step that schedules a host's next delivery (the
 * one whose (t, t + Tr] holds it, as its dcal bit), not after the step at
 * which the watchdog looks next. The steps skipped would have found nothing
 * to do; a run that never waits that long steps as before (the same events). */
static __attribute__((noinline)) int64_t step_skip(iqr *q, int64_t end)
{
    q->idle = 0;
    int64_t t = q->wd_at == INT64_MAX ? INT64_MAX : grid_r(q, q->wd_at);
    for (uint32_t sw = 0; sw < q->nsw; sw++)
        if (q->r[sw].tick_at < t)
            t = q->r[sw].tick_at;
    for (uint32_t h = 0; h < q->nhost; h++) {
        if (q->h[h].tick_at < t)
            t = q->h[h].tick_at;
        const net_msg *m = q->dq_head[h];
        if (m && grid_r(q, m->t_aux_ps) - q->Tr < t)
            t = grid_r(q, m->t_aux_ps) - q->Tr;
    }
    return t < end ? end : t;
}

/* The step at t: the hosts due (host order), the routers due (router
 * order), then the delivery events of the messages whose tails are whole at
 * their hosts in (t, t + Tr] (host order). A bit whose tick is not at t is
 * one asked a multiple of W steps ahead: it stays for its turn. While
 * anything is due the next step follows at t + Tr. */
static void ev_step(sim *s, void *ctx, uint64_t arg)
{
    (void)arg;
    iqr *q = ctx;
    int64_t t = sim_now(s);
    if (__builtin_expect(t >= q->wd_at, 0) && wd_look(q, t))
        return;
    q->step_at = t;
    int acted = 0;                  /* a host or a delivery was due at t (a router: its tick counted) */
    const uint64_t ticks0 = q->s.ticks;
    size_t slot = slot_of(q, (uint64_t)(t / q->Tr));
    uint64_t *hc = &q->hcal[slot * q->hwords];
    for (uint32_t w = 0; w < q->hwords; w++)
        for (uint64_t b = hc[w]; b; b &= b - 1) {
            uint32_t h = w * 64 + (uint32_t)__builtin_ctzll(b);
            if (q->h[h].tick_at != t)
                continue;
            acted = 1;
            hc[w] &= ~(b & -b);
            q->due--;
            q->h[h].tick_at = INT64_MAX;
            host_try(q, h, t);
        }
    uint64_t *rc = &q->rcal[slot * q->rwords];
    for (uint32_t w = 0; w < q->rwords; w++)
        for (uint64_t b = rc[w]; b; b &= b - 1) {
            uint32_t sw = w * 64 + (uint32_t)__builtin_ctzll(b);
            if (q->r[sw].tick_at != t)
                continue;
            rc[w] &= ~(b & -b);
            q->due--;
            router_tick(q, sw, t);
        }
    uint64_t *dc = &q->dcal[slot * q->hwords];
    int64_t end = t + q->Tr;
    uint32_t first = q->dr_tail; /* this step's deliveries in the lane's ring */
    for (uint32_t w = 0; w < q->hwords; w++)
        for (uint64_t b = dc[w]; b; b &= b - 1) {
            uint32_t h = w * 64 + (uint32_t)__builtin_ctzll(b);
            net_msg *m = q->dq_head[h];
            if (m->t_aux_ps > end)
                continue;
            acted = 1;
            do {
                q->dq_head[h] = m->next;
                if (q->dlane >= 0)
                    dr_insert(q, first, m);
                else
                    sim_schedule_at(s, m->t_aux_ps, ev_deliver, q, (uint64_t)(uintptr_t)m);
                m = q->dq_head[h];
            } while (m && m->t_aux_ps <= end);
            dc[w] &= ~(b & -b);
            if (m) /* the next one's step */
                bit_set(&q->dcal[slot_of(q, (uint64_t)((m->t_aux_ps + q->Tr - 1) / q->Tr) - 1) * q->hwords], h);
            else {
                q->dq_tail[h] = NULL;
                q->due--;
            }
        }
    for (uint32_t k = first, mask = q->dr_cap - 1; k != q->dr_tail;) { /* (in time order, after the previous
                                                                             * steps'; one event a time) */
        int64_t tk = q->dr[k & mask]->t_aux_ps;
        uint32_t n = 1;
        while (k + n != q->dr_tail && q->dr[(k + n) & mask]->t_aux_ps == tk)
            n++;
        sim_schedule_lane_at(s, q->dlane, tk, n);
        k += n;
    }
    q->step_at = INT64_MAX;
    if (q->due) {
        int64_t next = end;
        if (acted || q->s.ticks != ticks0)
            q->idle = 0;
        else if (++q->idle >= q->W)
            next = step_skip(q, end);
        step_ensure(q, next);
    } else
        q->idle = 0;
}

/* ---- links failing during the run (network.fail-at) ----
 * swnet.c's ev_fail switches the topology to its failed state (topo_fail)
 * and calls iqr_fail. The rules (iqrouter.c's head, "Links failing during
 * the run"): a packet that holds an output VC of a failed link, or has a
 * flit on one (not yet whole at the far end), is lost whole: iq_kill
 * removes all its flits wherever they are, gives their credits back and
 * frees every VC it holds; a head not yet holding an output VC is routed
 * again; a packet routed later with no way on is lost at its VC
 * allocation. No allocation: the walks follow the VCs' owners. */

/* the sender of the flits in input port x's buffers: a switch output, or host h as X + h */
static inline uint32_t sender_of(const iqr *q, uint32_t x)
{
    uint32_t up = q->peer[x];
    return (up & HOSTBIT) ? q->X + (up & ~HOSTBIT) : up;
}

/* Remove p's flits from input VC (x, v), the others kept in order; each
 * removed flit's credit goes back to the sender as if it had left the
 * buffer now (a grant's timing: sw-alloc-delay + credit-delay + the way
 * back, positive by iqr_check). Returns how many. */
static uint32_t purge(iqr *q, uint32_t x, uint32_t v, const iq_pkt *p, int64_t now)
{
    size_t idx = (size_t)x * q->V + v;
    iq_ivc *c = &q->ivc[idx];
    uint32_t kept = 0, gone = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        iq_flit f = *ring_at(q, idx, c->head + i);
        if (f.p == p)
            gone++;
        else
            *ring_at(q, idx, c->head + kept++) = f;
    }
    c->n = kept;
    uint32_t s = sender_of(q, x);
    for (uint32_t i = 0; i < gone; i++)
        credit_back(q, s, v, credit_send(q, x, now + q->sa, 0) + q->cd + q->olink[x], q->V);
    return gone;
}

/* input VC (x, v) no longer serves its packet: idle, its output VC free,
 * and its router ticks at the next step for what is behind */
static void vc_reset(iqr *q, uint32_t x, uint32_t v, int64_t now)
{
    iq_ivc *c = ivc_at(q, x, v);
    uint32_t sw = q->rid[x];
    if (c->state == VC_ACTIVE)
        ovc_at(q, q->r[sw].x0 + c->out, c->out_vc)->owner = NONE;
    c->state = VC_IDLE;
    c->sent = 0;
    if (c->n)
        router_tick_at(q, sw, now + q->Tr);
}

/* The packet input VC (x, v) serves (VC_ACTIVE: it holds an output VC):
 * its front flit's, or, when every flit of it that came here went on, the
 * packet of the VC that still sends it flits upstream (the owner of the
 * output VC feeding this one: its tail has not come), or its host's. */
static iq_pkt *pkt_of_vc(iqr *q, uint32_t x, uint32_t v)
{
    for (;;) {
        iq_ivc *c = ivc_at(q, x, v);
        if (c->n)
            return ring_at(q, (size_t)x * q->V + v, c->head)->p;
        uint32_t s = sender_of(q, x);
        if (s >= q->X)
            return q->h[s - q->X].p;
        uint32_t li = ovc_at(q, s, v)->owner;
        TN_ASSERT(li != NONE, "port %u VC %u: its packet is nowhere", x, v);
        x = q->r[q->rid[s]].x0 + li / q->V;
        v = li % q->V;
    }
}

/* p is lost: its flits are removed from every buffer and link they are in
 * (input VC (x, v) holds some of them, or serves p when cur), every VC it
 * holds is freed, a host still sending it stops, and it is counted. */
static void iq_kill(iqr *q, iq_pkt *p, uint32_t x, uint32_t v, int64_t now, int cur)
{
    swnet *st = q->st;
    /* downstream: from (x, v) along the output VCs its head took */
    uint32_t dx = x, dv = v, arrived = 0;
    int first = 1;
    for (;;) {
        iq_ivc *c = ivc_at(q, dx, dv);
        size_t idx = (size_t)dx * q->V + dv;
        /* p is the VC's packet when its flit is at the front, or (reached
         * from a VC that sent it flits) when nothing of it is left here */
        if (!first)
            cur = c->n ? ring_at(q, idx, c->head)->p == p : 1;
        uint32_t sent = cur && c->state != VC_IDLE ? c->sent : 0;
        uint32_t gone = purge(q, dx, dv, p, now);
        if (first)
            arrived = sent + gone; /* p's flits that reached (x, v) */
        first = 0;
        if (!cur)
            break; /* behind another packet: none of it went further */
        int active = c->state == VC_ACTIVE;
        uint32_t xo = q->r[q->rid[dx]].x0 + c->out, ov = c->out_vc;
        vc_reset(q, dx, dv, now);
        if (!active || !sent || (q->peer[xo] & HOSTBIT))
            break;
        dx = q->peer[xo];
        dv = ov;
    }
    /* upstream: the VCs that still hold its later flits, up to its host */
    uint32_t ux = x, uv = v;
    while (arrived < p->nflits) {
        uint32_t s = sender_of(q, ux);
        if (s >= q->X) {
            iq_host *hs = &q->h[s - q->X];
            if (hs->p == p) { /* its flits not sent yet are not sent */
                hs->p = NULL;
                if (nic_pending(&st->nic, s - q->X))
                    host_tick_at(q, s - q->X, now + 1); /* its next flit time after now */
            }
            break;
        }
        iq_ovc *o = ovc_at(q, s, uv);
        TN_ASSERT(o->owner != NONE, "lost packet: port %u VC %u has no owner upstream", ux, uv);
        uint32_t sw = q->rid[s], li = o->owner;
        ux = q->r[sw].x0 + li / q->V;
        uv = li % q->V;
        iq_ivc *c = ivc_at(q, ux, uv);
        arrived = c->sent + purge(q, ux, uv, p, now);
        vc_reset(q, ux, uv, now);
    }
    st->lost_packets++;
    net_msg *m = p->msg;
    pkt_release(q, p);
    m->aux = (m->aux - 1) | MSG_DROPPED;
    if ((uint32_t)m->aux == MSG_DROPPED)
        net_dropped(st->n, m);
}

void iqr_no_lean(swnet *st) { st->iq->lean = 0; }
void iqr_no_express(swnet *st)
{
    st->iq->express = 0;
    st->iq->lean = 0;
}

void iqr_fail(swnet *st, int64_t now)
{
    iqr *q = st->iq;
    const topo *t = &st->t;
    q->duescan = 1; /* kills and re-routes below change VCs outside their ticks: every tick visits them all */
    q->lean = 0;    /* (express is off with failures, so lean was never chosen: kept for safety) */
    free(q->rtab); /* routes change (a failing topology has no next_dst; kept for safety) */
    q->rtab = NULL;
    for (uint32_t xo = 0; xo < q->X; xo++) {
        if (!topo_fail_dead(t, st->hosts + xo))
            continue;
        uint32_t dn = q->peer[xo];
        TN_ASSERT(!(dn & HOSTBIT), "a host's link failed (port %u)", xo);
        for (uint32_t v = 0; v < q->V; v++) {
            /* the packet holding the output VC: its head is committed to the link */
            iq_ovc *o = ovc_at(q, xo, v);
            while (o->owner != NONE) {
                uint32_t sw = q->rid[xo], li = o->owner;
                uint32_t x = q->r[sw].x0 + li / q->V, w = li % q->V;
                iq_kill(q, pkt_of_vc(q, x, w), x, w, now, 1);
            }
            /* flits on the link, not whole at the far end yet */
            iq_ivc *d = ivc_at(q, dn, v);
            for (;;) {
                iq_pkt *p = NULL;
                for (uint32_t i = 0; i < d->n && !p; i++) {
                    iq_flit *f = ring_at(q, (size_t)dn * q->V + v, d->head + i);
                    if (f->t > now)
                        p = f->p;
                }
                if (!p)
                    break;
                iq_kill(q, p, dn, v, now, d->n && ring_at(q, (size_t)dn * q->V + v, d->head)->p == p);
            }
        }
    }
    /* heads routed before the failure and not yet holding an output VC:
     * routed again (their record moves on only at the VC grant) */
    for (uint32_t x = 0; x < q->X; x++)
        for (uint32_t v = 0; v < q->V; v++) {
            iq_ivc *c = ivc_at(q, x, v);
            if (c->state == VC_VA && c->n) {
                route(q, q->rid[x], c, ring_at(q, (size_t)x * q->V + v, c->head)->p, now);
                router_tick_at(q, q->rid[x], now + q->Tr);
            }
        }
}

/* ---- ops ---- */

/* whether now is on the grid of T; the last time found so is kept: a
 * step's hand-overs come at few times (one a slot with bernoulli injection),
 * so most skip grid's division */
static inline int on_grid(iqr *q, int64_t now)
{
    if (now == q->grid_seen)
        return 1;
    if (grid(q, now) != now)
        return 0;
    q->grid_seen = now;
    return 1;
}

void iqr_send(swnet *st, net_msg *m)
{
    iqr *q = st->iq;
    int64_t now = sim_now(net_sim(st->n));
    TN_ASSERT(m->src < st->hosts && m->dst < st->hosts, "message %u -> %u on %u hosts", m->src, m->dst, st->hosts);
    if (st->t_first_ps < 0)
        st->t_first_ps = now;
    m->aux = m->size_bytes <= st->mtu ? 1 : (m->size_bytes - 1) / st->mtu + 1; /* (without a division for one) */
    m->t_aux_ps = 0;
    m->next = NULL;
    iq_host *hs = &q->h[m->src];
    if (!hs->p && hs->tick_at == INT64_MAX && q->pcls == 1 && on_grid(q, now) && nic_alone(&st->nic, m)) {
        /* host_try now, as below, with m taken alone (nic_alone) if it goes; else queued as below, after
         * host_try's decisions, which were those of m in the NIC */
        if (!host_try_k(q, m->src, now, m, 1))
            nic_push(&st->nic, m);
        return;
    }
    nic_push(&st->nic, m);
    /* a host with no packet on its uplink tries m at its first flit time
     * from now (head comment "Sources"), whatever tick it has pending later:
     * a tick for a credit (of a VC of another class, or one the NIC's
     * previous choice needed, or a stale wake: iq_ovc.waiting) says nothing
     * of m (check_iqrouter test_host_tick_pending). host_try decides from
     * the credits, the NIC and its last flit, and asks its next tick again
     * (a host keeps its earliest only). */
    if (!hs->p && hs->tick_at > now) {
        if (on_grid(q, now))
            host_try(q, m->src, now);
        else
            host_tick_at(q, m->src, now);
    }
}

/* The head comment's zero load of F flits over h switches from its terms
 * (an instance's in iqr_zero_load_h_ps, the parameters' in
 * iqr_fixed_latency_ps): (h + 1)(T + link) with the two host links at
 * hlink, h D, (F - 1) T; with speedup (Tr != T) D is rounded up to a flit
 * time, as the output buffer sends at flit-time edges. */
static int64_t zero_load_terms(int64_t T, int64_t Tr, int64_t link, int64_t hlink, int64_t D, uint32_t h, int64_t F)
{
    if (Tr != T)
        D = (D + T - 1) / T * T; /* grid() of D */
    return 2 * (T + hlink) + ((int64_t)h - 1) * (T + link) + (int64_t)h * D + (F - 1) * T;
}

int64_t iqr_zero_load_h_ps(const swnet *st, uint32_t h, uint64_t bytes)
{
    const iqr *q = st->iq;
    uint64_t K = bytes ? (bytes - 1) / st->mtu + 1 : 1;
    uint64_t last = bytes - (K - 1) * st->mtu;
    int64_t F = (int64_t)(bytes ? (bytes - 1) / q->flit + 1 : 1);
    if (K > 1)
        F = (int64_t)((K - 1) * ((st->mtu - 1) / q->flit + 1) + (last ? (last - 1) / q->flit + 1 : 1));
    /* No bytes: the head's latency without its flit's serialisation, F = 0
     * (the router still moves one flit, so this is a lower bound). The
     * kernel and pattern bounds add a message's bytes at B to this
     * (pexec_fixed_ps): with a flit's T in it, a message of F flits would be
     * bounded by (F - 1) T + T + its bytes at B, above its (F - 1) T + T when
     * its bytes nearly fill its flits (random configuration 128, seed 1: a
     * 604-byte message in 128-byte flits, 153.04 ns bound, 149.88 ns run). */
    if (!bytes)
        F = 0;
    return zero_load_terms(q->T, q->Tr, q->link, q->hlink, q->rd + q->va + q->sa + q->stx, h, F);
}

int64_t iqr_fixed_latency_ps(const net_params *core, const swnet_params *p)
{
    /* the terms iqr_init takes from the same parameters: T from the flit
     * at B (at least 1 ps), Tr = T / speedup, the host links' latency, the
     * switch's four delays with switch-latency in st's */
    int64_t T = 1;
    if (core->bandwidth_bps > 0 && core->bandwidth_bps <= NET_MAX_BPS && p->flit_bytes > 0) {
        net_rate r;
        net_rate_init(&r, core->bandwidth_bps);
        T = net_rate_ps(&r, p->flit_bytes);
        if (T < 1)
            T = 1;
    }
    int64_t Tr = T / (p->speedup ? p->speedup : 1);
    if (Tr < 1)
        Tr = 1;
    int64_t hlink = p->host_link_ps >= 0 ? p->host_link_ps : core->link_latency_ps;
    int64_t D = p->routing_delay_ps + p->vc_alloc_delay_ps + p->sw_alloc_delay_ps + p->st_delay_ps +
                p->switch_latency_ps;
    /* one switch (h = 1), no bytes (F = 0): T + 2 host link + D */
    return zero_load_terms(T, Tr, core->link_latency_ps, hlink, D, 1, 0);
}

int iqr_link_latency_varies(const swnet *st) { return st->iq->varies || st->iq->lT; }

int64_t iqr_zero_load_route_ps(const swnet *st, const uint64_t *links, size_t L, uint64_t bytes)
{
    const iqr *q = st->iq;
    if (!q->lT)
        return iqr_zero_load_h_ps(st, (uint32_t)(L - 1), bytes) + iqr_route_extra_ps(st, links, L);
    uint64_t K = bytes ? (bytes - 1) / st->mtu + 1 : 1;
    uint64_t last = bytes - (K - 1) * st->mtu;
    int64_t F = (int64_t)(bytes ? (bytes - 1) / q->flit + 1 : 1);
    if (K > 1)
        F = (int64_t)((K - 1) * ((st->mtu - 1) / q->flit + 1) + (last ? (last - 1) / q->flit + 1 : 1));
    int64_t D = q->rd + q->va + q->sa + q->stx, E = q->sa + q->stx;
    if (q->Tr != q->T)
        D = grid(q, D);
    /* stage i (0: the source host, 1..h the switches) sends on links[i]
     * (its flit time Tl_i, at most one flit per T: P_i = max(Tl_i, T), its
     * latency lat_i). Head's first bit on link i at w_i,0 = w_i-1,0 +
     * Tl_i-1 + lat_i-1 + D; flit j's at w_i,j = max(w_i-1,j + Tl_i-1 +
     * lat_i-1 + E, w_i,j-1 + P_i): the longest path of this max-plus
     * lattice takes every stage step at the head (they cost D >= E there)
     * up to some stage m, the F - 1 flit steps at m, then the stage steps
     * at the tail: the max over m. The tail is whole at the host Tl_h +
     * lat_h after its first bit left on the last link. */
    int64_t best = INT64_MIN, headpart = 0;
    int64_t tailpart_all = 0;
    for (size_t i = 0; i + 1 < L; i++) {
        uint32_t x = links[i] < st->hosts ? q->X + (uint32_t)links[i] : (uint32_t)(links[i] - st->hosts);
        int64_t lat = links[i] < st->hosts ? (q->hup ? q->hup[links[i]] : q->hlink) : q->olink[x];
        tailpart_all += q->lT[x] + lat + E;
    }
    int64_t tailpart = tailpart_all;
    for (size_t m = 0; m < L; m++) {
        uint32_t x = links[m] < st->hosts ? q->X + (uint32_t)links[m] : (uint32_t)(links[m] - st->hosts);
        int64_t P = q->lT[x] > q->T ? q->lT[x] : q->T;
        int64_t v = headpart + (F > 1 ? (F - 1) * P : 0) + tailpart;
        if (v > best)
            best = v;
        if (m + 1 < L) {
            int64_t lat = links[m] < st->hosts ? (q->hup ? q->hup[links[m]] : q->hlink) : q->olink[x];
            headpart += q->lT[x] + lat + D;
            tailpart -= q->lT[x] + lat + E;
        }
    }
    uint32_t xe = (uint32_t)(links[L - 1] - st->hosts);
    /* no bytes: without a flit time, as iqr_zero_load_h_ps's F = 0 */
    return best + q->lT[xe] + q->olink[xe] - (bytes ? 0 : q->T);
}

int64_t iqr_route_extra_ps(const swnet *st, const uint64_t *links, size_t n)
{
    const iqr *q = st->iq;
    int64_t extra = 0;
    for (size_t i = 0; i < n; i++) {
        if (links[i] < st->hosts) { /* a host uplink: its own latency (DOT) or host-link-latency */
            if (q->hup)
                extra += q->hup[links[i]] - q->hlink;
            continue;
        }
        uint64_t x = links[i] - st->hosts;
        extra += q->olink[x] - ((q->peer[x] & HOSTBIT) ? q->hlink : q->link);
    }
    return extra;
}

void iqr_fill_metrics(const swnet *st, double *m)
{
    const iqr *q = st->iq;
    int64_t span = st->t_last_ps - st->t_first_ps;
    if (st->t_first_ps >= 0 && span > 0) {
        double sum = 0, max = 0;
        /* links: host uplinks (X + h) and switch outputs (x) */
        for (uint32_t l = 0; l < q->X + st->hosts; l++) {
            double u = (double)q->busy[l] * (double)(q->lT ? q->lT[l] : q->T);
            sum += u;
            if (u > max)
                max = u;
        }
        m[M_link_utilization_mean] = sum / ((double)st->links * (double)span);
        m[M_link_utilization_max] = max / (double)span;
    }
}

double iqr_energy_j(const swnet *st)
{
    return (double)st->iq->link_bits * st->serdes_link_j + (double)st->iq->core_bits * st->core_j;
}

void iqr_get_stats(const swnet *st, iqr_stats *out) { *out = st->iq->s; }

uint64_t iqr_leaks(const swnet *st)
{
    const iqr *q = st->iq;
    uint64_t bad = st->st.live_packets;
    for (uint32_t xo = 0; xo < q->X + st->hosts; xo++) {
        /* toward a host no credits are counted (hosts sink every flit);
         * host uplinks (xo >= X) have no owners */
        int to_host = xo < q->X && (q->peer[xo] & HOSTBIT);
        for (uint32_t v = 0; v < q->V; v++) {
            const iq_ovc *o = &q->ovc[(size_t)xo * q->V + v];
            bad += !to_host && o->credits + (int32_t)o->cn != (int32_t)q->depth;
            bad += xo < q->X && o->owner != NONE;
        }
    }
    for (size_t i = 0; i < (size_t)q->X * q->V; i++)
        bad += q->ivc[i].n != 0 || q->ivc[i].state != VC_IDLE;
    return bad;
}

void iqr_fini(swnet *st)
{
    iqr *q = st->iq;
    if (!q)
        return;
    free(q->r);
    free(q->hup);
    free(q->peer);
    free(q->rid);
    free(q->olink);
    free(q->out_free);
    free(q->cfree);
    free(q->lT);
    free(q->lnext);
    free(q->ivc);
    free(q->ring);
    free(q->ovc);
    free(q->cring);
    free(q->act);
    free(q->adue);
    free(q->va_in);
    free(q->va_out);
    free(q->sa_in);
    free(q->sa_out);
    free(q->sa_vc);
    free(q->busy);
    free(q->h);
    free(q->rq);
    free(q->sq);
    free(q->m_in);
    free(q->m_out);
    free(q->choice);
    free(q->vis);
    free(q->vreq);
    free(q->granted);
    free(q->rcal);
    free(q->hcal);
    free(q->dcal);
    free(q->dq_head);
    free(q->dq_tail);
    free(q->dr);
    free(q->rtab);
    free(q);
    st->iq = NULL;
}

/* The step calendar: W slots, enough for the usual delays ahead (a tick
 * asked further waits in its slot for its turn). */
static void calendar_init(iqr *q, uint32_t S, uint32_t N)
{
    int64_t maxl = q->hlink > q->link ? q->hlink : q->link;
    for (uint32_t x = 0; x < q->X; x++)
        if (q->olink[x] > maxl)
            maxl = q->olink[x];
    if (q->hup)
        for (uint32_t h = 0; h < N; h++)
            if (q->hup[h] > maxl)
                maxl = q->hup[h];
    int64_t d = q->sa + q->stx + q->T + maxl + q->rd + q->va + q->cd + 2 * q->T;
    uint64_t steps = (uint64_t)(d / q->Tr) + 2;
    q->W = 16;
    while (q->W < steps && q->W < 4096)
        q->W *= 2;
    q->nsw = S;
    q->nhost = N;
    q->rwords = (S + 63) / 64;
    q->hwords = (N + 63) / 64;
    q->rcal = tn_xcalloc((size_t)q->W * q->rwords, sizeof *q->rcal);
    q->hcal = tn_xcalloc((size_t)q->W * q->hwords, sizeof *q->hcal);
    q->dcal = tn_xcalloc((size_t)q->W * q->hwords, sizeof *q->dcal);
    q->dq_head = tn_xcalloc(N ? N : 1, sizeof *q->dq_head);
    q->dq_tail = tn_xcalloc(N ? N : 1, sizeof *q->dq_tail);
    q->dlane = sim_lane_abs(net_sim(q->st->n), ev_deliver_lane, q);
    q->dr_cap = 64;
    q->dr = tn_xmalloc(q->dr_cap * sizeof *q->dr);
    q->dr_head = q->dr_tail = 0;
    q->grid_seen = -1;
    q->due = 0;
    q->step_at = INT64_MAX;
}

/* Whether a head's switch allocation at its router's step t + e after its
 * VC grant at t (e = vc-alloc-delay on the grid of Tr) can be decided at t
 * (sa_express), when no other VC known at the router has anything to do by
 * t + e: nothing not yet known at t may act there by t + e. A flit a switch
 * has not yet sent is whole at the router at t + sa + st + T + link or
 * later (e < that); a credit not yet on its way comes at t + sa +
 * credit-delay + link or later (e < that). A host's flit not yet sent is
 * whole at t + T + its uplink or later: e < that, or e equal to it and a
 * positive routing-delay, since such a flit is then a head (a host sends a
 * packet's other flits in the steps after its head, known before) that
 * asks for its route's or VC's decision routing-delay after it is whole. */
static void express_init(iqr *q, uint32_t N)
{
    int64_t lsw = INT64_MAX, lh = q->hlink;
    for (uint32_t x = 0; x < q->X; x++)
        if (!(q->peer[x] & HOSTBIT) && q->olink[x] < lsw)
            lsw = q->olink[x];
    if (q->hup)
        for (uint32_t h = 0; h < N; h++)
            if (q->hup[h] < lh)
                lh = q->hup[h];
    int64_t lh_f = q->T + lh; /* a host's flit */
    int64_t lsw_f = lsw == INT64_MAX ? INT64_MAX : q->sa + q->stx + q->T + lsw; /* a switch's flit */
    int64_t lc = lsw == INT64_MAX ? INT64_MAX : q->sa + q->cd + lsw;
    int64_t e = grid_r(q, q->va);
    q->express = e > 0 && e < lsw_f && e < lc && (e < lh_f || (e == lh_f && q->rd > 0)) ? e : 0;
    /* links of their own rate (a faster link's flit is whole sooner; the
     * link gate) and links failing during the run (a failure between t and
     * t + e loses the packet where it is): the tick at t + e as ever */
    if (q->lT || q->st->fail_at_ps >= 0)
        q->express = 0;
    q->x_idle = q->express > 0 && q->express < q->Tr + q->rd;
    q->x_behind = q->express > 0 && q->express < 2 * q->Tr + q->rd;
}

/* The tick's lean copy (above router_tick, "The tick's copies") when the
 * configuration is the common case it is compiled for, else 0 */
static int lean_of(const iqr *q)
{
    if (!q->oblivious || q->lT || q->Tr != q->T || q->cfree || q->strict || q->pcls != 1 || q->va <= 0 ||
        q->express <= 0 || q->duescan)
        return 0;
    for (uint32_t x = 0; x < q->X; x++) /* no link from a switch to itself (express_clear) */
        if (!(q->peer[x] & HOSTBIT) && q->rid[q->peer[x]] == q->rid[x])
            return 0;
    return (q->islip ? LEAN_ISLIP : LEAN_IF) | (q->V == 2 ? LEAN_V2 : 0);
}

static uint32_t depth_of(const swnet_params *p) { return (uint32_t)(p->vc_buffer_bytes / p->flit_bytes); }

/* Priority classes with VCs of their own: NET_PRIO_CLASSES with
 * network.vc-map per-class when the hosts serve classes, else 1. */
static uint32_t iqr_pcls(const swnet_params *p)
{
    int classes = nic_classes_on(&p->nic, nic_ports_strict(&p->nic, p->control_first));
    return classes && p->vc_map == SWNET_VC_PER_CLASS ? NET_PRIO_CLASSES : 1;
}

double iqr_mem_bytes(const swnet_params *p, const topo *t)
{
    double V = (double)t->vcs * p->vcs * iqr_pcls(p), X = (double)(t->links - t->hosts), d = depth_of(p);
    return X * V * (sizeof(iq_ivc) + sizeof(iq_ovc) + 4 + 10 + d * (sizeof(iq_flit) + 8)) +
           X * (32 + (p->speedup > 1 ? 8 : 0)) +
           (double)t->hosts * (sizeof(iq_host) + V * (sizeof(iq_ovc) + 8 * d)) + (double)t->switches * sizeof(iq_router) +
           (rt_wanted(t) ? 4.0 * t->switches * t->hosts : 0);
}

void iqr_check(const net_params *core, const swnet_params *p, param_report *rep)
{
    if (p->router != SWNET_IQ) {
        if (p->switching != SWNET_CUT_THROUGH)
            param_invalid(rep, "network.switching", "the output-queued router is virtual cut-through; set "
                                                    "network.router=\"input-queued\" for wormhole");
        if (p->host_link_ps >= 0)
            param_invalid(rep, "network.host-link-latency", "the output-queued router's links all take "
                                                            "network.link-latency; set network.router=\"input-queued\"");
        if (p->vcs != 1)
            param_invalid(rep, "network.vcs", "%u: the output-queued router has one VC per deadlock class; set "
                                              "network.router=\"input-queued\" for more", p->vcs);
        if (p->speedup != 1)
            param_invalid(rep, "network.speedup", "%u: the output-queued router has no crossbar to speed up; set "
                                                  "network.router=\"input-queued\"", p->speedup);
        return;
    }
    if (p->flow_control != SWNET_CREDIT)
        param_invalid(rep, "network.flow-control",
                      "the input-queued router needs credit flow control (its input VC buffers are the model)");
    if (p->switching == SWNET_SAF)
        param_invalid(rep, "network.switching", "store-and-forward is the single switch's; the input-queued router "
                                                "is cut-through or wormhole");
    if (p->flit_bytes == 0 || p->flit_bytes > (1u << 20))
        param_invalid(rep, "network.flit-size", "must be between 1B and 1MiB");
    else {
        uint64_t d = p->vc_buffer_bytes / p->flit_bytes;
        if (d < 1 || d > (1u << 20))
            param_invalid(rep, "network.vc-buffer", "holds %llu flits of %llu B; 1 to 2^20 are supported",
                          (unsigned long long)d, (unsigned long long)p->flit_bytes);
        uint64_t F = (p->nic.mtu_bytes + p->flit_bytes - 1) / p->flit_bytes;
        if (p->switching == SWNET_CUT_THROUGH && F > d)
            param_invalid(rep, "network.vc-buffer",
                          "cut-through needs a whole packet in a VC buffer: %llu flits of network.mtu, the buffer "
                          "holds %llu (or network.switching=\"wormhole\")",
                          (unsigned long long)F, (unsigned long long)d);
        if (F > UINT32_MAX / 2)
            param_invalid(rep, "network.flit-size", "too many flits per packet");
    }
    /* A credit reaches its sender sw-alloc-delay + credit-delay + link after the flit left the buffer. At 0
     * it would be usable in the tick that freed it: the sender, having ticked already at that time, would
     * tick again and an output could send two flits in one flit time (found by an independent review on a
     * 4x4 torus with every delay 0: 31,597 such pairs). BookSim2's credits take at least a cycle. (The
     * dragonfly's links between groups: its own check, net_dragonfly.c; a graph's edges of latency 0: net_graph.c.) */
    int64_t hl = p->host_link_ps >= 0 ? p->host_link_ps : core->link_latency_ps;
    int64_t shortest = core->link_latency_ps < hl ? core->link_latency_ps : hl;
    if (p->sw_alloc_delay_ps + p->credit_delay_ps + shortest <= 0)
        param_invalid(rep, "network.credit-delay",
                      "sw-alloc-delay + credit-delay + the shortest link latency is 0: a credit would be used in "
                      "the flit time that freed it; give one of them a positive time (BookSim2's credits take a "
                      "cycle: credit-delay=\"1ns\" at 8Gb/s with 1-byte flits)");
    if (core->bandwidth_bps > 0 && p->flit_bytes && (double)p->flit_bytes * 8e12 / core->bandwidth_bps < 1)
        param_invalid(rep, "network.flit-size", "a flit takes less than 1 ps at %g b/s", core->bandwidth_bps);
    else if (core->bandwidth_bps > 0 && p->flit_bytes && p->speedup > 1) {
        /* the router steps every T / speedup: a whole number of ps that the flit time is a multiple of */
        double T = (double)p->flit_bytes * 8e12 / core->bandwidth_bps;
        double steps = T / p->speedup;
        if (T != floor(T) || steps != floor(steps))
            param_invalid(rep, "network.speedup",
                          "%u: the flit time (%.6g ps) must be a whole number of ps divisible by the speedup", p->speedup,
                          T);
    }
}

int iqr_init(swnet *st, const swnet_params *p, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    iqr *q = tn_xmalloc(sizeof *q);
    memset(q, 0, sizeof *q);
    st->iq = q;
    q->st = st;
    const topo *t = &st->t;
    q->X = t->links - t->hosts;
    q->vpc = p->vcs;
    q->strict = nic_ports_strict(&p->nic, p->control_first);
    q->classes = nic_classes_on(&p->nic, q->strict);
    q->pcls = iqr_pcls(p);
    q->vgrp = t->vcs * p->vcs;
    q->ninj = q->vgrp;
    q->V = q->pcls * q->vgrp;
    TN_ASSERT(q->V <= 65535, "%u VCs per port", q->V);
    q->depth = depth_of(p);
    q->flit = p->flit_bytes;
    q->T = net_rate_ps(&st->rate, p->flit_bytes);
    if (q->T < 1)
        q->T = 1;
    q->rd = p->routing_delay_ps;
    q->va = p->vc_alloc_delay_ps;
    q->sa = p->sw_alloc_delay_ps;
    q->stx = p->st_delay_ps + p->switch_latency_ps; /* the head's "Switch latency" */
    q->cd = p->credit_delay_ps;
    q->Tr = q->T / (p->speedup ? p->speedup : 1);
    if (q->Tr < 1)
        q->Tr = 1;
    q->link = st->link_ps;
    q->hlink = p->host_link_ps >= 0 ? p->host_link_ps : st->link_ps;
    if (st->lrate) { /* links of their own rate: a flit's time on each (swnet.c's links l: hosts' uplinks h, then
                        switch outputs hosts + x) */
        uint32_t Xl = t->links - t->hosts;
        q->lT = tn_xmalloc((size_t)(Xl + t->hosts) * sizeof *q->lT);
        q->lnext = tn_xmalloc((size_t)(Xl + t->hosts) * sizeof *q->lnext);
        for (uint32_t x = 0; x < Xl + t->hosts; x++) {
            uint32_t l = x < Xl ? t->hosts + x : x - Xl;
            q->lT[x] = net_rate_ps(&st->lrate[l], p->flit_bytes);
            if (q->lT[x] < 1)
                q->lT[x] = 1;
            q->lnext[x] = 0;
        }
        q->lgate = q->Tr == q->T;
    }
    if (st->llat) { /* hosts' uplinks of their own latency (the others at host-link-latency) */
        q->hup = tn_xmalloc((size_t)t->hosts * sizeof *q->hup);
        for (uint32_t h = 0; h < t->hosts; h++) {
            double b;
            int64_t ps = -1;
            t->ops->link_attr(t, h, &b, &ps);
            q->hup[h] = ps >= 0 ? ps : q->hlink;
        }
    }
    q->wormhole = p->switching == SWNET_WORMHOLE;
    q->oblivious = !st->t.adaptive;
    if (q->oblivious && rt_wanted(t))
        q->rtab = tn_xcalloc((size_t)t->switches * t->hosts, sizeof *q->rtab);
    /* route words: not with links failing during the run (iqr_fail routes again from the records) */
    q->words = q->oblivious && t->ops->rec_word && t->ops->next_word && t->ops->dst_routed && t->ops->dst_routed(t) &&
               st->fail_at_ps < 0;
    q->islip = p->allocator == SWNET_ISLIP;
    q->iters = p->alloc_iters ? p->alloc_iters : 1;
    uint32_t S = t->switches, V = q->V, X = q->X, N = t->hosts;
    q->r = tn_xmalloc(S * sizeof *q->r);
    q->peer = tn_xmalloc((size_t)X * sizeof *q->peer);
    q->rid = tn_xmalloc((size_t)X * sizeof *q->rid);
    q->olink = tn_xmalloc((size_t)X * sizeof *q->olink);
    q->out_free = tn_xmalloc((size_t)X * sizeof *q->out_free);
    q->cfree = q->Tr != q->T ? tn_xcalloc((size_t)X, sizeof *q->cfree) : NULL;
    q->maxr = 0;
    for (uint32_t s = 0; s < S; s++) {
        iq_router *r = &q->r[s];
        r->tick_at = INT64_MAX;
        r->x0 = (uint32_t)t->ops->port_base(t, s);
        r->radix = t->ops->radix(t, s);
        r->nact = 0;
        if (r->radix > q->maxr)
            q->maxr = r->radix;
        for (uint32_t pt = 0; pt < r->radix; pt++) {
            topo_end e = t->ops->peer(t, s, pt);
            q->peer[r->x0 + pt] = e.kind == TOPO_HOST ? (HOSTBIT | e.id) : (uint32_t)t->ops->port_base(t, e.id) + e.port;
            q->rid[r->x0 + pt] = s;
            q->out_free[r->x0 + pt] = 0;
            /* a dragonfly's links between groups take global-link-latency (both directions) */
            int global = e.kind != TOPO_HOST && p->group_routers && p->global_link_ps >= 0 &&
                         s / p->group_routers != e.id / p->group_routers;
            q->olink[r->x0 + pt] = e.kind == TOPO_HOST ? q->hlink : global ? p->global_link_ps : q->link;
            if (global && p->global_link_ps != q->link)
                q->varies = 1;
            if (st->llat) { /* a link of its own latency (topo_ops.link_attr: the graph's edges) */
                double b;
                int64_t ps = -1;
                t->ops->link_attr(t, t->hosts + r->x0 + pt, &b, &ps);
                if (ps >= 0) {
                    q->olink[r->x0 + pt] = ps;
                    q->varies = 1;
                }
            }
        }
    }
    size_t nv = (size_t)X * V;
    q->ivc = tn_xalloc_big(nv * sizeof *q->ivc); /* (page-aligned: every VC one line) */
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t pt = 0; pt < q->r[s].radix; pt++)
            for (uint32_t v = 0; v < V; v++)
                q->ivc[(size_t)(q->r[s].x0 + pt) * V + v] =
                    (iq_ivc){.act = NONE, .state = VC_IDLE, .pin = (uint16_t)pt, .vin = (uint16_t)v};
    q->ring = tn_xalloc_big(nv * q->depth * sizeof *q->ring);
    for (size_t i = 0; i < nv; i++)
        q->ivc[i].buf = &q->ring[i * q->depth];
    size_t no = (size_t)(X + N) * V;
    q->ovc = tn_xmalloc(no * sizeof *q->ovc);
    for (size_t i = 0; i < no; i++)
        q->ovc[i] = (iq_ovc){.credits = (int32_t)q->depth, .owner = NONE};
    q->cring = tn_xalloc_big(no * q->depth * sizeof *q->cring);
    q->act = tn_xmalloc(nv * sizeof *q->act);
    q->adue = tn_xmalloc(nv * sizeof *q->adue);
    q->va_in = tn_xmalloc(nv * sizeof(uint16_t));
    q->va_out = tn_xmalloc(nv * sizeof(uint16_t));
    q->sa_in = tn_xmalloc((size_t)X * sizeof(uint16_t));
    q->sa_out = tn_xmalloc((size_t)X * sizeof(uint16_t));
    q->sa_vc = tn_xmalloc((size_t)X * sizeof(uint16_t));
    memset(q->va_in, 0, nv * sizeof(uint16_t));
    memset(q->va_out, 0, nv * sizeof(uint16_t));
    memset(q->sa_in, 0, (size_t)X * sizeof(uint16_t));
    memset(q->sa_out, 0, (size_t)X * sizeof(uint16_t));
    memset(q->sa_vc, 0, (size_t)X * sizeof(uint16_t));
    q->busy = tn_xmalloc((size_t)(X + N) * sizeof *q->busy);
    memset(q->busy, 0, (size_t)(X + N) * sizeof *q->busy);
    q->h = tn_xmalloc((size_t)N * sizeof *q->h);
    for (uint32_t h = 0; h < N; h++) {
        uint32_t sw, port;
        t->ops->attach(t, h, &sw, &port);
        q->h[h] = (iq_host){.tick_at = INT64_MAX, .x = q->r[sw].x0 + port, .last_ps = -1};
    }
    size_t nrq = (size_t)q->maxr * V * V + q->maxr * V;
    q->rq = tn_xmalloc(nrq * sizeof *q->rq);
    q->sq = tn_xmalloc((size_t)q->maxr * V * sizeof *q->sq);
    q->granted = tn_xmalloc(nrq);
    q->m_in = tn_xmalloc((size_t)q->maxr * V * sizeof *q->m_in);
    q->m_out = tn_xmalloc((size_t)q->maxr * V * sizeof *q->m_out);
    q->choice = tn_xmalloc((size_t)q->maxr * V * sizeof *q->choice);
    q->vis = tn_xmalloc((size_t)q->maxr * V * sizeof *q->vis);
    q->vreq = tn_xmalloc((size_t)q->maxr * V * sizeof *q->vreq);
    calendar_init(q, S, N);
    express_init(q, N);
    q->lean = lean_of(q);
    q->sa_grid = !q->varies && !q->lT && (q->sa + q->stx + q->T + q->link) % q->Tr == 0;
    /* the watchdog's bound (head comment "Watchdog") */
    int64_t Tmax = q->T, Lmax = q->hlink;
    for (uint32_t x = 0; x < X + (q->lT ? N : 0); x++)
        if (q->lT && q->lT[x] > Tmax)
            Tmax = q->lT[x];
    for (uint32_t x = 0; x < X; x++)
        if (q->olink[x] > Lmax)
            Lmax = q->olink[x];
    for (uint32_t h = 0; q->hup && h < N; h++)
        if (q->hup[h] > Lmax)
            Lmax = q->hup[h];
    double loop = 2.0 * V * q->depth * (double)Tmax + 2.0 * (double)Lmax +
                  (double)(q->rd + q->va + q->sa + q->stx + q->cd + 4 * q->T);
    q->wd_bound = 64 * loop < 0x1p60 ? (int64_t)(64 * loop) : INT64_C(1) << 60;
    q->wd_at = q->wd_bound / 4;
    return 0;
}
