/* The graph fabric (networks/topo_graph.c, net_graph.c): ORCS's routes and
 * congestion rules on a hand-written dot file, computed routings and their
 * channel dependency graphs, errors that name the file, line and node.
 * Every expected value is derived by hand beside its assertion.
 *
 * orcs8.dot (tests/fixtures/graph): leaves S1..S4 with hosts H1,H2 | H3,H4
 * | H5,H6 | H7,H8 (hosts 0..7 in file order), spines T1, T2. S1 and S2
 * send every other destination up to T1 ("*"), S3 and S4 up to T2; each
 * spine sends H(2i-1), H(2i) down to leaf Si. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "congestion.h"
#include "harness.h"
#include "log.h"
#include "mapping.h"
#include "patterns.h"
#include "rng.h"
#include "swnet.h"
#include "topo.h"

#define ORCS8 TASKNET_SRCDIR "/tests/fixtures/graph/orcs8.dot"

static char tmp_path[128];
static long base_pid; /* main's: the forked tests write the same file */

/* Write text to a temporary dot file; its path. */
static const char *dot_file(const char *text)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/tasknet-check-graph-%ld.dot", base_pid);
    FILE *f = fopen(tmp_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return tmp_path;
}

static int build(const char *path, topo_graph_routing r, topo *t, char *err, size_t errlen)
{
    topo_graph_params p = {.path = path, .routing = r};
    return topo_graph_init(t, &p, err, errlen);
}

static void build_ok(const char *path, topo_graph_routing r, topo *t)
{
    char err[1024];
    int rc = build(path, r, t, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
}

static void build_fails(const char *path, topo_graph_routing r, const char *want)
{
    topo t;
    char err[1024] = "";
    int rc = build(path, r, &t, err, sizeof err);
    ck_assert_msg(rc != 0, "accepted, expected '%s'", want);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
}

static pat_set single(pat_kind k, uint32_t C)
{
    pat_levels lv;
    pat_set s;
    char err[256];
    ck_assert_msg(pat_generate(k, C, 0, NULL, &lv, err, sizeof err) == 0, "%s", err);
    pat_single(&lv, &s);
    return s;
}

static cong_result eval_on(th_net *h, pat_kind k, const uint32_t *map)
{
    pat_set s = single(k, 8);
    cong_result r;
    char err[256];
    int rc = cong_eval(&s, map, h->n->ops->link_count(h->n->state), h->n->ops->route, h->n->state, NULL, &r, err,
                       sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    pat_set_free(&s);
    return r;
}

/* ORCS's rules (seed 001; jobs/congestion.h) on orcs8.dot.
 * Mapping M = rank r on host {0,2,4,6,1,3,5,7}[r]: ranks 0..3 on the first
 * host of leaves S1..S4, ranks 4..7 on the second; leaf(r) = S(1 + r mod 4).
 * bisect (pairs (0,1),(2,3),(4,5),(6,7)):
 *   identity: each pair on one leaf (H1->H2, ...): only host links, each
 *     carrying one flow: c_f = 1: sum_max_cong 1, bw 1, max 1, mean 1, dep 1.
 *   M: 0->1 is S1->S2 via T1, 2->3 S3->S4 via T2, 4->5 S1->S2 via T1, 6->7
 *     S3->S4 via T2: S1->T1, T1->S2, S3->T2, T2->S4 carry 2 flows each:
 *     every c_f = 2: sum 2, bw 1/2, max 2, mean 2, dep 2.
 * bruck (levels d = 1, 2, 4: (r, r+d mod 8)) under M:
 *   d=1: leaf(r) -> leaf(r+1): S1->S2 twice (ranks 0, 4) via T1, S2->S3
 *     twice via T1, S3->S4 twice via T2, S4->S1 twice via T2: each up and
 *     down link used carries 2: all 8 flows c_f = 2;
 *   d=2: S1->S3, S2->S4 (via T1), S3->S1, S4->S2 (via T2), twice each:
 *     c_f = 2 for all 8;
 *   d=4: leaf(r+4) = leaf(r): local, host links carry 1: c_f = 1.
 *   sum_max_cong = 2 + 2 + 1 = 5; bw = (16/2 + 8) / 24 = 2/3; max 2;
 *   mean = (16 x 2 + 8) / 24 = 5/3; dep: level 0 finishes at 2, level 1
 *   at 2 + 2 = 4, level 2 at 4 + 1 = 5. */
START_TEST(test_orcs8_congestion)
{
    net_params core = th_star(8, 10e9);
    const char *sets[] = {"network.file=" ORCS8, NULL};
    th_net *h = th_net_new("graph", &core, sets, NULL, 1, 0);
    /* 8 host uplinks + 8 leaf->host + 8 leaf->spine + 8 spine->leaf */
    ck_assert_uint_eq(h->n->ops->link_count(h->n->state), 32);
    uint32_t id[8], M[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    map_identity(id, 8);
    cong_result r = eval_on(h, PAT_BISECT, id);
    ck_assert_double_eq(r.sum_max_cong, 1);
    ck_assert_double_eq(r.bw_fraction, 1);
    ck_assert_double_eq(r.dep_max_delay, 1);
    r = eval_on(h, PAT_BISECT, M);
    ck_assert_double_eq(r.sum_max_cong, 2);
    ck_assert_double_eq(r.bw_fraction, 0.5);
    ck_assert_double_eq(r.cong_max, 2);
    ck_assert_double_eq(r.cong_mean, 2);
    ck_assert_double_eq(r.dep_max_delay, 2);
    r = eval_on(h, PAT_BRUCK, M);
    ck_assert_uint_eq(r.flows, 24);
    ck_assert_double_eq(r.sum_max_cong, 5);
    ck_assert_double_eq_tol(r.bw_fraction, 2.0 / 3.0, 1e-15);
    ck_assert_double_eq(r.cong_max, 2);
    ck_assert_double_eq_tol(r.cong_mean, 5.0 / 3.0, 1e-15);
    ck_assert_double_eq(r.dep_max_delay, 5);
    th_net_free(h);
}
END_TEST

/* The routes themselves and the bound of orcs8.dot.
 * H1 -> H3 (0 -> 2): H1's uplink (link 0), S1 port 2 (to T1), T1 port 1
 * (to S2), S2 port 0 (to H3). Link ids: hosts 0..7, then switch ports in
 * switch order: switches in file order S1, S2, S3, S4, T1, T2 (S1..S4 have
 * 4 ports: 2 hosts, T1, T2; T1, T2 have 4): S1 = 8.., S2 = 12.., T1 = 24..;
 * so [0, 8 + 2, 24 + 1, 12 + 0] and 3 switches.
 * Uniform bound: S1 -> T1 carries every pair from H1, H2 to the 6 hosts
 * off S1: 12 pairs; T1 -> S3 only 4 x 2 = 8; so the busiest carries 12
 * and bound = (N - 1) / 12 = 7/12. */
START_TEST(test_orcs8_routes)
{
    topo t;
    build_ok(ORCS8, TOPO_GRAPH_FILE, &t);
    ck_assert_uint_eq(t.hosts, 8);
    ck_assert_uint_eq(t.switches, 6);
    uint64_t links[8];
    size_t n = topo_route(&t, 0, 2, 0, links, NULL, 8);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(links[0], 0);
    ck_assert_uint_eq(links[1], 10);
    ck_assert_uint_eq(links[2], 25);
    ck_assert_uint_eq(links[3], 12);
    ck_assert_double_eq_tol(t.ops->uniform_bound(&t), 7.0 / 12.0, 1e-15);
    ck_assert_ptr_null(topo_graph_cycle(&t));
    ck_assert_uint_eq(t.max_route_links, 4);
    topo_free(&t);
}
END_TEST

/* A ring of five switches A..E (A-B-C-D-E-A), one host on each,
 * undirected. Between switches two apart the shortest route is unique (the
 * other way round is 3 hops), whatever the port order: A->C is A->B->C,
 * B->D is B->C->D, C->E is C->D->E, D->A is D->E->A, E->B is E->A->B. Their
 * dependencies AB->BC, BC->CD, CD->DE, DE->EA, EA->AB close a cycle of five
 * links (and its mirror the other way round): shortest routing can
 * deadlock here, and is reported. */
static const char RING5[] = "graph ring {\n"
                            "  Ha -- A; Hb -- B; Hc -- C; Hd -- D; He -- E;\n"
                            "  A -- B; B -- C; C -- D; D -- E; E -- A;\n"
                            "}\n";

START_TEST(test_cycle_reported)
{
    topo t;
    build_ok(dot_file(RING5), TOPO_GRAPH_SHORTEST, &t);
    const char *c = topo_graph_cycle(&t);
    ck_assert_ptr_nonnull(c);
    /* the cycle names five links of the ring */
    int arrows = 0;
    for (const char *p = c; (p = strstr(p, " -> ")); p++)
        arrows++;
    ck_assert_int_eq(arrows, 5);
    topo_free(&t);
    /* the fabric refuses it under credit flow control, before the run */
    const net_ops *ops = th_net_ops("graph");
    char fsets[200];
    snprintf(fsets, sizeof fsets, "network.file=%s", tmp_path);
    const char *sets[] = {fsets, "network.routing=shortest", NULL};
    ck_assert(!th_net_takes(ops, 5, sets));
    const char *inf[] = {fsets, "network.routing=shortest", "network.flow-control=infinite", NULL};
    ck_assert(th_net_takes(ops, 5, inf));
    const char *ud[] = {fsets, "network.routing=up-down", NULL};
    ck_assert(th_net_takes(ops, 5, ud));
    /* PFC pauses whole links: the same cycle would deadlock it, up-down not */
    const char *pfc[] = {fsets, "network.routing=shortest", "network.flow-control=pfc", NULL};
    ck_assert(!th_net_takes(ops, 5, pfc));
    const char *pfc_ud[] = {fsets, "network.routing=up-down", "network.flow-control=pfc", NULL};
    ck_assert(th_net_takes(ops, 5, pfc_ud));
}
END_TEST

/* PFC on a graph (the ring above, up-down, 10 Gb/s, 10-us links, 1500-B
 * packets, xoff 60 kB, xon 30 kB): hosts a, b, d and e send 1 MB each to
 * c. Every byte arrives once with no drop although 4 MB meet at one
 * port; pauses are sent; no ingress count passes xoff by more than the
 * round trip's headroom (2 x 10 us x B + mtu = 26.5 kB); and since xon
 * covers a resume's round trip (25 kB) the port toward c never idles once
 * the first packet (b's or d's, one switch away: 10 + 10 us) reaches it:
 * the last bit arrives at 20 us + 4 MB x 0.8 ns + 10 us = 3230 us. */
START_TEST(test_pfc_graph)
{
    net_params core = th_star(5, 10e9);
    core.link_latency_ps = 10000000;
    core.switch_latency_ps = 0;
    char fsets[200];
    snprintf(fsets, sizeof fsets, "network.file=%s", dot_file(RING5));
    const char *sets[] = {fsets, "network.routing=up-down", "network.flow-control=pfc", "network.pfc-xoff=60kB",
                          "network.pfc-xon=30kB", "network.mtu=1500B", NULL};
    th_net *h = th_net_new("graph", &core, sets, NULL, 1, 8);
    net_msg *m[4];
    static const uint32_t src[4] = {0, 1, 3, 4};
    for (int i = 0; i < 4; i++)
        m[i] = th_at_low(h, 0, src[i], 2, 1000000);
    th_net_go(h);
    int64_t end = 0;
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(m[i]->a, 1);
        if ((int64_t)m[i]->b > end)
            end = (int64_t)m[i]->b;
    }
    ck_assert_uint_eq(h->bytes, 4000000);
    net_queue_report r = {0};
    ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
    ck_assert_int_eq(r.pfc, 1);
    ck_assert_uint_eq(r.drops, 0);
    ck_assert_uint_gt(r.pause_frames, 0);
    ck_assert_msg(r.ingress_max > 60000 && r.ingress_max <= 60000 + 2 * 12500 + 1500, "ingress max %g B",
                  r.ingress_max);
    ck_assert_int_eq(end, 3230000000);
    th_net_free(h);
}
END_TEST

/* PFC on a graph whose routes have classes: the 7 x 7 torus's dimension
 * order exported with its dateline classes (vcs=2, as test_export_import's
 * round trip) and read back with its file routes. Each (class, VC) pair is
 * a pause priority of its own (swnet.c), so the routes' channel dependency
 * graph over (link, VC), acyclic (the build's check), keeps the pauses
 * acyclic: every host sending 30 kB to the host 3 hops along its ring (the
 * + way: the shorter one on a 7-ring) completes under xoff 3 kB, every
 * message once, no drop, every pause resumed. With every VC of a class on
 * one priority (swnet_pfc_shared, the test aid) the ring dependencies close
 * a cycle of paused links and the run stops with messages undelivered.
 * 10 Gb/s, links 100 ns, 1500-B packets. */
START_TEST(test_pfc_graph_classes)
{
    net_params core = th_star(49, 10e9);
    core.link_latency_ps = 100000;
    core.switch_latency_ps = 0;
    const char *tsets[] = {"network.dims=7 7", NULL};
    th_net *a = th_net_new("torus", &core, tsets, NULL, 5, 4);
    snprintf(tmp_path, sizeof tmp_path, "/tmp/tasknet-check-graph-%ld.dot", base_pid);
    FILE *f = fopen(tmp_path, "w");
    ck_assert_ptr_nonnull(f);
    uint64_t conflicts = 99;
    char err[256];
    ck_assert_int_eq(topo_export_dot_rates(a->n->ops->topology(a->n->state), NULL, f, "torus", &conflicts, err,
                                           sizeof err),
                     0);
    fclose(f);
    th_net_free(a);
    ck_assert_uint_eq(conflicts, 0);
    char fset[200];
    snprintf(fset, sizeof fset, "network.file=%s", tmp_path);
    int done[2];
    for (int shared = 0; shared < 2; shared++) {
        const char *sets[] = {fset, "network.flow-control=pfc", "network.pfc-xoff=3kB", "network.pfc-xon=1.5kB",
                              "network.mtu=1500B", NULL};
        th_net *h = th_net_new("graph", &core, sets, NULL, 1, 64);
        ck_assert_uint_eq(h->n->ops->topology(h->n->state)->vcs, 2);
        if (shared)
            swnet_pfc_shared(h->n->state);
        net_msg *m[49];
        for (uint32_t i = 0; i < 49; i++)
            m[i] = th_at_low(h, 0, i, (i / 7) * 7 + (i % 7 + 3) % 7, 30000);
        th_net_go(h);
        done[shared] = 0;
        for (int i = 0; i < 49; i++) {
            ck_assert_uint_le(m[i]->a, 1);
            done[shared] += (int)m[i]->a;
        }
        net_queue_report r = {0};
        ck_assert_int_eq(h->n->ops->queue_report(h->n->state, sim_now(h->s), &r), 1);
        ck_assert_uint_eq(r.drops, 0);
        ck_assert_uint_gt(r.pause_frames, 0);
        if (!shared) {
            ck_assert_uint_eq(h->bytes, 49 * 30000);
            ck_assert_uint_eq(swnet_credit_leaks(h->n->state), 0); /* every pause resumed, nothing left */
        } else {
            ck_assert_uint_ge(swnet_pfc_wait_cycle(h->n->state), 2);
        }
        th_net_free(h);
    }
    ck_assert_int_eq(done[0], 49);
    ck_assert_int_lt(done[1], 49);
}
END_TEST

/* up-down on the same ring (root A, the first switch; breadth-first levels
 * A 0, B and E 1, C and D 2): a link goes up toward a smaller (level, id).
 * Every route, checked hop by hop, is up links then down links, so no
 * dependency leads from a down link to an up one: the channel dependency
 * graph is acyclic (Autonet's argument), and the build found no cycle. */
START_TEST(test_updown_acyclic)
{
    topo t;
    build_ok(dot_file(RING5), TOPO_GRAPH_UPDOWN, &t);
    ck_assert_ptr_null(topo_graph_cycle(&t));
    for (uint32_t a = 0; a < 5; a++)
        for (uint32_t b = 0; b < 5; b++) {
            uint64_t links[16];
            size_t n = topo_route(&t, a, b, 0, links, NULL, 16);
            ck_assert_uint_ge(n, 2);
            /* up (to a smaller BFS level, or the same level and a smaller id) then down only */
            int down = 0;
            for (size_t i = 1; i + 1 < n; i++) {
                topo_end from, to;
                topo_link_ends(&t, links[i], &from, &to);
                ck_assert_uint_eq(to.kind, TOPO_SWITCH);
                static const uint32_t lvl[5] = {0, 1, 2, 2, 1}; /* A B C D E */
                int up = lvl[to.id] < lvl[from.id] || (lvl[to.id] == lvl[from.id] && to.id < from.id);
                if (!up)
                    down = 1;
                ck_assert_msg(!(down && up), "route %u -> %u goes up after going down", a, b);
            }
        }
    topo_free(&t);
}
END_TEST

/* A deliberately cyclic routing from the file: four switches in a ring,
 * every switch sending the host two hops away clockwise. */
static const char CYCLIC4[] = "digraph c {\n"
                              "  Ha -> A [comment=\"*\"]; A -> Ha [comment=\"Ha\"];\n"
                              "  Hb -> B [comment=\"*\"]; B -> Hb [comment=\"Hb\"];\n"
                              "  Hc -> C [comment=\"*\"]; C -> Hc [comment=\"Hc\"];\n"
                              "  Hd -> D [comment=\"*\"]; D -> Hd [comment=\"Hd\"];\n"
                              "  A -> B [comment=\"*\"]; B -> A [comment=\"\"];\n"
                              "  B -> C [comment=\"*\"]; C -> B [comment=\"\"];\n"
                              "  C -> D [comment=\"*\"]; D -> C [comment=\"\"];\n"
                              "  D -> A [comment=\"*\"]; A -> D [comment=\"\"];\n"
                              "}\n";

START_TEST(test_file_cycle)
{
    topo t;
    build_ok(dot_file(CYCLIC4), TOPO_GRAPH_FILE, &t);
    /* A->B->C carries Ha->Hc: AB then BC; likewise BC->CD, CD->DA, DA->AB */
    ck_assert_ptr_nonnull(topo_graph_cycle(&t));
    ck_assert_ptr_nonnull(strstr(topo_graph_cycle(&t), "A -> B"));
    topo_free(&t);
}
END_TEST

/* Errors name the file, the line and the node. */
START_TEST(test_errors)
{
    char want[256];
    /* line 3: host Hx with two links */
    const char *p = dot_file("digraph g {\n  H1 -> S [comment=\"*\"]; S -> H1 [comment=\"H1\"];\n"
                             "  Hx -> S; S -> Hx; Hx -> T; T -> Hx;\n  S -> T; T -> S;\n}\n");
    snprintf(want, sizeof want, "%s:3: node Hx: has several links", p);
    build_fails(p, TOPO_GRAPH_SHORTEST, want);
    /* an unknown destination in a comment (line 3, node S) */
    p = dot_file("digraph g {\n  H1 -> S [comment=\"*\"]; S -> H1 [comment=\"H1\"];\n"
                 "  S -> T [comment=\"H9\"]; T -> S [comment=\"*\"];\n  H2 -> T; T -> H2;\n}\n");
    snprintf(want, sizeof want, "%s:2: node S: the comment of the edge to T names H9, which is not a host", p);
    build_fails(p, TOPO_GRAPH_FILE, want);
    /* an unreachable pair: S has no route to H2 (its edge to T lists nothing) */
    p = dot_file("digraph g {\n  H1 -> S [comment=\"*\"]; S -> H1 [comment=\"H1\"];\n"
                 "  S -> T [comment=\"\"]; T -> S [comment=\"*\"];\n  H2 -> T; T -> H2 [comment=\"H2\"];\n}\n");
    snprintf(want, sizeof want, "%s:2: node S: no route to host H2 (a route from host H1 reaches this switch)", p);
    build_fails(p, TOPO_GRAPH_FILE, want);
    /* a routing loop: S sends H2 to T, T sends it back */
    p = dot_file("digraph g {\n  H1 -> S [comment=\"*\"]; S -> H1 [comment=\"H1\"];\n"
                 "  S -> T [comment=\"*\"]; T -> S [comment=\"*\"];\n  H2 -> U; U -> H2 [comment=\"H2\"];\n"
                 "  U -> T [comment=\"*\"]; T -> U [comment=\"\"];\n}\n");
    snprintf(want, sizeof want, "routing loop toward host H2");
    build_fails(p, TOPO_GRAPH_FILE, want);
    /* a one-way link */
    p = dot_file("digraph g {\n  H1 -> S; S -> H1;\n  S -> T;\n  H2 -> T; T -> H2;\n}\n");
    build_fails(p, TOPO_GRAPH_SHORTEST, "links are full duplex");
    /* cgraph's syntax error, with its line */
    p = dot_file("digraph g {\n  H1 -> S;\n  S -> -> H1;\n}\n");
    snprintf(want, sizeof want, "%s:3: syntax error", p);
    build_fails(p, TOPO_GRAPH_SHORTEST, want);
}
END_TEST

/* Ports written out (tport, hport) fix the ids whatever the file order:
 * S's port 1 is the link to T even though the host edge comes later. */
START_TEST(test_explicit_ports)
{
    const char *p = dot_file("digraph g {\n"
                             "  S -> T [tport=1, hport=0]; T -> S [tport=0, hport=1];\n"
                             "  H1 -> S [hport=0]; S -> H1 [tport=0];\n"
                             "  H2 -> T [hport=1]; T -> H2 [tport=1];\n}\n");
    topo t;
    build_ok(p, TOPO_GRAPH_SHORTEST, &t);
    topo_end e = t.ops->peer(&t, 0, 1); /* S port 1 */
    ck_assert_uint_eq(e.kind, TOPO_SWITCH);
    ck_assert_uint_eq(e.id, 1);
    ck_assert_uint_eq(e.port, 0);
    uint32_t sw, port;
    t.ops->attach(&t, 1, &sw, &port); /* H2 on T port 1 */
    ck_assert_uint_eq(sw, 1);
    ck_assert_uint_eq(port, 1);
    topo_free(&t);
}
END_TEST

/* A timed run: bisect under credit flow control on orcs8.dot delivers every
 * message (the executor checks exactly-once) in the time of the congested
 * route: not a deadlock, not a hang. Zero load H1 -> H3: 3 switches. */
START_TEST(test_zero_load)
{
    net_params core = th_star(8, 10e9);
    const char *sets[] = {"network.file=" ORCS8, NULL};
    th_net *h = th_net_new("graph", &core, sets, NULL, 1, 1);
    /* 1000 B at 10 Gb/s = 800 ns; 4 links x 20 ns + 3 switches x 200 ns */
    int64_t want = 800000 + 4 * TH_LINK_PS + 3 * TH_SW_PS;
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 2, 1000), want);
    net_msg *m = th_at_low(h, 0, 0, 2, 1000);
    th_net_go(h);
    ck_delivered_at(m, want);
    th_net_free(h);
}
END_TEST


/* Links of their own rate and latency (edge attributes bandwidth and
 * latency, the fabric's values elsewhere): H1 - S - T - H2 at 10 Gb/s,
 * L = 20 ns links, W = 200 ns switches, with S <-> T at 2.5 Gb/s. One
 * packet of 1000 B: 800 ns at 10 Gb/s, 3200 ns at 2.5 Gb/s. By hand:
 *   H1's uplink starts at 0; S has it at L + W and starts it on the slow
 *   S -> T at once (a slower output waits for no tail); T has its head at
 *   2L + 2W, but T -> H2 is faster: it starts when the tail will keep up,
 *   3200 - 800 = 2400 ns later; its last bit reaches H2 800 ns + L after:
 *   3L + 2W + 3200 ns = ser at the slow rate + 3L + 2W.
 * Two packets of 1000 B (mtu 1000 B): the second leaves H1 at 800 ns, is
 * at S at 800 + L + W but S -> T is busy until L + W + 3200; it is at T
 * (after the switch) at 2L + 2W + 3200, waits 2400 ns for its tail, starts
 * on T -> H2 at 2L + 2W + 5600 (free since 2L + 2W + 3200) and ends at
 *   3L + 2W + 6400 ns: two packets at the slow link's pace.
 * With T -> H2 also given latency 1 us (its reverse H2 -> T keeps L), one
 * packet: 2L + 1 us + 2W + 3200 ns. */
static const char SLOW4[] = "digraph g {\n"
                            "  H1 -> S; S -> H1;\n"
                            "  S -> T [bandwidth=\"2.5Gb/s\"]; T -> S [bandwidth=\"2.5Gb/s\"];\n"
                            "  H2 -> T; T -> H2 [%s];\n}\n";

START_TEST(test_link_rate_latency)
{
    char text[512];
    net_params core = th_star(2, 10e9);
    const int64_t L = TH_LINK_PS, W = TH_SW_PS;
    for (int k = 0; k < 3; k++) {
        snprintf(text, sizeof text, SLOW4, k == 2 ? "latency=\"1us\"" : "latency=\"20ns\"");
        char file[200];
        snprintf(file, sizeof file, "network.file=%s", dot_file(text));
        const char *sets[] = {file, "network.routing=shortest", "network.mtu=1000B", NULL};
        th_net *h = th_net_new("graph", &core, sets, NULL, 1, 1);
        uint64_t bytes = k == 1 ? 2000 : 1000;
        int64_t want = k == 0   ? 3 * L + 2 * W + 3200000
                       : k == 1 ? 3 * L + 2 * W + 6400000
                                : 2 * L + 1000000 + 2 * W + 3200000;
        ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 1, bytes), want);
        net_msg *m = th_at_low(h, 0, 0, 1, bytes);
        th_net_go(h);
        ck_delivered_at(m, want);
        th_net_free(h);
    }
    /* The input-queued router: latencies of their own (its clock is one
     * flit time on every link, so bandwidths of their own are refused).
     * Flits of 25 B at 10 Gb/s: T = 20 ns; every delay 20 ns, on the grid.
     * Its zero load (iqrouter.c's head) with T -> H2 at 1 us instead of
     * L: 980 ns more than with the file's 20 ns, and a lone packet is
     * delivered then. */
    int64_t iq_t[2];
    for (int k = 0; k < 2; k++) {
        snprintf(text, sizeof text, SLOW4, k ? "latency=\"1us\"" : "latency=\"20ns\"");
        char *slow = strstr(text, "S -> T");
        snprintf(slow, sizeof text - (size_t)(slow - text), "S -> T; T -> S;\n  H2 -> T; T -> H2 [%s];\n}\n",
                 k ? "latency=\"1us\"" : "latency=\"20ns\"");
        char file[200];
        snprintf(file, sizeof file, "network.file=%s", dot_file(text));
        const char *sets[] = {file, "network.routing=shortest", "network.router=input-queued",
                              "network.flit-size=25B", "network.routing-delay=20ns", "network.vc-alloc-delay=20ns",
                              "network.sw-alloc-delay=20ns", "network.st-delay=20ns", NULL};
        th_net *h = th_net_new("graph", &core, sets, NULL, 1, 1);
        iq_t[k] = h->n->ops->zero_load_ps(h->n->state, 0, 1, 1000);
        net_msg *m = th_at_low(h, 0, 0, 1, 1000);
        th_net_go(h);
        ck_delivered_at(m, iq_t[k]);
        th_net_free(h);
    }
    ck_assert_int_eq(iq_t[1] - iq_t[0], 980000);
    /* an edge of latency 0 with sw-alloc-delay and credit-delay 0: a credit over it would be used in the flit
     * time that freed it (iqrouter.c's "Credits"; such a run of a 4-ary 2-tree with its 32 links between
     * switches at latency 0 never ended) -- refused, naming the file and the first such edge; with
     * credit-delay 20 ns (every time on the flit grid) it runs and delivers at its zero load */
    {
        char e[1024];
        const char *d0 = dot_file("digraph g {\n  H1 -> S; S -> H1;\n  S -> T [latency=\"0ns\"]; T -> S;\n"
                                  "  H2 -> T; T -> H2;\n}\n");
        char f0[200];
        snprintf(f0, sizeof f0, "network.file=%s", d0);
        const char *z[] = {f0, "network.routing=shortest", "network.router=input-queued", "network.flit-size=25B",
                           "network.sw-alloc-delay=0ns", "network.credit-delay=0ns", NULL};
        ck_assert_ptr_null(th_net_try("graph", &core, z, NULL, 1, 1, e, sizeof e));
        ck_assert_msg(strstr(e, "1 directed link of latency 0 (the first S -> T)") &&
                          strstr(e, "in the flit time that freed it"),
                      "%s", e);
        const char *c1[] = {f0, "network.routing=shortest", "network.router=input-queued", "network.flit-size=25B",
                            "network.routing-delay=20ns", "network.vc-alloc-delay=20ns", "network.st-delay=20ns",
                            "network.sw-alloc-delay=0ns", "network.credit-delay=20ns", NULL};
        th_net *ok = th_net_try("graph", &core, c1, NULL, 1, 1, e, sizeof e);
        ck_assert_msg(ok != NULL, "%s", e);
        net_msg *m = th_at_low(ok, 0, 0, 1, 1000);
        th_net_go(ok);
        ck_delivered_at(m, ok->n->ops->zero_load_ps(ok->n->state, 0, 1, 1000));
        th_net_free(ok);
    }
    /* the same file with every edge at the fabric's values runs as before:
     * 1000 B over 2 switches: 800 ns + 3L + 2W */
    snprintf(text, sizeof text,
             "digraph g {\n  H1 -> S; S -> H1;\n  S -> T [bandwidth=\"10Gb/s\"]; T -> S;\n"
             "  H2 -> T; T -> H2 [latency=\"20ns\"];\n}\n");
    char file[200];
    snprintf(file, sizeof file, "network.file=%s", dot_file(text));
    const char *sets[] = {file, "network.routing=shortest", NULL};
    th_net *h = th_net_new("graph", &core, sets, NULL, 1, 1);
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 1, 1000), 800000 + 3 * L + 2 * W);
    th_net_free(h);
    /* errors name the file, line and edge */
    char want[300];
    const char *p = dot_file("digraph g {\n  H1 -> S; S -> H1;\n  S -> T [bandwidth=\"fast\"]; T -> S;\n"
                             "  H2 -> T; T -> H2;\n}\n");
    snprintf(want, sizeof want, "%s:2: node S: edge to T: bandwidth=\"fast\"", p);
    build_fails(p, TOPO_GRAPH_SHORTEST, want);
    p = dot_file("digraph g {\n  H1 -> S; S -> H1;\n  S -> T [bandwidth=\"0Gb/s\"]; T -> S;\n"
                 "  H2 -> T; T -> H2;\n}\n");
    snprintf(want, sizeof want, "%s:2: node S: edge to T: bandwidth=\"0Gb/s\": expected a rate above 0", p);
    build_fails(p, TOPO_GRAPH_SHORTEST, want);
    p = dot_file("digraph g {\n  H1 -> S; S -> H1;\n  S -> T; T -> S;\n"
                 "  H2 -> T; T -> H2 [latency=\"-1ns\"];\n}\n");
    snprintf(want, sizeof want, "%s:3: node T: edge to H2: latency=\"-1ns\"", p);
    build_fails(p, TOPO_GRAPH_SHORTEST, want);
}
END_TEST

/* network.degraded-links on a parametric fabric: the 4-ary 2-tree (hosts
 * H0..H15, leaves S0..S3, spines S4..S7; d-mod-k sends H4, H8, H12 from S0
 * up to S4 and H0 down from S4 to S0, export-topology's table), S0-S4 at
 * half its bandwidth (both directions). B = 10 Gb/s, L = 20 ns, W = 200
 * ns, messages of 1000 B (one packet): 800 ns at B, 1600 ns at B/2.
 *   H0 -> H4 (S0 -> S4 -> S1): the uplink starts at 0; S0 starts it on the
 *     half-rate S0 -> S4 at L + W; S4 has its head at 2L + 2W, but S4 -> S1
 *     runs at B: it starts 1600 - 800 = 800 ns later, when the tail keeps
 *     up; S1 -> H4 at B from 3L + 3W + 800; the last bit at H4 at
 *     4L + 3W + 1600 ns (at full rate: 4L + 3W + 800).
 *   H4 -> H0 crosses S4 -> S0 (degraded too): the same 4L + 3W + 1600.
 *   H1 -> H5 climbs to S5: untouched, 4L + 3W + 800.
 *   H0 -> H4 and H0 -> H8 together (both over S0 -> S4): the second leaves
 *     H0 at 800, waits at S0 for the first to clear the slow link at
 *     L + W + 1600, starts there, has its head at S4 at 2L + 2W + 1600,
 *     starts on S4 -> S2 800 later and ends at H8 at 4L + 3W + 3200 ns (at
 *     full rate 4L + 3W + 1600).
 * Routing does not change (a degraded link is not a failed one): the
 * routes are the same link ids with and without. */
START_TEST(test_degraded_links)
{
    net_params core = th_star(16, 10e9);
    const int64_t L = TH_LINK_PS, W = TH_SW_PS;
    const char *deg[] = {"network.arity=4", "network.levels=2", "network.degraded-links=S0-S4:0.5", NULL};
    const char *full[] = {"network.arity=4", "network.levels=2", NULL};
    th_net *h = th_net_new("fat-tree", &core, deg, NULL, 1, 4);
    th_net *f = th_net_new("fat-tree", &core, full, NULL, 1, 4);
    uint64_t la[16], lb[16];
    for (uint32_t a = 0; a < 16; a++)
        for (uint32_t b = 0; b < 16; b++) {
            if (a == b)
                continue;
            size_t na = h->n->ops->route(h->n->state, a, b, la, 16), nb = f->n->ops->route(f->n->state, a, b, lb, 16);
            ck_assert_uint_eq(na, nb);
            for (size_t i = 0; i < na; i++)
                ck_assert_uint_eq(la[i], lb[i]);
        }
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 0, 4, 1000), 4 * L + 3 * W + 1600000);
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 4, 0, 1000), 4 * L + 3 * W + 1600000);
    ck_assert_int_eq(h->n->ops->zero_load_ps(h->n->state, 1, 5, 1000), 4 * L + 3 * W + 800000);
    ck_assert_int_eq(f->n->ops->zero_load_ps(f->n->state, 0, 4, 1000), 4 * L + 3 * W + 800000);
    net_msg *m1 = th_at_low(h, 0, 0, 4, 1000), *m2 = th_at_low(h, 0, 4, 0, 1000), *m3 = th_at_low(h, 0, 1, 5, 1000);
    th_net_go(h);
    ck_delivered_at(m1, 4 * L + 3 * W + 1600000);
    ck_delivered_at(m2, 4 * L + 3 * W + 1600000);
    ck_delivered_at(m3, 4 * L + 3 * W + 800000);
    th_net_free(h);
    th_net_free(f);
    h = th_net_new("fat-tree", &core, deg, NULL, 1, 4);
    m1 = th_at_low(h, 0, 0, 4, 1000);
    m2 = th_at_low(h, 0, 0, 8, 1000);
    th_net_go(h);
    ck_delivered_at(m1, 4 * L + 3 * W + 1600000);
    ck_delivered_at(m2, 4 * L + 3 * W + 3200000);
    th_net_free(h);
    /* bad names say what a name looks like; a pair not linked; a factor outside (0, 1] */
    static const struct {
        const char *set, *want;
    } bad[] = {
        {"network.degraded-links=S0-X9:0.5", "is not A-B with A and B two nodes of the fat-tree (a link is named by "
                                              "its ends as export-topology writes them: switches S0.., hosts H0.., "
                                              "e.g. S0-S4:0.5)"},
        {"network.degraded-links=S0-S1:0.5", "\"S0-S1\": the two nodes are not linked in the fat-tree"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *sets[] = {"network.arity=4", "network.levels=2", bad[i].set, NULL};
        char err[1024] = "";
        th_net *x = th_net_try("fat-tree", &core, sets, NULL, 1, 1, err, sizeof err);
        ck_assert_msg(x == NULL, "%s accepted", bad[i].set);
        ck_assert_msg(strstr(err, bad[i].want) != NULL, "'%s' lacks '%s'", err, bad[i].want);
    }
    /* the row's syntax */
    char err[512];
    ck_assert_int_eq(swnet_degraded_ok("S0-S4:0.5, H3-S0:1 L1-S1:0.25", err, sizeof err), 0);
    ck_assert_int_ne(swnet_degraded_ok("S0-S4:1.5", err, sizeof err), 0);
    ck_assert_msg(strstr(err, "0 < factor <= 1") != NULL, "%s", err);
    ck_assert_int_ne(swnet_degraded_ok("S0-S4", err, sizeof err), 0);
    ck_assert_msg(strstr(err, "expected A-B:factor") != NULL, "%s", err);
    ck_assert_int_ne(swnet_degraded_ok("S0-S4:0", err, sizeof err), 0);
    ck_assert_int_ne(swnet_degraded_ok("S0S4:0.5", err, sizeof err), 0);
}
END_TEST

/* Export then import: the fabric read back from export-topology's file
 * has the same hosts, switches, ports and link ids, and the same routes and
 * classes, so the same messages are delivered at the same picoseconds (the
 * swnet core draws the same stream: same seed, same salts) and the bound
 * is the same.
 *   4-ary 2-tree, d-mod-k: the route to b is fixed by b's digits;
 *   7x7 torus, dimension order: odd rings have no tie, the remaining offset
 *     (hence port and dateline class) is fixed by the switch and b;
 *   8x8 torus: offsets of exactly 4 hops pick their direction per message
 *     from the salt's binary choices 0, 1 and 2 (topo_torus.c
 *     plane_offsets: x's tie by choice 0 or 1, y's by choice 2): the file
 *     needs lmc=3 (8 paths per destination, the message's path being those
 *     three choices), and with it routes exactly;
 *   dragonfly g=9 a=4 p=1 h=2, minimal: one global link per pair of groups
 *     (a h / (g - 1) = 1), so the ports are destination-based, but the class
 *     counts the global links crossed (0 before, 1 after): a local hop in
 *     the destination group is class 0 from a source of that group and 1
 *     after a global link, so the file marks the global links vcstep=1;
 *   dragonfly g=4 a=4 p=2 h=3, minimal: 4 global links per pair of groups,
 *     a message from x taking slice x mod 4 (merlin's): the route depends
 *     on the source, not on the message: export groups the sources into
 *     paths (host attribute path) whose routes agree (greedily: 3 paths here);
 *   dragonfly g=4 a=4 p=2 h=3, Valiant: the intermediate group is drawn
 *     among g - 2 = 2 groups by topo_pick(salt, 0, 2), which is the salt's
 *     choice 0, but the slices depend on the source too: no file routes it
 *     (conflicts > 0). */
static void roundtrip(const char *name, const char *const *sets, uint32_t N, int exact, const char *want)
{
    net_params core = th_star(N, 10e9);
    th_net *a = th_net_new(name, &core, sets, NULL, 5, 4000);
    const topo *t = a->n->ops->topology(a->n->state);
    ck_assert_ptr_nonnull(t);
    snprintf(tmp_path, sizeof tmp_path, "/tmp/tasknet-check-graph-%ld.dot", base_pid);
    FILE *f = fopen(tmp_path, "w");
    ck_assert_ptr_nonnull(f);
    uint64_t conflicts = 99;
    char err[256];
    double *rate = swnet_link_rates(a->n->state); /* network.degraded-links: written as the links' bandwidth */
    ck_assert_int_eq(topo_export_dot_rates(t, rate, f, name, &conflicts, err, sizeof err), 0);
    free(rate);
    fclose(f);
    if (want) {
        f = fopen(tmp_path, "r");
        char line[512];
        int seen = 0;
        while (fgets(line, sizeof line, f))
            seen |= strstr(line, want) != NULL;
        fclose(f);
        ck_assert_msg(seen, "%s: the file lacks %s", name, want);
    }
    if (!exact) {
        ck_assert_uint_gt(conflicts, 0);
        th_net_free(a);
        return;
    }
    ck_assert_uint_eq(conflicts, 0);
    char fset[200];
    snprintf(fset, sizeof fset, "network.file=%s", tmp_path);
    const char *gsets[] = {fset, NULL};
    th_net *b = th_net_new("graph", &core, gsets, NULL, 5, 4000);
    const topo *u = b->n->ops->topology(b->n->state);
    ck_assert_uint_eq(u->links, t->links);
    ck_assert_uint_eq(u->vcs, t->vcs);
    ck_assert_uint_eq(u->max_route_links, t->max_route_links);
    ck_assert_double_eq_tol(u->ops->uniform_bound(u), t->ops->uniform_bound(t), 1e-12);
    /* 3000 messages of 1..20000 B between random pairs over 20 us: contention, credits */
    gsl_rng *r = rng_stream_new(3, 0, "test");
    for (int i = 0; i < 3000; i++) {
        uint32_t src = (uint32_t)gsl_rng_uniform_int(r, N), dst = (uint32_t)gsl_rng_uniform_int(r, N);
        uint64_t bytes = 1 + gsl_rng_uniform_int(r, 20000);
        int64_t at = (int64_t)gsl_rng_uniform_int(r, 20000000);
        th_at_low(a, at, src, dst, bytes);
        th_at_low(b, at, src, dst, bytes);
    }
    gsl_rng_free(r);
    th_net_go(a);
    th_net_go(b);
    ck_assert_uint_eq(a->nrec, 3000);
    ck_assert_uint_eq(b->nrec, 3000);
    for (size_t i = 0; i < a->nrec; i++) {
        ck_assert_uint_eq(a->id[i], b->id[i]);
        ck_assert_int_eq(a->t_ps[i], b->t_ps[i]);
    }
    th_net_free(a);
    th_net_free(b);
}

START_TEST(test_export_import)
{
    const char *ft[] = {"network.arity=4", "network.levels=2", NULL};
    roundtrip("fat-tree", ft, 16, 1, "vcs=1;");
    /* degraded links (both directions of S0-S4 at half rate, H3's link at a
     * quarter) are written as the links' bandwidth, which the graph reads:
     * the same deliveries */
    const char *ftd[] = {"network.arity=4", "network.levels=2", "network.degraded-links=S0-S4:0.5 H3-S0:0.25", NULL};
    roundtrip("fat-tree", ftd, 16, 1, "\"S4\" -> \"S0\" [tport=0, hport=4, comment=\"H0\", bandwidth=\"5000000000b/s\"]");
    roundtrip("fat-tree", ftd, 16, 1, "\"H3\" -> \"S0\" [hport=3, comment=\"*\", bandwidth=\"2500000000b/s\"]");
    const char *t7[] = {"network.dims=7 7", NULL};
    roundtrip("torus", t7, 49, 1, "vcs=2;");
    const char *t8[] = {"network.dims=8 8", NULL};
    roundtrip("torus", t8, 64, 1, "lmc=3;");
    const char *df[] = {"network.groups=9", "network.routers-per-group=4", "network.hosts-per-router=1",
                        "network.global-links=2", "network.routing=minimal", NULL};
    roundtrip("dragonfly", df, 36, 1, "vcstep=1");
    const char *df4[] = {"network.groups=4", "network.routers-per-group=4", "network.hosts-per-router=2",
                         "network.global-links=3", "network.routing=minimal", NULL};
    roundtrip("dragonfly", df4, 32, 1, "path=2];");
    const char *df4v[] = {"network.groups=4", "network.routers-per-group=4", "network.hosts-per-router=2",
                          "network.global-links=3", "network.routing=valiant", NULL};
    roundtrip("dragonfly", df4v, 32, 0, NULL);
}
END_TEST


/* Paths (lmc) and class steps (vcstep) read by hand. A ring of four
 * switches S0..S3 (declared in order) with one host each (ports in file order: the host, then
 * the clockwise neighbour, then the counter-clockwise one; radix 3, so
 * switch s's port p is link 4 + 3 s + p). lmc=1: H0 -> H2 takes path 0
 * clockwise (S0 -> S1 -> S2) and path 1 counter-clockwise (S0 -> S3 ->
 * S2), the path being the salt's binary choice 0. S0 -> S1 has vcstep=1,
 * so the hop after it (S1 -> S2) is class 0 + 1 = 1:
 *   path 0: links 0 (H0 up), 4+0+1 = 5, 4+3+1 = 8, 4+6+0 = 10 (S2 -> H2),
 *           classes 0, 0, 1, 0;
 *   path 1: links 0, 4+0+2 = 6, 4+9+2 = 15 (S3 -> S2), 10; classes all 0.
 * H1 -> H3 crosses S1 -> S2 from S1 (no step before): class 0, links 1, 8,
 * 4+6+1 = 11, 4+9+0 = 13. */
#define RING4_PATHS \
    "digraph g {\n  lmc=1; vcs=2;\n  H0; H1; H2; H3; S0; S1; S2; S3;\n" \
    "  S0 -> H0; S0 -> S1 [comment=\"H1, H2@0\", vcstep=1]; S0 -> S3 [comment=\"H3, H2@1\"];\n" \
    "  S1 -> H1; S1 -> S2 [comment=\"H2, H3\"]; S1 -> S0 [comment=\"H0\"];\n" \
    "  S2 -> H2; S2 -> S3 [comment=\"H3\"]; S2 -> S1 [comment=\"H1, H0\"];\n" \
    "  S3 -> H3; S3 -> S0 [comment=\"H0, H1\"]; S3 -> S2 [comment=\"H2\"];\n" \
    "  H0 -> S0; H1 -> S1; H2 -> S2; H3 -> S3;\n}\n"

START_TEST(test_paths_vcstep)
{
    topo t;
    build_ok(dot_file(RING4_PATHS), TOPO_GRAPH_FILE, &t);
    ck_assert_uint_eq(t.vcs, 2);
    ck_assert_ptr_null(topo_graph_cycle(&t));
    uint64_t salt[2] = {0, 0};
    int have[2] = {0, 0};
    for (uint64_t x = 1; !(have[0] && have[1]); x++) {
        unsigned b = topo_pick(x, 0, 2);
        if (!have[b])
            salt[b] = x, have[b] = 1;
    }
    uint64_t l[8];
    uint8_t v[8];
    static const uint64_t want0[] = {0, 5, 8, 10}, want1[] = {0, 6, 15, 10}, want13[] = {1, 8, 11, 13};
    static const uint8_t vc0[] = {0, 0, 1, 0}, vc1[] = {0, 0, 0, 0};
    ck_assert_uint_eq(topo_route(&t, 0, 2, salt[0], l, v, 8), 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(l[i], want0[i]);
        ck_assert_uint_eq(v[i], vc0[i]);
    }
    ck_assert_uint_eq(topo_route(&t, 0, 2, salt[1], l, v, 8), 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(l[i], want1[i]);
        ck_assert_uint_eq(v[i], vc1[i]);
    }
    ck_assert_uint_eq(topo_route(&t, 1, 3, salt[1], l, v, 8), 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(l[i], want13[i]);
        ck_assert_uint_eq(v[i], 0);
    }
    topo_free(&t);
    /* a path beyond 2^lmc, and a class beyond vcs */
    char text[2048];
    snprintf(text, sizeof text, "%s", RING4_PATHS);
    char *at = strstr(text, "H2@1");
    at[3] = '2';
    build_fails(dot_file(text), TOPO_GRAPH_FILE, "names H2@2: \"@2\" is not a path below 2^lmc = 2");
    snprintf(text, sizeof text, "%s", RING4_PATHS);
    at = strstr(text, "vcs=2");
    at[4] = '1';
    build_fails(dot_file(text), TOPO_GRAPH_FILE, "node S1: the hop toward host H2 on path 0 uses class 1, beyond "
                                                 "the 1 classes");
    /* a host's own path (host attribute path=1): H0's messages go
     * counter-clockwise whatever their salt */
    snprintf(text, sizeof text, "%s", RING4_PATHS);
    at = strstr(text, "H0;");
    memmove(at + 12, at + 3, strlen(at + 3) + 1);
    memcpy(at, "H0 [path=1];", 12);
    build_ok(dot_file(text), TOPO_GRAPH_FILE, &t);
    for (int k = 0; k < 2; k++) {
        ck_assert_uint_eq(topo_route(&t, 0, 2, salt[k], l, v, 8), 4);
        for (int i = 0; i < 4; i++)
            ck_assert_uint_eq(l[i], want1[i]);
    }
    topo_free(&t);
    at = strstr(text, "path=1");
    at[5] = '2';
    build_fails(dot_file(text), TOPO_GRAPH_FILE, "node H0: path=\"2\": expected an integer from 0 to 1");
}
END_TEST

/* hops_left, which next reads from a table (shortest, up-down: the port
 * and the distance in one cell) or from the header's count (file: set at
 * the source, counted down by take), is at every hop the links between
 * switches the packet still crosses, this hop included (topo.h), counted
 * here from the route itself: every pair of fabric.dot under the four
 * routings, and of the 4-ring with paths and vcstep. */
static void check_hops_left(const topo *t)
{
    for (uint32_t a = 0; a < t->hosts; a++)
        for (uint32_t b = 0; b < t->hosts; b++) {
            uint64_t salt = (uint64_t)a * 7919 + b;
            uint64_t l[64];
            size_t n = topo_route(t, a, b, salt, l, NULL, 64);
            /* n links: a's uplink, n - 2 between switches, b's downlink */
            uint32_t left = (uint32_t)(n - 2);
            topo_hdr h;
            t->ops->hdr_init(t, a, b, salt, &h);
            uint32_t sw, in;
            t->ops->attach(t, a, &sw, &in);
            for (;;) {
                topo_hop c[TOPO_MAX_CAND];
                ck_assert_uint_ge(t->ops->next(t, sw, &h, c), 1);
                ck_assert_uint_eq(c[0].hops_left, left);
                t->ops->take(t, sw, &c[0], &h);
                topo_end e = t->ops->peer(t, sw, c[0].port);
                if (e.kind == TOPO_HOST)
                    break;
                sw = e.id;
                left--;
            }
            ck_assert_uint_eq(left, 0);
        }
}

START_TEST(test_hops_left)
{
    for (int r = 0; r <= TOPO_GRAPH_ECMP; r++) {
        topo t;
        build_ok(TASKNET_SRCDIR "/configs/data/fabric.dot", (topo_graph_routing)r, &t);
        check_hops_left(&t);
        topo_free(&t);
    }
    topo t;
    build_ok(dot_file(RING4_PATHS), TOPO_GRAPH_FILE, &t);
    check_hops_left(&t);
    topo_free(&t);
}
END_TEST

/* Review finding: the graph helpers (topo_is_graph, names, failed links)
 * saw a partly populated graph (network.placement) as no graph, so its
 * export and congestion files named H<id>/S<id> and lost the file's names.
 * fabric.dot with 12 nodes: first puts node i on host i (H(i+1)); spread
 * node i on host floor(16 i / 12): node 11 on host 14, H15. */
START_TEST(test_partly_populated_names)
{
    net_params core = th_star(12, 10e9);
    const char *first[] = {"network.file=" TASKNET_SRCDIR "/configs/data/fabric.dot", "network.routing=shortest",
                           "network.placement=first", "network.failed-links=L1-S1", NULL};
    th_net *h = th_net_new("graph", &core, first, NULL, 1, 0);
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert_uint_eq(t->hosts, 12);
    ck_assert(topo_is_graph(t));
    ck_assert_str_eq(topo_graph_host_name(t, 0), "H1");
    ck_assert_str_eq(topo_graph_host_name(t, 11), "H12");
    ck_assert_str_eq(topo_graph_switch_name(t, 0), "L1");
    ck_assert_str_eq(topo_graph_failed(t), "L1-S1");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char err[256];
    ck_assert_int_eq(topo_export_dot(t, f, "t", NULL, err, sizeof err), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "\"L1\" -> \"H1\""));
    ck_assert_ptr_null(strstr(buf, "\"H0\""));
    free(buf);
    th_net_free(h);
    const char *spread[] = {"network.file=" TASKNET_SRCDIR "/configs/data/fabric.dot", "network.routing=shortest",
                            "network.placement=spread", NULL};
    h = th_net_new("graph", &core, spread, NULL, 1, 0);
    t = h->n->ops->topology(h->n->state);
    ck_assert_str_eq(topo_graph_host_name(t, 11), "H15");
    th_net_free(h);
}
END_TEST

/* Review finding: with a count of failed links the checks see the whole
 * fabric (acyclic here), and a run's drawn links were never checked for a
 * channel dependency cycle. A 5-ring S0..S4 with a hub C whose ports come
 * first: shortest routes between ring switches two apart go through C (a
 * tie with the ring, the lowest port wins), so the whole fabric's
 * dependencies are two-link chains through C: acyclic. Failing hub links
 * sends routes round the ring; with all five gone it is the 5-ring, whose
 * shortest routing has a cycle (test_cycle_reported). Each run draws 4 of
 * the 10 links; a draw that cuts a switch off is refused as such;
 * otherwise the run must be refused exactly when the links it draws,
 * failed by name (the checked form), leave a cycle, and over 80 seeds
 * some are refused and some run. */
static const char HUB5[] = "graph hub {\n  C;\n"
                           "  C -- S0; C -- S1; C -- S2; C -- S3; C -- S4;\n"
                           "  S0 -- S1; S1 -- S2; S2 -- S3; S3 -- S4; S4 -- S0;\n"
                           "  H0 -- S0; H1 -- S1; H2 -- S2; H3 -- S3; H4 -- S4;\n}\n";

START_TEST(test_failed_count_cycle)
{
    const char *path = dot_file(HUB5);
    topo w;
    build_ok(path, TOPO_GRAPH_SHORTEST, &w);
    ck_assert_ptr_null(topo_graph_cycle(&w));
    topo_free(&w);
    char fset[200];
    snprintf(fset, sizeof fset, "network.file=%s", path);
    const char *sets[] = {fset, "network.routing=shortest", "network.failed-links=4", NULL};
    net_params core = th_star(5, 10e9);
    int refused = 0, ran = 0;
    for (uint64_t seed = 1; seed <= 80; seed++) {
        char err[2048] = "";
        th_net *h = th_net_try("graph", &core, sets, NULL, seed, 0, err, sizeof err);
        char names[256] = "";
        if (h) {
            snprintf(names, sizeof names, "%s", topo_graph_failed(h->n->ops->topology(h->n->state)));
            th_net_free(h);
            ran++;
        } else if (strstr(err, "not connected once these links fail")) {
            continue; /* this draw cuts a switch off: refused as such */
        } else {
            const char *o = strstr(err, "with this run's failed links (");
            ck_assert_msg(o != NULL, "seed %llu: %s", (unsigned long long)seed, err);
            o += strlen("with this run's failed links (");
            const char *c = strchr(o, ')');
            snprintf(names, sizeof names, "%.*s", (int)(c - o), o);
            refused++;
        }
        topo_graph_params gp = {.path = path, .routing = TOPO_GRAPH_SHORTEST, .failed_links = names};
        char e2[512];
        ck_assert_int_eq(topo_graph_init(&w, &gp, e2, sizeof e2), 0);
        ck_assert_msg((topo_graph_cycle(&w) != NULL) == (h == NULL), "seed %llu: links %s", (unsigned long long)seed,
                      names);
        topo_free(&w);
    }
    ck_assert_int_gt(refused, 0);
    ck_assert_int_gt(ran, 0);
}
END_TEST

/* ORCS's get_cable_cong as a dot graph: bisect under M on orcs8.dot loads
 * S1->T1, T1->S2, S3->T2, T2->S4 with 2 flows (the largest: cong 1, red
 * #ff0000), each sender's uplink with 1 (cong 0.5: #80 red, #7f green) and
 * the idle T2->S1 with 0 (green #00ff00). */
/* The graph cache (topo_graph_init) keeps the last graph while its file
 * keeps its size, time and bytes, and takes the bytes' digest only while
 * the time is recent (GR_MTIME_SLACK_S): a file rewritten with the same
 * size and the very same time (to the nanosecond) is still read again
 * when that time is recent, and one whose time changed is read again
 * whatever its age. A: 2 hosts on S; B, as long: H2 renamed X2, a switch
 * (1 host). */
/* The cache keeps the last two graphs (network.fail-at builds two every
 * run, before its failures and after, and a single entry rebuilt both
 * each time): fabric.dot shortest intact (A) and with L1-S1 failed (B)
 * alternate on the same graphs; a third (up-down) drops the least
 * recently used (B), not A. */
static const void *graph_of(const char *failed, topo_graph_routing r)
{
    topo t;
    char err[1024];
    topo_graph_params p = {.path = TASKNET_SRCDIR "/configs/data/fabric.dot", .routing = r, .failed_links = failed};
    ck_assert_msg(topo_graph_init(&t, &p, err, sizeof err) == 0, "%s", err);
    const void *g = t.priv;
    topo_free(&t);
    return g;
}

START_TEST(test_graph_cache_two)
{
    const void *a = graph_of("", TOPO_GRAPH_SHORTEST), *b = graph_of("L1-S1", TOPO_GRAPH_SHORTEST);
    ck_assert_ptr_ne(a, b);
    for (int i = 0; i < 3; i++) {
        ck_assert_ptr_eq(graph_of("", TOPO_GRAPH_SHORTEST), a);
        ck_assert_ptr_eq(graph_of("L1-S1", TOPO_GRAPH_SHORTEST), b);
    }
    ck_assert_ptr_eq(graph_of("", TOPO_GRAPH_SHORTEST), a);
    (void)graph_of("", TOPO_GRAPH_UPDOWN);
    ck_assert_ptr_eq(graph_of("", TOPO_GRAPH_SHORTEST), a);
}
END_TEST

START_TEST(test_graph_cache_rewrite)
{
    const char *A = "graph g { S; H1 -- S; H2 -- S; }\n", *B = "graph g { S; H1 -- S; X2 -- S; }\n";
    ck_assert_uint_eq(strlen(A), strlen(B));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct timespec recent[2] = {now, now}, old1[2] = {{now.tv_sec - 60, 0}, {now.tv_sec - 60, 0}},
                    old2[2] = {{now.tv_sec - 30, 0}, {now.tv_sec - 30, 0}};
    const char *path = dot_file(A);
    ck_assert_int_eq(utimensat(AT_FDCWD, path, recent, 0), 0);
    topo t;
    build_ok(path, TOPO_GRAPH_SHORTEST, &t);
    ck_assert_uint_eq(t.hosts, 2);
    topo_free(&t);
    dot_file(B); /* same size, same time: only the digest tells */
    ck_assert_int_eq(utimensat(AT_FDCWD, path, recent, 0), 0);
    build_ok(path, TOPO_GRAPH_SHORTEST, &t);
    ck_assert_uint_eq(t.hosts, 1);
    topo_free(&t);
    dot_file(A); /* an old time: kept, then another old time: read again */
    ck_assert_int_eq(utimensat(AT_FDCWD, path, old1, 0), 0);
    build_ok(path, TOPO_GRAPH_SHORTEST, &t);
    ck_assert_uint_eq(t.hosts, 2);
    topo_free(&t);
    dot_file(B);
    ck_assert_int_eq(utimensat(AT_FDCWD, path, old2, 0), 0);
    build_ok(path, TOPO_GRAPH_SHORTEST, &t);
    ck_assert_uint_eq(t.hosts, 1);
    topo_free(&t);
}
END_TEST

START_TEST(test_congestion_dot)
{
    net_params core = th_star(8, 10e9);
    const char *sets[] = {"network.file=" ORCS8, NULL};
    th_net *h = th_net_new("graph", &core, sets, NULL, 1, 0);
    uint32_t M[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    pat_set s = single(PAT_BISECT, 8);
    cong_acc acc;
    cong_acc_init(&acc, h->n->ops->link_count(h->n->state));
    cong_result r;
    char err[256];
    ck_assert_int_eq(cong_eval(&s, M, acc.nlinks, h->n->ops->route, h->n->state, &acc, &r, err, sizeof err), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(topo_write_congestion_dot(h->n->ops->topology(h->n->state), f, "t", acc.link_load), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "\"S1\" -> \"T1\" [link=10, load=2, cong=\"1.000000\", color=\"#ff0000\"]"));
    ck_assert_ptr_nonnull(strstr(buf, "\"H1\" -> \"S1\" [link=0, load=1, cong=\"0.500000\", color=\"#807f00\"]"));
    ck_assert_ptr_nonnull(strstr(buf, "\"T2\" -> \"S1\" [link=28, load=0, cong=\"0.000000\", color=\"#00ff00\"]"));
    free(buf);
    cong_acc_free(&acc);
    pat_set_free(&s);
    th_net_free(h);
}
END_TEST


/* topo_route_many (the graph's and the three-tier fat tree's kernels,
 * which interleave many routes and read the tables directly) gives exactly
 * topo_route's links, the per-hop ops every other test derives by hand:
 * every ordered pair, with salts of every kind, of fabric.dot under the
 * four routings (ECMP falls back on topo_route), of the 4-ring with lmc
 * paths and a host path, and of the 8-port three-tier tree under d-mod-k
 * and random-up (salt-dependent up ports). */
static void same_routes(const topo *t)
{
    uint32_t N = t->hosts;
    size_t n = (size_t)N * N, stride = t->max_route_links;
    uint64_t *ends = tn_xmalloc(n * sizeof *ends), *salts = tn_xmalloc(n * sizeof *salts);
    uint32_t *links = tn_xmalloc((n * stride + 8) * sizeof *links), *len = tn_xmalloc(n * sizeof *len);
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++) {
            /* pairs in a scrambled order, so lanes finish out of order */
            size_t i = ((size_t)a * N + b) * 7919 % n;
            ends[i] = (uint64_t)a << 32 | b;
            salts[i] = (uint64_t)a * 0x9e3779b97f4a7c15u ^ (uint64_t)b * 31;
        }
    ck_assert_uint_eq(n % 7919 != 0, 1); /* 7919 is prime: a permutation */
    /* twice: a graph's route cache (shortest, up-down) is filled by the
     * first call, as pairs come (later pairs of the call may find theirs
     * there), and answers every pair of the second */
    for (int pass = 0; pass < 2; pass++) {
        memset(links, 0xff, (n * stride + 8) * sizeof *links);
        memset(len, 0xff, n * sizeof *len);
        topo_route_many(t, n, ends, salts, links, len, stride);
        for (size_t i = 0; i < n; i++) {
            uint64_t want[64];
            size_t L = topo_route(t, (uint32_t)(ends[i] >> 32), (uint32_t)ends[i], salts[i], want, NULL, 64);
            ck_assert_uint_eq(len[i], L);
            for (size_t j = 0; j < L; j++)
                ck_assert_uint_eq(links[i * stride + j], want[j]);
        }
    }
    free(ends);
    free(salts);
    free(links);
    free(len);
}

/* An irregular graph where up*-down*'s phase picks the port: switches R
 * P Q U X Y T (ids 0..6, named in that order; R the root), hosts HP HT HX
 * (0, 1, 2). BFS levels R 0; P, Q 1; X, U 2; Y, T 3. X's ports in file
 * order: 0 HX, 1 P (up), 2 U (up: same level, smaller id), 3 Y (down).
 * HP -> HT: from P, down to X (P -> X: 3 hops down, P -> X -> Y -> T,
 * against 4 by R: P -> R -> Q -> U -> T); at X, gone down, only Y (X -> Y
 * -> T) is legal, while a packet still going up would take U (X -> U -> T,
 * as short, and port 2 comes first). Links: HP's uplink 0; P's port 2 (HP,
 * R, X); X's port 3; Y's port 1 (X, T): with the port bases below. */
#define UPDOWN_PHASE                                                            \
    "graph g {\n  R; P; Q; U; X; Y; T; HP; HT; HX;\n"                          \
    "  HP -- P; HT -- T; HX -- X; R -- P; R -- Q; P -- X; Q -- U; X -- U;\n"      \
    "  X -- Y; U -- T; Y -- T;\n}\n"

START_TEST(test_route_many)
{
    {
        topo t;
        build_ok(dot_file(UPDOWN_PHASE), TOPO_GRAPH_UPDOWN, &t);
        /* the route cache: S_h = 3 switches with hosts (P, T, X), the
         * longest route HP -> HT crosses 3 links between switches (P X Y
         * T), 3 x 3 <= 4 S = 28: 4 B x 3^2 x 3 = 108 B */
        ck_assert_double_eq(topo_graph_route_cache_bytes(&t), 108);
        /* radices R 2, P 3, Q 2, U 3, X 4, Y 2, T 3: port bases 0, 2, 5, 7, 10, 14, 16 */
        uint64_t want[] = {0, 3 + 2 + 2, 3 + 10 + 3, 3 + 14 + 1, 3 + 16 + 0};
        uint64_t got[8];
        ck_assert_uint_eq(topo_route(&t, 0, 1, 0, got, NULL, 8), 5);
        for (int i = 0; i < 5; i++)
            ck_assert_uint_eq(got[i], want[i]);
        same_routes(&t);
        topo_free(&t);
    }
    for (int r = 0; r <= TOPO_GRAPH_ECMP; r++) {
        topo t;
        build_ok(TASKNET_SRCDIR "/configs/data/fabric.dot", (topo_graph_routing)r, &t);
        /* cached for shortest and up-down: 4 leaves with hosts, routes
         * over 2 links between switches at most (leaf, spine, leaf):
         * 4 B x 4^2 x 2 = 128 B; the file's routes and ECMP's are not */
        ck_assert_double_eq(topo_graph_route_cache_bytes(&t),
                            r == TOPO_GRAPH_SHORTEST || r == TOPO_GRAPH_UPDOWN ? 128 : 0);
        same_routes(&t);
        topo_free(&t);
    }
    topo t;
    build_ok(dot_file(RING4_PATHS), TOPO_GRAPH_FILE, &t);
    same_routes(&t);
    topo_free(&t);
    for (int r = 0; r < 2; r++) {
        topo_fattree3_params p = {.ports = 8, .oversubscription = 1,
                                  .routing = r ? TOPO_FT_RANDOM_UP : TOPO_FT_DMODK};
        char err[256];
        ck_assert_int_eq(topo_fattree3_init(&t, &p, err, sizeof err), 0);
        ck_assert_ptr_nonnull(t.ops->route_many);
        same_routes(&t);
        topo_free(&t);
    }
}
END_TEST

/* The workload's evaluation (cong_eval_ws: a level's routes at once
 * through the fabric's route_many, scratch kept between calls) against
 * cong_eval asking the route op pair after pair: the same results and the
 * same pooled loads and histogram, over 5 random mappings of bruck and
 * neighbor on the 128-host three-tier tree (k = 8) and on fabric.dot. */
START_TEST(test_cong_eval_many)
{
    const char *ft[] = {"network.ports=8", NULL};
    const char *gr[] = {"network.file=" TASKNET_SRCDIR "/configs/data/fabric.dot", "network.routing=up-down", NULL};
    const char *names[] = {"fat-tree", "graph"};
    const char *const *sets[] = {ft, gr};
    uint32_t nodes[] = {128, 16};
    for (int k = 0; k < 2; k++) {
        net_params core = th_star(nodes[k], 10e9);
        th_net *h = th_net_new(names[k], &core, sets[k], NULL, 1, 0);
        const net_ops *o = h->n->ops;
        ck_assert_ptr_nonnull(o->route_many);
        uint64_t nl = o->link_count(h->n->state);
        uint32_t N = nodes[k], *map = tn_xmalloc(N * sizeof *map);
        cong_acc a1, a2;
        cong_acc_init(&a1, nl);
        cong_acc_init(&a2, nl);
        cong_ws ws;
        memset(&ws, 0, sizeof ws);
        pat_kind kinds[] = {PAT_BRUCK, PAT_NEIGHBOR};
        for (int pk = 0; pk < 2; pk++) {
            pat_levels lv;
            pat_set s;
            char err[256];
            ck_assert_int_eq(pat_generate(kinds[pk], N, pk ? 3 : 0, NULL, &lv, err, sizeof err), 0);
            pat_single(&lv, &s);
            for (uint64_t m = 0; m < 5; m++) {
                gsl_rng *r = rng_stream_new(11, m, "test");
                map_random(map, N, N, r, NULL);
                gsl_rng_free(r);
                cong_result r1, r2;
                ck_assert_int_eq(cong_eval(&s, map, nl, o->route, h->n->state, &a1, &r1, err, sizeof err), 0);
                ck_assert_int_eq(cong_eval_ws(&ws, &s, map, nl, o->route, o->route_many, h->n->state, &a2, &r2, err,
                                              sizeof err), 0);
                ck_assert_double_eq(r1.sum_max_cong, r2.sum_max_cong);
                ck_assert_double_eq(r1.bw_fraction, r2.bw_fraction);
                ck_assert_double_eq(r1.cong_max, r2.cong_max);
                ck_assert_double_eq(r1.cong_mean, r2.cong_mean);
                ck_assert_double_eq(r1.dep_max_delay, r2.dep_max_delay);
                ck_assert_uint_eq(r1.flows, r2.flows);
            }
            pat_set_free(&s);
        }
        ck_assert_uint_eq(a1.hist_len, a2.hist_len);
        for (size_t w = 0; w < a1.hist_len; w++)
            ck_assert_uint_eq(a1.hist[w], a2.hist[w]);
        for (uint64_t e = 0; e < nl; e++)
            ck_assert_uint_eq(a1.link_load[e], a2.link_load[e]);
        cong_ws_free(&ws);
        cong_acc_free(&a1);
        cong_acc_free(&a2);
        free(map);
        th_net_free(h);
    }
}
END_TEST

/* The three-tier 16-port fat tree of Al-Fares et al.: 16 pods of 8 edge
 * and 8 aggregation switches, 64 cores, 16^3/4 = 1,024 hosts, 8 per edge.
 * From one host the 1,023 others are: 7 on its edge (1 switch), 56 in its
 * pod (8 edges x 8 - 8; 3 switches), 960 in other pods (5 switches). Zero
 * load of b bytes over h switches: b/B + (h + 1) link + h switch; summed
 * over every ordered pair, 1,024 x [(7 x 1 + 56 x 3 + 960 x 5) (link +
 * switch) + 1,023 (ser + link)] = 1,024 x [4,975 (link + switch) + 1,023
 * (ser + link)], the mean 4,975/1,023 = 4.863 switches. */
START_TEST(test_fattree3_zero_load)
{
    net_params core = th_star(1024, 10e9);
    const char *sets[] = {"network.ports=16", NULL};
    th_net *h = th_net_new("fat-tree", &core, sets, NULL, 1, 8);
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert_uint_eq(t->hosts, 1024);
    ck_assert_uint_eq(t->switches, 16 * 8 + 16 * 8 + 64);
    ck_assert_double_eq(t->ops->uniform_bound(t), 1.0);
    int64_t sum = 0;
    for (uint32_t a = 0; a < 1024; a++)
        for (uint32_t b = 0; b < 1024; b++)
            if (a != b)
                sum += h->n->ops->zero_load_ps(h->n->state, a, b, 1000);
    int64_t ser = 800000; /* 1000 B at 10 Gb/s */
    int64_t want = 1024 * (4975 * (int64_t)(TH_LINK_PS + TH_SW_PS) + 1023 * (ser + TH_LINK_PS));
    ck_assert_int_eq(sum, want);
    /* and simulated, one far pair and one in-pod pair alone */
    net_msg *m = th_at_low(h, 0, 0, 1023, 1000);
    th_net_go(h);
    ck_delivered_at(m, ser + 6 * TH_LINK_PS + 5 * TH_SW_PS);
    th_net_free(h);
    /* oversubscription 3 at k = 16: u = 4 uplinks, h = 12 hosts per edge,
     * N = 16 x 8 x 12 = 1,536; bound = u (N-1) / (h (N-h)) = 4 x 1535 /
     * (12 x 1524) = 0.3357... */
    topo t3;
    char err[256];
    topo_fattree3_params p3 = {.ports = 16, .oversubscription = 3, .routing = TOPO_FT_DMODK};
    ck_assert_int_eq(topo_fattree3_init(&t3, &p3, err, sizeof err), 0);
    ck_assert_uint_eq(t3.hosts, 1536);
    ck_assert_double_eq_tol(t3.ops->uniform_bound(&t3), 4.0 * 1535 / (12.0 * 1524), 1e-15);
    topo_free(&t3);
}
END_TEST

/* A size no fat tree has is refused with the nearest that exist: 1,000
 * hosts is the 10-ary 3-tree exactly; 1,000 on ports=16 (1,024) names it. */
START_TEST(test_fattree_sizes)
{
    net_params core = th_star(1000, 10e9);
    const char *sets[] = {"network.ports=16", NULL};
    char err[1024];
    th_net *h = th_net_try("fat-tree", &core, sets, NULL, 1, 0, err, sizeof err);
    ck_assert_ptr_null(h);
    ck_assert_msg(strstr(err, "N = 1000, but the three-tier 16-port fat tree has 1024 hosts; fat trees near 1000 "
                              "hosts: arity=10 levels=3 (1000 hosts)") != NULL,
                  "%s", err);
    ck_assert_msg(strstr(err, "ports=16 (1024 hosts)") != NULL, "%s", err);
}
END_TEST


/* ---- import-ib (networks/topo_ibimport.c) ---- */

#define IB2_NET TASKNET_SRCDIR "/configs/data/ib-2switch.ibnetdiscover"
#define IB2_FDB TASKNET_SRCDIR "/configs/data/ib-2switch.fdbs"

static char ib_paths[2][128];

/* Write text to temporary file k (0: topology, 1: tables); its path. */
static const char *ib_file(int k, const char *text)
{
    snprintf(ib_paths[k], sizeof ib_paths[k], "/tmp/tasknet-check-graph-%ld.ib%d", base_pid, k);
    FILE *f = fopen(ib_paths[k], "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return ib_paths[k];
}

/* import-ib's text (caller frees), or NULL with err. */
static char *ib_import(const char *ibn, const char *fdb, ib_import_stats *st, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(m);
    int rc = topo_import_ib(ibn, fdb, m, st, err, errlen);
    fclose(m);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The hand-made two-switch dump (configs/data/ib-2switch.*), derived by
 * hand from its lines:
 *   hosts, by switch (A = S-...a01 first: its Switch line comes first) then
 *   IB port: A port 1 b01 (LID 3), A port 2 b02 (LID 4), B port 1 b03
 *   (LID 5), B ports 2, 3 the two ports of b04 (LIDs 6, 7; two connected
 *   ports: "-P1", "-P2") -> hosts 0..4;
 *   ports: A's connected IB ports 1 2 7 8 are 0..3, B's 1 2 3 7 8 are 0..4;
 *   A's 7 <-> B's 7 is A port 2 <-> B port 3, A's 8 <-> B's 8 A 3 <-> B 4;
 *   routes: A's table sends LIDs 5, 6 (b03, b04-P1) out of IB port 7 (port
 *   2), LID 7 (b04-P2) out of 8 (port 3): every host off A has an entry, so
 *   port 2, carrying the most (2), is "*" and port 3 lists b04-P2. B sends
 *   LID 3 (b01) out of 7 (port 3), LID 4 (b02) out of 8 (port 4): one each,
 *   the lower, port 3, is "*". LIDs 1, 2 (the switches) and 8 (UNREACHABLE)
 *   are no host's: not written. */
static const char IB2_DOT[] =
    "// 5 hosts (connected channel adapter ports), 2 switches; read with <network type=\"graph\" file=\"...\"/>\n"
    "// (routing=\"file\", the default). Ports are each switch's connected IB ports in order.\n"
    "digraph fabric {\n"
    "  \"H-0000000000000b01\" [kind=host, lid=3, desc=\"node01 HCA-1\"];\n"
    "  \"H-0000000000000b02\" [kind=host, lid=4, desc=\"node02 HCA-1\"];\n"
    "  \"H-0000000000000b03\" [kind=host, lid=5, desc=\"node03 HCA-1\"];\n"
    "  \"H-0000000000000b04-P1\" [kind=host, lid=6, desc=\"node04 HCA-1\"];\n"
    "  \"H-0000000000000b04-P2\" [kind=host, lid=7, desc=\"node04 HCA-1\"];\n"
    "  \"S-0000000000000a01\" [kind=switch, lid=1, desc=\"leaf-a\"];\n"
    "  \"S-0000000000000a02\" [kind=switch, lid=2, desc=\"leaf-b\"];\n"
    "  \"H-0000000000000b01\" -> \"S-0000000000000a01\" [hport=0, comment=\"*\"];\n"
    "  \"H-0000000000000b02\" -> \"S-0000000000000a01\" [hport=1, comment=\"*\"];\n"
    "  \"H-0000000000000b03\" -> \"S-0000000000000a02\" [hport=0, comment=\"*\"];\n"
    "  \"H-0000000000000b04-P1\" -> \"S-0000000000000a02\" [hport=1, comment=\"*\"];\n"
    "  \"H-0000000000000b04-P2\" -> \"S-0000000000000a02\" [hport=2, comment=\"*\"];\n"
    "  // S-0000000000000a01 (leaf-a): IB ports 1 2 7 8 are ports 0..3\n"
    "  \"S-0000000000000a01\" -> \"H-0000000000000b01\" [tport=0, comment=\"H-0000000000000b01\"];\n"
    "  \"S-0000000000000a01\" -> \"H-0000000000000b02\" [tport=1, comment=\"H-0000000000000b02\"];\n"
    "  \"S-0000000000000a01\" -> \"S-0000000000000a02\" [tport=2, hport=3, comment=\"*\"];\n"
    "  \"S-0000000000000a01\" -> \"S-0000000000000a02\" [tport=3, hport=4, comment=\"H-0000000000000b04-P2\"];\n"
    "  // S-0000000000000a02 (leaf-b): IB ports 1 2 3 7 8 are ports 0..4\n"
    "  \"S-0000000000000a02\" -> \"H-0000000000000b03\" [tport=0, comment=\"H-0000000000000b03\"];\n"
    "  \"S-0000000000000a02\" -> \"H-0000000000000b04-P1\" [tport=1, comment=\"H-0000000000000b04-P1\"];\n"
    "  \"S-0000000000000a02\" -> \"H-0000000000000b04-P2\" [tport=2, comment=\"H-0000000000000b04-P2\"];\n"
    "  \"S-0000000000000a02\" -> \"S-0000000000000a01\" [tport=3, hport=2, comment=\"*\"];\n"
    "  \"S-0000000000000a02\" -> \"S-0000000000000a01\" [tport=4, hport=3, comment=\"H-0000000000000b02\"];\n"
    "}\n";

static void route_is(const topo *t, uint32_t a, uint32_t b, size_t n, const uint64_t *want)
{
    uint64_t links[16];
    size_t got = topo_route(t, a, b, 0, links, NULL, 16);
    ck_assert_uint_eq(got, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(links[i] == want[i], "%u -> %u: link %zu is %llu, expected %llu", a, b, i,
                      (unsigned long long)links[i], (unsigned long long)want[i]);
}

/* The graph read back. Link ids: hosts 0..4, then A's ports 5..8, B's
 * 9..13.
 *   b01 -> b04-P2 (0 -> 4): uplink 0, A port 3 (8), B port 2 (9 + 2 = 11);
 *   b01 -> b03 (0 -> 2): 0, A port 2 ("*": 7), B port 0 (9);
 *   b03 -> b02 (2 -> 1): 2, B port 4 (13), A port 1 (6);
 *   b04-P1 -> b01 (3 -> 0): 3, B port 3 ("*": 12), A port 0 (5);
 *   b04-P1 -> b04-P2 (3 -> 4): the same adapter's two ports, both on B:
 *   3, B port 2 (11). */
START_TEST(test_import_ib_2switch)
{
    char err[1024] = "";
    ib_import_stats st;
    char *dot = ib_import(IB2_NET, IB2_FDB, &st, err, sizeof err);
    ck_assert_msg(dot != NULL, "%s", err);
    const char *nl = strchr(dot, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_str_eq(nl + 1, IB2_DOT);
    ck_assert_uint_eq(st.hosts, 5);
    ck_assert_uint_eq(st.switches, 2);
    ck_assert_uint_eq(st.missing, 0);
    /* ignored entries: LIDs 1, 2 in both tables (LID 8 is UNREACHABLE) */
    ck_assert_uint_eq(st.ignored, 4);
    topo t;
    build_ok(dot_file(dot), TOPO_GRAPH_FILE, &t);
    ck_assert_uint_eq(t.hosts, 5);
    ck_assert_uint_eq(t.switches, 2);
    ck_assert_uint_eq(t.links, 14);
    ck_assert_str_eq(topo_graph_host_name(&t, 4), "H-0000000000000b04-P2");
    route_is(&t, 0, 4, 3, (const uint64_t[]){0, 8, 11});
    route_is(&t, 0, 2, 3, (const uint64_t[]){0, 7, 9});
    route_is(&t, 2, 1, 3, (const uint64_t[]){2, 13, 6});
    route_is(&t, 3, 0, 3, (const uint64_t[]){3, 12, 5});
    route_is(&t, 3, 4, 2, (const uint64_t[]){3, 11});
    topo_free(&t);
    free(dot);
}
END_TEST

/* ib-fattree (a 4-ary 2-tree with d-mod-k tables in opensm-lfts.dump
 * form) imports as the same fabric as the hand-written fabric.dot: the
 * same host, switch and port order (leaves' hosts on IB ports 1-4, spine j
 * on 4 + j; Switch lines leaves first), so every one of the 16 x 16 routes
 * crosses the same link ids. The shipped ib-*.dot are import-ib's output
 * (from the second line on: the first names the paths given). */
START_TEST(test_import_ib_fattree)
{
    char err[1024] = "";
    char *dot = ib_import(TASKNET_SRCDIR "/configs/data/ib-fattree.ibnetdiscover",
                          TASKNET_SRCDIR "/configs/data/ib-fattree.lfts", NULL, err, sizeof err);
    ck_assert_msg(dot != NULL, "%s", err);
    topo a, b;
    build_ok(dot_file(dot), TOPO_GRAPH_FILE, &a);
    build_ok(TASKNET_SRCDIR "/configs/data/fabric.dot", TOPO_GRAPH_FILE, &b);
    ck_assert_uint_eq(a.hosts, 16);
    ck_assert_uint_eq(a.links, b.links);
    for (uint32_t x = 0; x < 16; x++)
        for (uint32_t y = 0; y < 16; y++) {
            uint64_t la[8], lb[8];
            size_t na = topo_route(&a, x, y, 0, la, NULL, 8), nb = topo_route(&b, x, y, 0, lb, NULL, 8);
            ck_assert_uint_eq(na, nb);
            for (size_t i = 0; i < na; i++)
                ck_assert_uint_eq(la[i], lb[i]);
        }
    topo_free(&a);
    topo_free(&b);
    const char *pairs[2][3] = {{"ib-fattree.ibnetdiscover", "ib-fattree.lfts", "ib-fattree.dot"},
                               {"ib-2switch.ibnetdiscover", "ib-2switch.fdbs", "ib-2switch.dot"}};
    for (int k = 0; k < 2; k++) {
        char p0[512], p1[512], p2[512];
        snprintf(p0, sizeof p0, "%s/configs/data/%s", TASKNET_SRCDIR, pairs[k][0]);
        snprintf(p1, sizeof p1, "%s/configs/data/%s", TASKNET_SRCDIR, pairs[k][1]);
        snprintf(p2, sizeof p2, "%s/configs/data/%s", TASKNET_SRCDIR, pairs[k][2]);
        char *got = ib_import(p0, p1, NULL, err, sizeof err);
        ck_assert_msg(got != NULL, "%s", err);
        FILE *f = fopen(p2, "r");
        ck_assert_ptr_nonnull(f);
        static char shipped[1 << 16];
        size_t n = fread(shipped, 1, sizeof shipped - 1, f);
        shipped[n] = '\0';
        fclose(f);
        ck_assert_msg(strcmp(strchr(got, '\n'), strchr(shipped, '\n')) == 0,
                      "configs/data/%s is not what import-ib writes now", pairs[k][2]);
        free(got);
    }
    free(dot);
}
END_TEST

/* Malformed input: every error names the file and line. */
static const char IBN_OK[] = "Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n"    /* 1 */
                             "[1] \"H-0a\"[1](a) # \"ha\" lid 3 4xQDR\n"             /* 2 */
                             "[2] \"S-02\"[2] # \"b\" lid 2 4xQDR\n"                  /* 3 */
                             "\n"                                                    /* 4 */
                             "Switch 4 \"S-02\" # \"b\" base port 0 lid 2 lmc 0\n"   /* 5 */
                             "[1] \"H-0b\"[1](b) # \"hb\" lid 4 4xQDR\n"             /* 6 */
                             "[2] \"S-01\"[2] # \"a\" lid 1 4xQDR\n";                /* 7 */
static const char FDB_OK[] = "osm_ucast_mgr_dump_ucast_routes: Switch 0x01\n" /* 1 */
                             "0x0003 : 001 : 01 : yes\n"                      /* 2 */
                             "0x0004 : 002 : 02 : yes\n"                      /* 3 */
                             "osm_ucast_mgr_dump_ucast_routes: Switch 0x02\n" /* 4 */
                             "0x0003 : 002 : 02 : yes\n"                      /* 5 */
                             "0x0004 : 001 : 01 : yes\n";                     /* 6 */

static void ib_fails(const char *ibn, const char *fdb, const char *want_file, const char *want)
{
    char err[1024] = "";
    const char *pn = ib_file(0, ibn), *pf = ib_file(1, fdb);
    char *dot = ib_import(pn, pf, NULL, err, sizeof err);
    ck_assert_msg(dot == NULL, "accepted, expected '%s'", want);
    char pre[256];
    snprintf(pre, sizeof pre, "%s%s", want_file[0] == 'n' ? pn : pf, want_file + 1);
    ck_assert_msg(strncmp(err, pre, strlen(pre)) == 0, "'%s' does not start with '%s'", err, pre);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
}

START_TEST(test_import_ib_errors)
{
    char err[1024] = "";
    /* the minimal pair imports: two switches, a host on each, crossing ports 2 */
    char *dot = ib_import(ib_file(0, IBN_OK), ib_file(1, FDB_OK), NULL, err, sizeof err);
    ck_assert_msg(dot != NULL, "%s", err);
    free(dot);
    /* topology file */
    ib_fails("Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n[1] H-0a[1]\n", FDB_OK, "n:2:",
             "expected the peer's quoted name");
    ib_fails("Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n[9] \"H-0a\"[1] # \"ha\" lid 3\n", FDB_OK, "n:2:",
             "expected a port number 1..4 of S-01");
    ib_fails("vendid=0x2c9\nhello\n", FDB_OK, "n:2:", "expected a node line");
    ib_fails("Rt 2 \"R-05\" # \"router\"\n", FDB_OK, "n:1:", "routers are not modelled");
    ib_fails("Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n[1] \"H-0a\"[1] # \"ha\" lid 3\n"
             "Ca 1 \"H-0a\" # \"ha\"\n[1](a) \"S-01\"[2] # lid 3 lmc 0 \"a\" lid 1\n",
             FDB_OK, "n:4:", "disagree");
    ib_fails("Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n[1] \"H-0a\"[1] # \"ha\" 4xQDR\n", FDB_OK, "n:2:",
             "H-0a port 1 has no LID");
    /* a switch without a port line (AFL++, scripts/fuzz-input: its empty
     * link array went to qsort as NULL, a UBSan report) is read, then
     * refused for its missing table */
    char lone[512];
    snprintf(lone, sizeof lone, "%sSwitch 4 \"S-09\" # \"c\" base port 0 lid 9 lmc 0\n", IBN_OK);
    ib_fails(lone, FDB_OK, "n:8:", "switch S-09 has no forwarding table in");
    /* tables */
    ib_fails(IBN_OK, "0x0003 : 001\n", "f:1:", "an entry before any switch's table header");
    ib_fails(IBN_OK, "osm_ucast_mgr_dump_ucast_routes: Switch 0x07\n", "f:1:", "switch 0x0000000000000007 is not in");
    ib_fails(IBN_OK, "osm_ucast_mgr_dump_ucast_routes: Switch 0x01\n0x0004 : 003 : 01 : yes\n", "f:2:",
             "routes LID 0x4 (host H-0b) to port 3, which has no link in the topology");
    ib_fails(IBN_OK, "osm_ucast_mgr_dump_ucast_routes: Switch 0x01\n0x0003 : 002 : 01 : yes\n", "f:2:",
             "routes its own host H-0a (LID 0x3, on port 1) to port 2");
    ib_fails(IBN_OK, "osm_ucast_mgr_dump_ucast_routes: Switch 0x01\n0x0003 : fast\n", "f:2:",
             "expected the output port");
    ib_fails(IBN_OK, "Unicast lids [0x0-0x4] of switch Lid 1 guid 0x01 ('a'):\n0x0004 002 # x\n", "n:5:",
             "switch S-02 has no forwarding table in");
    /* a missing entry is counted, and the graph reports the pair it cuts */
    ib_import_stats st;
    dot = ib_import(ib_file(0, IBN_OK),
                    ib_file(1, "Unicast lids [0x0-0x4] of switch Lid 1 guid 0x01 ('a'):\n0x0004 002 # x\n"
                               "Unicast lids [0x0-0x4] of switch Lid 2 guid 0x02 ('b'):\n0x0003 000 # x\n"),
                    &st, err, sizeof err);
    ck_assert_ptr_null(dot);
    ck_assert_msg(strstr(err, "routes LID 0x3 (host H-0a) to port 0, the switch itself") != NULL, "%s", err);
    dot = ib_import(ib_file(0, IBN_OK),
                    ib_file(1, "Unicast lids [0x0-0x4] of switch Lid 1 guid 0x01 ('a'):\n0x0004 002 # x\n"
                               "Unicast lids [0x0-0x4] of switch Lid 2 guid 0x02 ('b'):\n"),
                    &st, err, sizeof err);
    ck_assert_msg(dot != NULL, "%s", err);
    ck_assert_uint_eq(st.missing, 1); /* S-02 has no entry for H-0a */
    build_fails(dot_file(dot), TOPO_GRAPH_FILE, "no route to host H-0a");
    free(dot);
    /* review findings: names and numbers are refused, not clipped or
     * wrapped. A GUID of 17 hex digits (strtoull would saturate: two such
     * switches would be one), and a 300-character name (clipped at 255 two
     * names could merge) */
    ib_fails("Switch 4 \"S-00000000000000001\" # \"a\" base port 0 lid 1 lmc 0\n", FDB_OK, "n:1:",
             "expected the node's quoted name (\"S-<GUID>\", the GUID 1 to 16 hex digits)");
    char longname[400] = "Switch 4 \"S-";
    memset(longname + strlen(longname), 'a', 300);
    strcpy(longname + strlen("Switch 4 \"S-") + 300, "\" # \"a\" base port 0 lid 1 lmc 0\n");
    ib_fails(longname, FDB_OK, "n:1:", "expected the node's quoted name");
    /* one GUID spelled twice (S-0001 is S-01's 0x1): its table would go to
     * either; S-0001's block is at line 5 */
    char twice[sizeof IBN_OK + 16];
    snprintf(twice, sizeof twice, "%s", IBN_OK);
    for (char *q = strstr(twice, "S-02"); q; q = strstr(q, "S-02")) {
        memmove(q + 6, q + 4, strlen(q + 4) + 1);
        memcpy(q, "S-0001", 6);
    }
    ib_fails(twice, FDB_OK, "n:5:", "S-0001 has the GUID of S-01 (line 1): one switch under two names");
    /* a LID beyond the unicast range (16 bits: 0xBFFF), an LMC that would
     * wrap to 0 in 32 bits */
    ib_fails("Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n[1] \"H-0a\"[1](a) # \"ha\" lid 65536 4xQDR\n",
             FDB_OK, "n:2:", "LID 65536 is not a unicast LID (1 to 0xbfff)");
    ib_fails("Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n[1] \"H-0a\"[1](a) # \"ha\" lid 3 4xQDR\n"
             "Ca 1 \"H-0a\" # \"ha\"\n[1](a) \"S-01\"[1] # lid 3 lmc 4294967296 \"a\" lid 1\n",
             FDB_OK, "n:4:", "lmc 4294967295: at most 7");
    /* LMC > 0 without the other LIDs' entries: H-0b's LID 5 (path 1) has
     * no route on either switch: 2 (switch, host) pairs missing */
    char lmc[sizeof IBN_OK + 128];
    snprintf(lmc, sizeof lmc, "%sCa 1 \"H-0b\" # \"hb\"\n[1](b) \"S-02\"[1] # lid 4 lmc 1 \"b\" lid 2\n", IBN_OK);
    dot = ib_import(ib_file(0, lmc), ib_file(1, FDB_OK), &st, err, sizeof err);
    ck_assert_msg(dot != NULL, "%s", err);
    ck_assert_uint_eq(st.lmc_hosts, 1);
    ck_assert_uint_eq(st.hosts, 2);
    ck_assert_uint_eq(st.missing, 1); /* S-01 has no entry for LID 5; S-02 delivers its own host anyway */
    free(dot);
}
END_TEST

/* LMC > 0 imported as lmc paths. Two switches joined by two links (IB
 * ports 2 and 3 of both), H-0a (LID 3) on S-01, H-0b on S-02 with LMC 1
 * (LIDs 4 and 5). S-01's table sends LID 4 out of IB port 2 and LID 5 out
 * of IB port 3: H-0b's path 0 (base + 0) and path 1 (base + 1) leave S-01
 * by its dense ports 1 and 2, written "H-0b@0" and "H-0b@1"; every other
 * route is the same on both paths (bare; S-02's port toward S-01 carries
 * all of them: "*"). The graph: lmc=1; links hosts 0, 1, S-01's ports
 * 2..4, S-02's 5..7. H-0a -> H-0b: 0, 3, 5 on path 0 and 0, 4, 5 on path
 * 1 (the salt's binary choice 0); H-0b -> H-0a: 1, 6, 2 on both. */
START_TEST(test_import_ib_lmc)
{
    static const char ibn[] = "Switch 4 \"S-01\" # \"a\" base port 0 lid 1 lmc 0\n"
                              "[1] \"H-0a\"[1](a) # \"ha\" lid 3 4xQDR\n"
                              "[2] \"S-02\"[2] # \"b\" lid 2 4xQDR\n"
                              "[3] \"S-02\"[3] # \"b\" lid 2 4xQDR\n"
                              "\n"
                              "Switch 4 \"S-02\" # \"b\" base port 0 lid 2 lmc 0\n"
                              "[1] \"H-0b\"[1](b) # \"hb\" lid 4 4xQDR\n"
                              "[2] \"S-01\"[2] # \"a\" lid 1 4xQDR\n"
                              "[3] \"S-01\"[3] # \"a\" lid 1 4xQDR\n"
                              "\n"
                              "Ca 1 \"H-0b\" # \"hb\"\n"
                              "[1](b) \"S-02\"[1] # lid 4 lmc 1 \"b\" lid 2\n";
    static const char fdb[] = "osm_ucast_mgr_dump_ucast_routes: Switch 0x01\n"
                              "0x0003 : 001 : 01 : yes\n"
                              "0x0004 : 002 : 02 : yes\n"
                              "0x0005 : 003 : 02 : yes\n"
                              "osm_ucast_mgr_dump_ucast_routes: Switch 0x02\n"
                              "0x0003 : 002 : 02 : yes\n"
                              "0x0004 : 001 : 01 : yes\n"
                              "0x0005 : 001 : 01 : yes\n";
    char err[1024] = "";
    ib_import_stats st;
    char *dot = ib_import(ib_file(0, ibn), ib_file(1, fdb), &st, err, sizeof err);
    ck_assert_msg(dot != NULL, "%s", err);
    ck_assert_uint_eq(st.lmc_hosts, 1);
    ck_assert_uint_eq(st.missing, 0);
    ck_assert_uint_eq(st.ignored, 0);
    static const char *const want[] = {
        "  lmc=1;\n",
        "  \"H-0b\" [kind=host, lid=4, lmc=1, desc=\"hb\"];\n",
        "  \"S-01\" -> \"S-02\" [tport=1, hport=1, comment=\"H-0b@0\"];\n",
        "  \"S-01\" -> \"S-02\" [tport=2, hport=2, comment=\"H-0b@1\"];\n",
        "  \"S-02\" -> \"S-01\" [tport=1, hport=1, comment=\"*\"];\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(dot, want[i]) != NULL, "the file lacks %s:\n%s", want[i], dot);
    topo t;
    build_ok(dot_file(dot), TOPO_GRAPH_FILE, &t);
    uint64_t salt[2] = {0, 0};
    int have[2] = {0, 0};
    for (uint64_t x = 1; !(have[0] && have[1]); x++) {
        unsigned b = topo_pick(x, 0, 2);
        if (!have[b])
            salt[b] = x, have[b] = 1;
    }
    for (int v = 0; v < 2; v++) {
        uint64_t l[8];
        ck_assert_uint_eq(topo_route(&t, 0, 1, salt[v], l, NULL, 8), 3);
        ck_assert_uint_eq(l[0], 0);
        ck_assert_uint_eq(l[1], v ? 4 : 3);
        ck_assert_uint_eq(l[2], 5);
        ck_assert_uint_eq(topo_route(&t, 1, 0, salt[v], l, NULL, 8), 3);
        ck_assert_uint_eq(l[0], 1);
        ck_assert_uint_eq(l[1], 6);
        ck_assert_uint_eq(l[2], 2);
    }
    topo_free(&t);
    free(dot);
}
END_TEST

/* ---- failed links (network.failed-links) ---- */

#define FABRIC TASKNET_SRCDIR "/configs/data/fabric.dot"

/* The memory estimate of a graph fabric with network.fail-at counts both
 * its graphs, before its failures and after (gr_build_pair): it grows by
 * the size of the graph before, built here on its own (fabric.dot,
 * up-down, every link up), against the same fabric failed from the
 * start. */
START_TEST(test_fail_at_mem)
{
    net_params core = th_star(16, 10e9);
    const net_ops *gops = net_find("graph");
    const char *plain[] = {"network.file=" FABRIC, "network.routing=up-down", "network.failed-links=L1-S1", NULL};
    const char *at[] = {"network.file=" FABRIC, "network.routing=up-down", "network.failed-links=L1-S1",
                        "network.fail-at=1us", NULL};
    void *pp = th_net_params(gops, plain), *pa = th_net_params(gops, at);
    double m1 = gops->mem_bytes(&core, pp);
    double m2 = gops->mem_bytes(&core, pa);
    net_params_free(gops, pp);
    net_params_free(gops, pa);
    topo before;
    build_ok(FABRIC, TOPO_GRAPH_UPDOWN, &before);
    double b = topo_graph_mem_bytes(&before);
    ck_assert_double_gt(b, 0);
    ck_assert_double_eq(m2 - m1, b);
    topo_free(&before);
}
END_TEST


static int build_failed(const char *path, topo_graph_routing r, const char *failed, int draw, uint64_t seed, topo *t,
                        char *err, size_t errlen)
{
    topo_graph_params p = {.path = path, .routing = r, .failed_links = failed, .fail_draw = draw,
                           .fail_seed = seed};
    return topo_graph_init(t, &p, err, errlen);
}

static void failed_fails(topo_graph_routing r, const char *failed, const char *want)
{
    topo t;
    char err[1024] = "";
    int rc = build_failed(FABRIC, r, failed, 1, 7, &t, err, sizeof err);
    ck_assert_msg(rc != 0, "accepted %s, expected '%s'", failed, want);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
}

/* routing="file" with failed links and lmc paths: a message whose own
 * path crosses a failed link takes the next intact one (v + 1, ... mod
 * 2^lmc); a pair with none is cut.
 * RING4_PATHS with S0-S1 down (links S0 -> S1 = 5, S1 -> S0 = 4 + 3 + 2 =
 * 9): H0 -> H2 has path 1 (S0 -> S3 -> S2); H0 -> H1 (S0 -> S1 on both
 * paths), H1 -> H0 (S1 -> S0), H2 -> H0 (S2 -> S1 -> S0) and H3 -> H1
 * (S3 -> S0 -> S1) have one route each, over the failed link: 4 pairs cut,
 * the first three named.
 * A ring whose path 0 goes clockwise and path 1 counter-clockwise for
 * every pair (each switch: the clockwise edge lists the other hosts @0,
 * the other edge @1) with S0-S1 down: every pair is routed for every salt,
 * never over links 5 and 9; the pairs whose own path avoided S0-S1 keep
 * it (the route equals the intact ring's). */
START_TEST(test_failed_file_paths)
{
    topo t;
    char err[1024] = "";
    ck_assert_int_ne(build_failed(dot_file(RING4_PATHS), TOPO_GRAPH_FILE, "S0-S1", 0, 0, &t, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "routing=\"file\" routes 4 pairs over the failed links (S0-S1) on every one of their "
                              "lmc paths: H0 -> H1 (over S0-S1), H1 -> H0 (over S1-S0), H2 -> H0 (over S1-S0), ...;"),
                  "%s", err);
    char text[1024] = "digraph g {\n  lmc=1;\n  H0; H1; H2; H3; S0; S1; S2; S3;\n";
    for (int s = 0; s < 4; s++) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof text - n,
                 "  S%d -> H%d; S%d -> S%d [comment=\"H%d@0, H%d@0, H%d@0\"]; "
                 "S%d -> S%d [comment=\"H%d@1, H%d@1, H%d@1\"];\n",
                 s, s, s, (s + 1) % 4, (s + 1) % 4, (s + 2) % 4, (s + 3) % 4, s, (s + 3) % 4, (s + 3) % 4,
                 (s + 2) % 4, (s + 1) % 4);
    }
    strncat(text, "  H0 -> S0; H1 -> S1; H2 -> S2; H3 -> S3;\n}\n", sizeof text - strlen(text) - 1);
    topo whole;
    build_ok(dot_file(text), TOPO_GRAPH_FILE, &whole);
    int rc = build_failed(dot_file(text), TOPO_GRAPH_FILE, "S0-S1", 0, 0, &t, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    unsigned kept = 0, moved = 0;
    for (uint32_t a = 0; a < 4; a++)
        for (uint32_t b = 0; b < 4; b++)
            for (uint64_t salt = 0; a != b && salt < 32; salt++) {
                uint64_t l[16], w[16];
                size_t n = topo_route(&t, a, b, salt, l, NULL, 16), nw = topo_route(&whole, a, b, salt, w, NULL, 16);
                ck_assert_uint_ge(n, 3);
                int over = 0, same = n == nw;
                for (size_t i = 0; i < n; i++) {
                    ck_assert_msg(l[i] != 5 && l[i] != 9, "H%u -> H%u salt %llu over S0-S1", a, b,
                                  (unsigned long long)salt);
                    same = same && l[i] == w[i];
                }
                for (size_t i = 0; i < nw; i++)
                    over = over || w[i] == 5 || w[i] == 9;
                ck_assert_msg(same == !over, "H%u -> H%u salt %llu: route changed %d, own path over S0-S1 %d", a,
                              b, (unsigned long long)salt, !same, over);
                kept += (unsigned)same;
                moved += (unsigned)!same;
            }
    ck_assert_uint_gt(kept, 0);
    ck_assert_uint_gt(moved, 0);
    topo_free(&t);
    topo_free(&whole);
}
END_TEST

/* fabric.dot (the 4-ary 2-tree: leaves L1..L4 with hosts H1..H16, spines
 * S1..S4, d-mod-k routes: leaf -> S(d mod 4 + 1) for host H(d+1)) with the
 * uplink L1-S1 down.
 * routing="file": the file's routes are not recomputed, and 24 pairs cross
 * it: L1 -> S1 carries H1..H4 (4 sources) to H5, H9, H13 (d = 4, 8, 12:
 * d mod 4 = 0) = 12; S1 -> L1 carries H1 (d = 0) from the 12 hosts of L2..L4
 * = 12. The first, sources then destinations in order: H1 -> H5.
 * Failing every uplink of L1 cuts it off: the computed routing reports
 * it before the run. */
START_TEST(test_failed_links_errors)
{
    failed_fails(TOPO_GRAPH_FILE, "L1-S1",
                 "routing=\"file\" routes 24 pairs over the failed links (L1-S1): H1 -> H5 (over L1-S1), H1 -> H9 "
                 "(over L1-S1), H1 -> H13 (over L1-S1), ...");
    failed_fails(TOPO_GRAPH_SHORTEST, "L1-S1 L1-S2,L1-S3  L1-S4",
                 "node L2: no path to switch L1 (not connected once these links fail: L1-S1 L1-S2 L1-S3 L1-S4)");
    failed_fails(TOPO_GRAPH_SHORTEST, "H1-L1", "\"H1-L1\" is a host's link");
    failed_fails(TOPO_GRAPH_SHORTEST, "L1-L2", "\"L1-L2\": L1 and L2 are not linked");
    failed_fails(TOPO_GRAPH_SHORTEST, "L1-S1 S1-L1", "\"S1-L1\": S1 and L1 are not linked");
    failed_fails(TOPO_GRAPH_SHORTEST, "L1-X9", "\"L1-X9\" is not A-B with A and B two nodes of");
    /* 4 leaves x 4 spines = 16 links between switches */
    failed_fails(TOPO_GRAPH_SHORTEST, "17", "network.failed-links=17: " FABRIC " has only 16 links between switches");
    /* the parameter's own syntax check */
    const net_ops *ops = net_find("graph");
    const param_row *row = NULL;
    for (size_t i = 0; i < ops->nparams; i++)
        if (strcmp(ops->params[i].path, "network.failed-links") == 0)
            row = &ops->params[i];
    ck_assert_ptr_nonnull(row);
    param_value v;
    char err[1024] = "";
    ck_assert_int_ne(param_parse(row, "L1-S1 L1", ".", &v, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "\"L1\": expected a number of links, or links named A-B") != NULL, "%s", err);
    ck_assert_int_eq(param_parse(row, "L1-S1, L2-S3", ".", &v, err, sizeof err), 0);
    free(v.text);
}
END_TEST

static cong_result eval16(th_net *h, pat_kind k, const uint32_t *map)
{
    pat_set s = single(k, 16);
    cong_result r;
    char err[256];
    int rc = cong_eval(&s, map, h->n->ops->link_count(h->n->state), h->n->ops->route, h->n->state, NULL, &r, err,
                       sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    pat_set_free(&s);
    return r;
}

/* One failed uplink of the 4-ary 2-tree changes bisect's congestion (ORCS's
 * rules) as worked by hand. routing="shortest": a leaf sends every other
 * leaf's hosts up its lowest spine port toward a switch one hop nearer,
 * S1; the spine sends them down.
 * Mapping M (rank r on host M[r]) makes bisect's 8 flows (2i -> 2i+1):
 *   H1 -> H9, H2 -> H10 (L1 -> L3), H5 -> H11, H6 -> H12 (L2 -> L3), and
 *   H3 -> H4, H7 -> H8, H13 -> H14, H15 -> H16 (inside a leaf: c_f = 1).
 * Whole: the 4 crossing flows all climb to S1 and share S1 -> L3: c_f = 4.
 *   sum_max_cong = 4, cong_max 4, cong_mean = (4 x 4 + 4 x 1) / 8 = 2.5,
 *   bw_fraction = (4 x 1/4 + 4 x 1) / 8 = 5/8.
 * L1-S1 down: L1's distance through S1 grows, S2 is its lowest port one
 *   hop nearer L3, so H1, H2 climb L1 -> S2 -> L3; L2's flows keep S1.
 *   S1 -> L3 and S2 -> L3 carry 2 each: every crossing c_f = 2:
 *   sum_max_cong = 2, cong_mean = (4 x 2 + 4) / 8 = 1.5, bw_fraction =
 *   (4 x 1/2 + 4) / 8 = 3/4. */
START_TEST(test_failed_uplink_bisect)
{
    net_params core = th_star(16, 10e9);
    static const uint32_t M[16] = {0, 8, 1, 9, 4, 10, 5, 11, 2, 3, 6, 7, 12, 13, 14, 15};
    const char *whole[] = {"network.file=" FABRIC, "network.routing=shortest", NULL};
    th_net *h = th_net_new("graph", &core, whole, NULL, 1, 0);
    cong_result r = eval16(h, PAT_BISECT, M);
    ck_assert_double_eq(r.sum_max_cong, 4);
    ck_assert_double_eq(r.cong_max, 4);
    ck_assert_double_eq(r.cong_mean, 2.5);
    ck_assert_double_eq(r.bw_fraction, 5.0 / 8.0);
    th_net_free(h);
    const char *failed[] = {"network.file=" FABRIC, "network.routing=shortest", "network.failed-links=L1-S1", NULL};
    h = th_net_new("graph", &core, failed, NULL, 1, 0);
    r = eval16(h, PAT_BISECT, M);
    ck_assert_double_eq(r.sum_max_cong, 2);
    ck_assert_double_eq(r.cong_max, 2);
    ck_assert_double_eq(r.cong_mean, 1.5);
    ck_assert_double_eq(r.bw_fraction, 0.75);
    ck_assert_str_eq(topo_graph_failed(h->n->ops->topology(h->n->state)), "L1-S1");
    th_net_free(h);
}
END_TEST

/* A count draws that many distinct links between switches from the seed
 * (the same seed, the same links), and every route avoids them: no link
 * of any of the 16 x 16 routes joins the two ends of a failed one. */
START_TEST(test_failed_links_drawn)
{
    const topo_graph_routing rs[] = {TOPO_GRAPH_SHORTEST, TOPO_GRAPH_UPDOWN, TOPO_GRAPH_ECMP};
    char err[1024];
    int differ = 0;
    char first[256] = "";
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (size_t ri = 0; ri < 3; ri++) {
            topo t, u;
            ck_assert_msg(build_failed(FABRIC, rs[ri], "3", 1, seed, &t, err, sizeof err) == 0, "%s", err);
            ck_assert_msg(build_failed(FABRIC, rs[ri], "3", 1, seed, &u, err, sizeof err) == 0, "%s", err);
            const char *names = topo_graph_failed(&t);
            ck_assert_ptr_nonnull(names);
            ck_assert_str_eq(names, topo_graph_failed(&u));
            /* three names: two spaces */
            int sp = 0;
            for (const char *c = names; *c; c++)
                sp += *c == ' ';
            ck_assert_int_eq(sp, 2);
            if (!first[0])
                snprintf(first, sizeof first, "%s", names);
            else if (strcmp(first, names) != 0)
                differ = 1;
            for (uint32_t a = 0; a < 16; a++)
                for (uint32_t b = 0; b < 16; b++) {
                    uint64_t links[8];
                    size_t n = topo_route(&t, a, b, a * 16 + b, links, NULL, 8);
                    for (size_t i = 0; i < n; i++) {
                        topo_end from, to;
                        topo_link_ends(&t, links[i], &from, &to);
                        if (from.kind != TOPO_SWITCH || to.kind != TOPO_SWITCH)
                            continue;
                        char l1[64], l2[64];
                        snprintf(l1, sizeof l1, "%s-%s", topo_graph_switch_name(&t, from.id),
                                 topo_graph_switch_name(&t, to.id));
                        snprintf(l2, sizeof l2, "%s-%s", topo_graph_switch_name(&t, to.id),
                                 topo_graph_switch_name(&t, from.id));
                        ck_assert_msg(!strstr(names, l1) && !strstr(names, l2), "%u -> %u crosses %s (failed: %s)", a,
                                      b, l1, names);
                    }
                }
            topo_free(&t);
            topo_free(&u);
        }
    ck_assert_msg(differ, "six seeds drew the same links: %s", first);
    /* a count with nothing drawn (the checks before the runs) fails nothing */
    topo t;
    ck_assert_msg(build_failed(FABRIC, TOPO_GRAPH_SHORTEST, "3", 0, 0, &t, err, sizeof err) == 0, "%s", err);
    ck_assert_ptr_null(topo_graph_failed(&t));
    topo_free(&t);
}
END_TEST

/* ---- failed links on the parametric fabrics (networks/topo_fail.c) ---- */

/* The route a -> b (salt 0) crosses the directed link (sw, port). */
static int route_has(const topo *t, uint32_t a, uint32_t b, uint32_t sw, uint32_t port)
{
    uint64_t links[16];
    size_t n = topo_route(t, a, b, 0, links, NULL, 16);
    for (size_t i = 0; i < n; i++)
        if (links[i] == topo_link_out(t, sw, port))
            return 1;
    return 0;
}

static th_net *param_net(const char *type, const char *const *sets, char *err, size_t errlen)
{
    net_params core = th_star(16, 10e9);
    return th_net_try(type, &core, sets, NULL, 1, 0, err, errlen);
}

/* One failed uplink of the parametric 4-ary 2-tree (d-mod-k), bisect.
 * Switches as export-topology names them: leaves S0..S3 (hosts 4i..4i+3),
 * tops S4..S7; leaf i's up port 4 + j enters top S(4 + j) (on its down
 * port i); d-mod-k climbs by up port b mod 4 (b the destination).
 * Mapping M (rank r on host M[r]) makes bisect's 8 flows 2i -> 2i+1:
 *   0 -> 8, 1 -> 9 (S0 -> S2), 4 -> 12, 5 -> 13 (S1 -> S3), and 2 -> 3,
 *   6 -> 7, 10 -> 11, 14 -> 15 inside a leaf.
 * Whole: the four crossing flows climb by ports 0, 1, 0, 1 from two
 *   different leaves: S0->S4->S2, S0->S5->S2, S1->S4->S3, S1->S5->S3, no
 *   link shared: every c_f = 1: sum_max_cong 1, cong_mean 1, bw_fraction 1.
 * S0-S4 down: 0 -> 8's port (4) is dead, the next up port of the group is
 *   5 (S5, which reaches S2): 0 -> 8 and 1 -> 9 share S0 -> S5 and
 *   S5 -> S2: c_f = 2 for both, 1 for the six others: sum_max_cong 2,
 *   cong_max 2, cong_mean (2 + 2 + 6) / 8 = 1.25, bw_fraction
 *   (1/2 + 1/2 + 6) / 8 = 7/8.
 * S5-S2 down instead (a down link): 1 -> 9 climbs to S5 by d-mod-k, but S5
 *   can no longer reach S2, so S0 takes the next up port, 6 (S6 -> S2);
 *   0 -> 8 keeps S4: nothing shared, c_f = 1 everywhere. */
START_TEST(test_param_failed_uplink_bisect)
{
    static const uint32_t M[16] = {0, 8, 1, 9, 4, 12, 5, 13, 2, 3, 6, 7, 10, 11, 14, 15};
    char err[1024] = "";
    const char *whole[] = {"network.arity=4", "network.levels=2", NULL};
    th_net *h = param_net("fat-tree", whole, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    cong_result r = eval16(h, PAT_BISECT, M);
    ck_assert_double_eq(r.sum_max_cong, 1);
    ck_assert_double_eq(r.cong_mean, 1);
    ck_assert_double_eq(r.bw_fraction, 1);
    th_net_free(h);
    const char *up[] = {"network.arity=4", "network.levels=2", "network.failed-links=S0-S4", NULL};
    h = param_net("fat-tree", up, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    r = eval16(h, PAT_BISECT, M);
    ck_assert_double_eq(r.sum_max_cong, 2);
    ck_assert_double_eq(r.cong_max, 2);
    ck_assert_double_eq(r.cong_mean, 1.25);
    ck_assert_double_eq(r.bw_fraction, 7.0 / 8.0);
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert_str_eq(topo_failed_names(t), "S0-S4");
    ck_assert(route_has(t, 0, 8, 0, 5) && route_has(t, 0, 8, 5, 2) && !route_has(t, 0, 8, 0, 4));
    /* the reverse direction is down too: 8 -> 0 climbs by port 4 + 0 (S4), whose way down to S0 is cut: S5 */
    ck_assert(route_has(t, 8, 0, 2, 5) && route_has(t, 8, 0, 5, 0));
    th_net_free(h);
    const char *down[] = {"network.arity=4", "network.levels=2", "network.failed-links=S5-S2", NULL};
    h = param_net("fat-tree", down, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    r = eval16(h, PAT_BISECT, M);
    ck_assert_double_eq(r.sum_max_cong, 1);
    t = h->n->ops->topology(h->n->state);
    ck_assert(route_has(t, 1, 9, 0, 6) && route_has(t, 1, 9, 6, 2) && route_has(t, 0, 8, 0, 4));
    th_net_free(h);
}
END_TEST

/* Leaf-spine, 3 leaves of 2 hosts, 2 spines (S0..S2 leaves, S3, S4
 * spines; leaf l's port 2 + s enters spine S(3 + s) on its port l),
 * d-mod-k: spine (b mod 2) mod 2 = b mod 2. S0-S3 down:
 *   0 -> 2 (b = 2: spine S3): S0's port 2 is dead, the next spine port is 3
 *     (S4), which reaches S1: S0 -> S4 -> S1.
 *   2 -> 0 (b = 0: spine S3): S1's port 2 enters S3, whose way down to S0
 *     is cut: S1 -> S4 (port 3) -> S0.
 *   4 -> 1 (b = 1: spine S4): unchanged, S2 -> S4 -> S0.
 * S0-S3 and S0-S4 down cut leaf S0 off: its 2 hosts to the 4 others and
 * back, 16 pairs, an error naming them. */
START_TEST(test_param_failed_leafspine)
{
    char err[1024] = "";
    net_params core = th_star(6, 10e9);
    const char *one[] = {"network.leaves=3", "network.spines=2", "network.hosts-per-leaf=2", "network.routing=d-mod-k",
                         "network.failed-links=S0-S3", NULL};
    th_net *h = th_net_try("leaf-spine", &core, one, NULL, 1, 0, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert(route_has(t, 0, 2, 0, 3) && route_has(t, 0, 2, 4, 1));
    ck_assert(route_has(t, 2, 0, 1, 3) && route_has(t, 2, 0, 4, 0));
    ck_assert(route_has(t, 4, 1, 2, 3) && route_has(t, 4, 1, 4, 0));
    /* every pair is delivered, by both router models */
    for (int iq = 0; iq < 2; iq++) {
        th_net_free(h);
        const char *sets[] = {"network.leaves=3", "network.spines=2", "network.hosts-per-leaf=2",
                              "network.failed-links=S0-S3", iq ? "network.router=input-queued" : NULL, NULL};
        h = th_net_try("leaf-spine", &core, sets, NULL, 1, 64, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        net_msg *m[36];
        for (uint32_t a = 0; a < 6; a++)
            for (uint32_t b = 0; b < 6; b++)
                m[a * 6 + b] = a == b ? NULL : th_at_low(h, 0, a, b, 10000);
        th_net_go(h);
        for (int i = 0; i < 36; i++)
            if (m[i])
                ck_assert_uint_eq(m[i]->a, 1);
    }
    th_net_free(h);
    const char *cut[] = {"network.leaves=3", "network.spines=2", "network.hosts-per-leaf=2",
                         "network.failed-links=S0-S3 S0-S4", NULL};
    h = th_net_try("leaf-spine", &core, cut, NULL, 1, 0, err, sizeof err);
    ck_assert_ptr_null(h);
    ck_assert_msg(strstr(err, "16 pairs of hosts have no route on the leaf-spine around the failed links: H0->H2, "
                              "H0->H4, H2->H0, ...") != NULL,
                  "%s", err);
}
END_TEST

/* The three-tier k = 4 tree (16 hosts: edges S0..S7, aggregations S8..S15,
 * cores S16..S19; aggregation (p, j) = S(8 + 2p + j), its up port 2 + m
 * enters core S(16 + 2j + m)). Failing both uplinks of aggregation S8
 * (pod 0, j = 0: S8-S16, S8-S17) leaves pod 0 reachable through S9: every
 * pair still has a route and none crosses a failed link; failing both of
 * edge S0's uplinks (S0-S8, S0-S9) cuts its 2 hosts off: 2 x 14 x 2 = 56
 * pairs. Errors: a link that is not one, a host's link, names outside the
 * fabric, a count above its 32 links between switches (8 edges x 2 + 8
 * aggregations x 2). */
START_TEST(test_param_failed_errors)
{
    char err[1024] = "";
    /* core S16 links aggregation j = 0 of every pod: S8, S10, ...; either order names a link */
    const char *ok[] = {"network.ports=4", "network.failed-links=S8-S16 S16-S10", NULL};
    th_net *h = param_net("fat-tree", ok, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    ck_assert_str_eq(topo_failed_names(h->n->ops->topology(h->n->state)), "S8-S16 S16-S10");
    th_net_free(h);
    const char *ok2[] = {"network.ports=4", "network.failed-links=S8-S16 S8-S17", NULL};
    h = param_net("fat-tree", ok2, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    const topo *t = h->n->ops->topology(h->n->state);
    for (uint32_t a = 0; a < 16; a++)
        for (uint32_t b = 0; b < 16; b++)
            if (a != b)
                ck_assert(!route_has(t, a, b, 8, 2) && !route_has(t, a, b, 8, 3) && !route_has(t, a, b, 16, 0) &&
                          !route_has(t, a, b, 17, 0));
    th_net_free(h);
    static const struct {
        const char *set, *want;
    } bad[] = {
        {"network.failed-links=S0-S8 S0-S9", "56 pairs of hosts have no route on the fat-tree"},
        {"network.failed-links=S0-S1", "\"S0-S1\": S0 and S1 are not linked in the fat-tree"},
        {"network.failed-links=S0-S8 S8-S0", "\"S8-S0\": S8 and S0 are not linked in the fat-tree (or the link is "
                                             "named twice)"},
        {"network.failed-links=H0-S0", "\"H0-S0\" is a host's link"},
        {"network.failed-links=S0-S20", "\"S0-S20\" is not A-B with A and B two nodes of the fat-tree"},
        {"network.failed-links=33", "network.failed-links=33: the fat-tree has only 32 links between switches"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *sets[] = {"network.ports=4", bad[i].set, NULL};
        h = param_net("fat-tree", sets, err, sizeof err);
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(err, bad[i].want) != NULL, "%s: '%s' lacks '%s'", bad[i].set, err, bad[i].want);
    }
    /* network.fail-at: needs failed links; either router model */
    static const struct {
        const char *type, *sets[4], *want;
    } fa[] = {
        {"fat-tree", {"network.ports=4", "network.fail-at=1us", NULL}, "needs network.failed-links"},
        {"fat-tree", {"network.ports=4", "network.fail-at=1us", "network.failed-links=S8-S16", NULL}, NULL},
    };
    for (size_t i = 0; i < sizeof fa / sizeof fa[0]; i++) {
        net_params core = th_star(16, 10e9);
        h = th_net_try(fa[i].type, &core, fa[i].sets, NULL, 1, 0, err, sizeof err);
        if (!fa[i].want) {
            ck_assert_msg(h != NULL, "%s", err);
            th_net_free(h);
            const char *iq[] = {"network.ports=4", "network.fail-at=1us", "network.failed-links=S8-S16",
                                "network.router=input-queued", NULL};
            h = th_net_try(fa[i].type, &core, iq, NULL, 1, 0, err, sizeof err); /* both routers now */
            ck_assert_msg(h != NULL, "%s", err);
            th_net_free(h);
            continue;
        }
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(err, fa[i].want) != NULL, "'%s' lacks '%s'", err, fa[i].want);
    }
    /* network.fail-at on the graph fabric: the routes while the packets
     * routed before the failure drain (topo_graph_transition_cycle). Ring
     * S0-S1-S2-S3-S0, a host on each switch; ports in file order (S0: H0,
     * S3, S1; S1: H1, S2, S0; S2: H2, S1, S3; S3: H3, S0, S2); shortest,
     * ties to the lowest port.
     *   Before: S0 -> S2 by S3, S2 -> S0 by S1, S1 -> S3 by S2, S3 -> S1 by
     *   S0; dependencies S0S3 > S3S2, S2S1 > S1S0, S1S2 > S2S3, S3S0 > S0S1:
     *   acyclic.
     *   After S0-S1 fails: S0 -> S1 by S3, S2; S1 -> S0 by S2, S3; S2 -> S0
     *   by S3; S3 -> S1 by S2: S0S3 > S3S2 > S2S1 and S1S2 > S2S3 > S3S0:
     *   acyclic.
     *   Draining: a packet S2 -> S0 that crossed S2 -> S1 before the
     *   failure is routed from S1 by the new tables: S1 -> S2 (S2S1 >
     *   S1S2); one S3 -> S1 at S0: S0 -> S3 (S3S0 > S0S3). With them the
     *   cycle S0S3 > S3S2 > S2S1 > S1S2 > S2S3 > S3S0 > S0S3: refused under
     *   credit flow control, taken with infinite buffers. */
    {
        char ring[256];
        snprintf(ring, sizeof ring, "network.file=%s",
                 dot_file("digraph g {\n  H0 -> S0; S0 -> H0;\n  H1 -> S1; S1 -> H1;\n  H2 -> S2; S2 -> H2;\n"
                          "  H3 -> S3; S3 -> H3;\n  S1 -> S2; S2 -> S1;\n  S0 -> S3; S3 -> S0;\n"
                          "  S0 -> S1; S1 -> S0;\n  S2 -> S3; S3 -> S2;\n}\n"));
        net_params core = th_star(4, 10e9);
        const char *cred[] = {ring, "network.routing=shortest", "network.failed-links=S0-S1", "network.fail-at=1us",
                              NULL};
        h = th_net_try("graph", &core, cred, NULL, 1, 0, err, sizeof err);
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(err, "while the packets routed before the failure of S0-S1 drain") &&
                          strstr(err, "the cycle S0 -> S3, S3 -> S2, S2 -> S1, S1 -> S2, S2 -> S3, S3 -> S0 "),
                      "%s", err);
        /* without the failure during the run: the routes after it alone are acyclic */
        const char *start[] = {ring, "network.routing=shortest", "network.failed-links=S0-S1", NULL};
        h = th_net_try("graph", &core, start, NULL, 1, 0, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        th_net_free(h);
        const char *inf[] = {ring, "network.routing=shortest", "network.failed-links=S0-S1", "network.fail-at=1us",
                             "network.flow-control=infinite", NULL};
        h = th_net_try("graph", &core, inf, NULL, 1, 0, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        th_net_free(h);
        /* routes from the file with one path: a pair over the failed link has
         * no other (as at the start): S1's hosts to the 6 others go up S1 ->
         * T1 (12 pairs), S2's to S1's come down T1 -> S1 (4); S3, S4 use T2 */
        char orcs[256];
        snprintf(orcs, sizeof orcs, "network.file=%s", ORCS8);
        const char *file[] = {orcs, "network.failed-links=S1-T1", "network.fail-at=1us", NULL};
        core = th_star(8, 10e9);
        h = th_net_try("graph", &core, file, NULL, 1, 0, err, sizeof err);
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(err, "routing=\"file\" routes 16 pairs over the failed links (S1-T1)"), "%s", err);
    }
    /* the pair-by-pair check of a torus has a size limit (topo_fail.c: 2^26 pairs): 128 x 128 is beyond it */
    const char *big[] = {"network.dims=128 128", "network.failed-links=S0-S1", NULL};
    net_params core4k = th_star(16384, 10e9);
    h = th_net_try("torus", &core4k, big, NULL, 1, 0, err, sizeof err);
    ck_assert_ptr_null(h);
    ck_assert_msg(strstr(err, "too many for the pair-by-pair check") != NULL, "%s", err);
}
END_TEST

/* Torus 4x4 (switch = host v = x + 4 y; ports 1 +x, 2 -x, 3 +y, 4 -y).
 * S0-S1 down (the x link (0,0)-(1,0)), DOR (x first):
 *   H0 -> H1: offset x +1, no tie: every minimal record crosses S0 -> S1;
 *     the long way round x (-3) is next: S0 -> S3 -> S2 -> S1 by port 2:
 *     4 switches, 5 links.
 *   H0 -> H5 ((1,1)): x +1 in row 0 (dead), so the long way in x again,
 *     then +y at S1: S0 -> S3 -> S2 -> S1 -> S5.
 *   H0 -> H2: x offset 2 is a tie; the salt's record may go + (over the
 *     dead link) and then the other tie, -2 via S3, is taken: never over
 *     S0 -> S1.
 * The longest record is then 3 + 3 switch-to-switch hops: 8 links.
 * Every pair is delivered by both router models, and H0 -> H1 alone at
 * zero load takes the zero-load time of 4 switches.
 * S0-S1 and S0-S3 down (both x links of S0): x leaves or enters S0 in no
 *   direction. DOR (x first): from H0 to the 12 hosts with x != 0, and from
 *   the 3 others of row 0 (x != 0) to the 4 hosts of column 0 (their x
 *   leg ends at S0): 24 pairs, the first H0->H1, H0->H2, H0->H3.
 *   adaptive (escape: y first, then x): from the 4 hosts of column 0 to the
 *   3 of row 0 with x != 0 (their x leg starts at S0), and from the 12
 *   hosts with x != 0 to H0: 24 pairs too (the escape is needed at the
 *   source, so an adaptive first hop cannot rescue a pair). */
START_TEST(test_param_failed_torus)
{
    char err[1024] = "";
    const char *sets[] = {"network.dims=4 4", "network.failed-links=S0-S1", NULL};
    th_net *h = param_net("torus", sets, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    th_net_free(h);
    net_params core1 = th_star(16, 10e9);
    h = th_net_try("torus", &core1, sets, NULL, 1, 4, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert_uint_eq(t->max_route_links, 8);
    uint64_t links[16];
    ck_assert_uint_eq(topo_route(t, 0, 1, 0, links, NULL, 16), 5);
    ck_assert(route_has(t, 0, 1, 0, 2) && route_has(t, 0, 1, 3, 2) && route_has(t, 0, 1, 2, 2));
    ck_assert(route_has(t, 0, 5, 2, 2) && route_has(t, 0, 5, 1, 3));
    for (uint64_t salt = 0; salt < 64; salt++) {
        size_t n = topo_route(t, 0, 2, salt * 0x9e3779b97f4a7c15u, links, NULL, 16);
        ck_assert_uint_eq(n, 4);
        for (size_t i = 0; i < n; i++)
            ck_assert_uint_ne(links[i], topo_link_out(t, 0, 1));
    }
    net_msg *m = th_at_low(h, 0, 0, 1, 1000);
    th_net_go(h);
    ck_delivered_at(m, swnet_zero_load_h_ps(h->n->state, 4, 1000));
    th_net_free(h);
    for (int r = 0; r < 4; r++) {
        const char *all[] = {"network.dims=4 4", "network.failed-links=S0-S1",
                             r & 1 ? "network.routing=adaptive" : "network.routing=dor",
                             r & 2 ? "network.router=input-queued" : NULL, NULL};
        net_params core = th_star(16, 10e9);
        h = th_net_try("torus", &core, all, NULL, 1, 256, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        net_msg *ms[256];
        for (uint32_t a = 0; a < 16; a++)
            for (uint32_t b = 0; b < 16; b++)
                ms[a * 16 + b] = a == b ? NULL : th_at_low(h, 0, a, b, 10000);
        th_net_go(h);
        for (int i = 0; i < 256; i++)
            if (ms[i])
                ck_assert_uint_eq(ms[i]->a, 1);
        th_net_free(h);
    }
    for (int r = 0; r < 2; r++) {
        const char *cut[] = {"network.dims=4 4", "network.failed-links=S0-S1 S0-S3",
                             r ? "network.routing=adaptive" : "network.routing=dor", NULL};
        h = param_net("torus", cut, err, sizeof err);
        ck_assert_ptr_null(h);
        ck_assert_msg(strstr(err, "24 pairs of hosts have no route on the torus around the failed links: H0->H1, "
                                  "H0->H2, H0->H3, ...") != NULL,
                      "%s", err);
    }
}
END_TEST

/* Dragonfly g = 5 groups of a = 4 routers, p = 1 host, h = 2 global links
 * (router r of group G is S(4G + r), host = router; ports: 0 host, 1..3
 * the group's other routers (router r' on 1 + r' - (r' > r)), 4 and 5
 * global). n = a h / (g - 1) = 2 links join each pair of groups: group
 * 0's slots s = 2r + j (router r, port 4 + j) lead to group 1 + s mod 4
 * with link number s / 4, so slot 0 (S0 port 4) and slot 4 (S2 port 4)
 * reach group 1, entering its slots 0 (S4) and 4 (S6).
 * Minimal routing, S0-S4 down: H0 -> H4 uses slice 0 mod 2 = 0, slot 0
 *   on its own router: S0 -> S4 directly, now down; the other slice (the
 *   other global link) is next: S0 -> S2 (port 1 + 2 - 1 = 2), S2 -> S6
 *   (port 4), S6 -> S4 (port 1 + 0 = 1). H1 -> H4 (slice 1: slot 4 on S2)
 *   is unchanged.
 * Minimal routing, S0-S1 down: H0 -> H1 and H1 -> H0 (the one local hop
 *   between them; a group has no other minimal path) are cut: 2 pairs.
 *   Pairs between groups whose minimal path crossed S0 - S1 take the
 *   other slice (e.g. H0 -> H12: slot (0, 3, 0) = 2 is on S1, slot 6 on
 *   S3), so they are not cut.
 * Valiant and UGAL, S0-S1 down: H0 -> H1 goes through another router of
 *   the group (S2 or S3); every pair is delivered (both router models). */
START_TEST(test_param_failed_dragonfly)
{
    char err[1024] = "";
    net_params core = th_star(20, 10e9);
    const char *one[] = {"network.groups=5", "network.routers-per-group=4", "network.hosts-per-router=1",
                         "network.global-links=2", "network.failed-links=S0-S4", NULL};
    th_net *h = th_net_try("dragonfly", &core, one, NULL, 1, 0, err, sizeof err);
    ck_assert_msg(h != NULL, "%s", err);
    const topo *t = h->n->ops->topology(h->n->state);
    uint64_t links[16];
    ck_assert_uint_eq(topo_route(t, 0, 4, 0, links, NULL, 16), 5);
    ck_assert(route_has(t, 0, 4, 0, 2) && route_has(t, 0, 4, 2, 4) && route_has(t, 0, 4, 6, 1));
    ck_assert_uint_eq(topo_route(t, 1, 4, 0, links, NULL, 16), 5);
    ck_assert(route_has(t, 1, 4, 1, 2) && route_has(t, 1, 4, 2, 4));
    th_net_free(h);
    const char *cut[] = {"network.groups=5", "network.routers-per-group=4", "network.hosts-per-router=1",
                         "network.global-links=2", "network.failed-links=S0-S1", NULL};
    h = th_net_try("dragonfly", &core, cut, NULL, 1, 0, err, sizeof err);
    ck_assert_ptr_null(h);
    ck_assert_msg(strstr(err, "2 pairs of hosts have no route on the dragonfly around the failed links: H0->H1, "
                              "H1->H0 (") != NULL,
                  "%s", err);
    for (int r = 0; r < 4; r++) {
        const char *sets[] = {"network.groups=5", "network.routers-per-group=4", "network.hosts-per-router=1",
                              "network.global-links=2", "network.failed-links=S0-S1",
                              r & 1 ? "network.routing=ugal" : "network.routing=valiant",
                              r & 2 ? "network.router=input-queued" : NULL, NULL};
        h = th_net_try("dragonfly", &core, sets, NULL, 1, 512, err, sizeof err);
        ck_assert_msg(h != NULL, "%s", err);
        t = h->n->ops->topology(h->n->state);
        ck_assert(!route_has(t, 0, 1, 0, 1) && !route_has(t, 1, 0, 1, 1));
        net_msg *ms[400];
        for (uint32_t a = 0; a < 20; a++)
            for (uint32_t b = 0; b < 20; b++)
                ms[a * 20 + b] = a == b ? NULL : th_at_low(h, 0, a, b, 10000);
        th_net_go(h);
        for (int i = 0; i < 400; i++)
            if (ms[i])
                ck_assert_uint_eq(ms[i]->a, 1);
        th_net_free(h);
    }
}
END_TEST

/* A count on a parametric fabric draws its links as the graph fabric draws
 * them (the same candidates in link order, the same shuffle): the 4-ary
 * 3-tree and its export fail the same links for every seed, and no route
 * of the 64 x 64 pairs crosses one. */
START_TEST(test_param_failed_drawn)
{
    topo_fattree_params fp = {.arity = 4, .levels = 3};
    topo base;
    char err[1024];
    ck_assert_int_eq(topo_fattree_init(&base, &fp, err, sizeof err), 0);
    snprintf(tmp_path, sizeof tmp_path, "/tmp/tasknet-check-graph-%ld.dot", base_pid);
    FILE *f = fopen(tmp_path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(topo_export_dot(&base, f, "4-ary 3-tree", NULL, err, sizeof err), 0);
    fclose(f);
    topo_free(&base);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        topo t, g;
        ck_assert_int_eq(topo_fattree_init(&base, &fp, err, sizeof err), 0);
        ck_assert_msg(topo_fail_init(&t, &base, "5", 1, seed, 1, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(build_failed(tmp_path, TOPO_GRAPH_UPDOWN, "5", 1, seed, &g, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(topo_failed_names(&t), topo_graph_failed(&g));
        for (uint32_t a = 0; a < 64; a++)
            for (uint32_t b = 0; b < 64; b++) {
                uint64_t links[16];
                size_t n = topo_route(&t, a, b, a * 64 + b, links, NULL, 16);
                for (size_t i = 0; i < n; i++) {
                    topo_end from, to;
                    topo_link_ends(&t, links[i], &from, &to);
                    if (from.kind != TOPO_SWITCH || to.kind != TOPO_SWITCH)
                        continue;
                    char l1[32], l2[32];
                    snprintf(l1, sizeof l1, "S%u-S%u", from.id, to.id);
                    snprintf(l2, sizeof l2, "S%u-S%u", to.id, from.id);
                    const char *nm = topo_failed_names(&t);
                    size_t ln = strlen(l1), l2n = strlen(l2);
                    for (const char *c = nm; *c;) {
                        size_t w = strcspn(c, " ");
                        ck_assert_msg(!(w == ln && strncmp(c, l1, w) == 0) && !(w == l2n && strncmp(c, l2, w) == 0),
                                      "%u -> %u crosses %s (failed: %s)", a, b, l1, nm);
                        c += w;
                        c += *c == ' ';
                    }
                }
            }
        topo_free(&t);
        topo_free(&g);
    }
}
END_TEST

/* Partly populated (networks/topo_sub.c): the k = 16 three-tier fat tree
 * (16 pods x 8 edges x 8 hosts = 1,024) with N = 1,000 nodes.
 * first: nodes on hosts 0..999: 125 full edges, pods 0..14 full (64 hosts)
 *   and pod 15 holding 5 edges (40 hosts). Ordered pairs, 1000 x 999 =
 *   999,000: same edge 125 x 8 x 7 = 7,000 (1 switch); same pod, other
 *   edge 15 x (64 x 63 - 8 x 8 x 7) + (40 x 39 - 5 x 8 x 7) = 15 x 3,584 +
 *   1,280 = 55,040 (3 switches); other pods 999,000 - 7,000 - 55,040 =
 *   936,960 (5). Summed zero load: (7,000 + 3 x 55,040 + 5 x 936,960)
 *   (link + switch) + 999,000 (ser + link) = 4,856,920 (link + switch) +
 *   999,000 (ser + link); mean 4.8618 switches. Links: 1,000 uplinks +
 *   320 switches x 16 ports - 24 ports of absent hosts = 6,096.
 * spread: node i on host floor(1024 i / 1000); the same sum is counted
 *   here from the hosts' edges (host / 8) and pods (host / 64) alone. */
static int64_t zl_sum(th_net *h, uint32_t N, int64_t bytes)
{
    int64_t sum = 0;
    for (uint32_t a = 0; a < N; a++)
        for (uint32_t b = 0; b < N; b++)
            if (a != b)
                sum += h->n->ops->zero_load_ps(h->n->state, a, b, bytes);
    return sum;
}

START_TEST(test_partly_populated)
{
    net_params core = th_star(1000, 10e9);
    int64_t ser = 800000; /* 1000 B at 10 Gb/s */
    const char *first[] = {"network.ports=16", "network.placement=first", NULL};
    th_net *h = th_net_new("fat-tree", &core, first, NULL, 1, 8);
    const topo *t = h->n->ops->topology(h->n->state);
    ck_assert_uint_eq(t->hosts, 1000);
    ck_assert_uint_eq(t->links, 6096);
    int64_t want = 4856920 * (int64_t)(TH_LINK_PS + TH_SW_PS) + 999000 * (ser + TH_LINK_PS);
    ck_assert_int_eq(zl_sum(h, 1000, 1000), want);
    /* simulated: 0 -> 999 (pod 15: 5 switches), 992 -> 999 (edge 124: 1) */
    net_msg *m = th_at_low(h, 0, 0, 999, 1000);
    net_msg *m2 = th_at_low(h, 0, 992, 999, 1000);
    th_net_go(h);
    ck_delivered_at(m, ser + 6 * TH_LINK_PS + 5 * TH_SW_PS);
    ck_delivered_at(m2, ser + 2 * TH_LINK_PS + TH_SW_PS);
    th_net_free(h);
    const char *spread[] = {"network.ports=16", "network.placement=spread", NULL};
    h = th_net_new("fat-tree", &core, spread, NULL, 1, 8);
    int64_t hops = 0;
    for (uint32_t a = 0; a < 1000; a++)
        for (uint32_t b = 0; b < 1000; b++) {
            uint32_t x = (uint32_t)((uint64_t)a * 1024 / 1000), y = (uint32_t)((uint64_t)b * 1024 / 1000);
            if (a != b)
                hops += x / 8 == y / 8 ? 1 : x / 64 == y / 64 ? 3 : 5;
        }
    ck_assert_int_eq(zl_sum(h, 1000, 1000), hops * (TH_LINK_PS + TH_SW_PS) + 999000 * (ser + TH_LINK_PS));
    /* 24 absent hosts spread: fewer same-edge pairs than first's 7,000 */
    ck_assert_int_gt(hops, 4856920);
    th_net_free(h);
    /* more nodes than hosts, and (placement full, the default) fewer, are refused */
    net_params big = th_star(1100, 10e9);
    char err[1024];
    ck_assert_ptr_null(th_net_try("fat-tree", &big, first, NULL, 1, 0, err, sizeof err));
    ck_assert_msg(strstr(err, "N = 1100, but the three-tier 16-port fat tree has 1024 hosts") != NULL, "%s", err);
    const char *full[] = {"network.ports=16", NULL};
    ck_assert_ptr_null(th_net_try("fat-tree", &core, full, NULL, 1, 0, err, sizeof err));
    /* a partly populated graph (its memory estimate once crashed on the
     * wrapper): 12 of fabric.dot's 16 hosts spread, node i on host
     * floor(16 i / 12): node 0 on H1 (L1), node 11 on host 14 = H15 (L4):
     * up-down over 3 switches, ser + 4 link + 3 switch */
    net_params c12 = th_star(12, 10e9);
    const char *gs[] = {"network.file=" FABRIC, "network.routing=up-down", "network.placement=spread", NULL};
    const net_ops *gops = net_find("graph");
    void *gp = th_net_params(gops, gs);
    ck_assert_double_gt(gops->mem_bytes(&c12, gp), 0);
    net_params_free(gops, gp);
    h = th_net_new("graph", &c12, gs, NULL, 1, 8);
    ck_assert_uint_eq(h->n->ops->topology(h->n->state)->hosts, 12);
    m = th_at_low(h, 0, 0, 11, 1000);
    th_net_go(h);
    ck_delivered_at(m, ser + 4 * TH_LINK_PS + 3 * TH_SW_PS);
    th_net_free(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("graph");
    tcase_add_test(tc, test_orcs8_congestion);
    tcase_add_test(tc, test_orcs8_routes);
    tcase_add_test(tc, test_cycle_reported);
    tcase_add_test(tc, test_pfc_graph);
    tcase_add_test(tc, test_pfc_graph_classes);
    tcase_add_test(tc, test_updown_acyclic);
    tcase_add_test(tc, test_file_cycle);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_explicit_ports);
    tcase_add_test(tc, test_zero_load);
    tcase_add_test(tc, test_link_rate_latency);
    tcase_add_test(tc, test_degraded_links);
    tcase_add_test(tc, test_export_import);
    tcase_add_test(tc, test_paths_vcstep);
    tcase_add_test(tc, test_hops_left);
    tcase_add_test(tc, test_partly_populated_names);
    tcase_add_test(tc, test_failed_count_cycle);
    tcase_add_test(tc, test_congestion_dot);
    tcase_add_test(tc, test_route_many);
    tcase_add_test(tc, test_graph_cache_rewrite);
    tcase_add_test(tc, test_graph_cache_two);
    tcase_add_test(tc, test_fail_at_mem);
    tcase_add_test(tc, test_cong_eval_many);
    tcase_add_test(tc, test_fattree3_zero_load);
    tcase_add_test(tc, test_fattree_sizes);
    tcase_add_test(tc, test_import_ib_2switch);
    tcase_add_test(tc, test_import_ib_fattree);
    tcase_add_test(tc, test_import_ib_errors);
    tcase_add_test(tc, test_import_ib_lmc);
    tcase_add_test(tc, test_failed_links_errors);
    tcase_add_test(tc, test_failed_file_paths);
    tcase_add_test(tc, test_failed_uplink_bisect);
    tcase_add_test(tc, test_failed_links_drawn);
    tcase_add_test(tc, test_param_failed_uplink_bisect);
    tcase_add_test(tc, test_param_failed_leafspine);
    tcase_add_test(tc, test_param_failed_errors);
    tcase_add_test(tc, test_param_failed_torus);
    tcase_add_test(tc, test_param_failed_dragonfly);
    tcase_add_test(tc, test_param_failed_drawn);
    tcase_add_test(tc, test_partly_populated);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    base_pid = (long)getpid();
    snprintf(tmp_path, sizeof tmp_path, "/tmp/tasknet-check-graph-%ld.dot", base_pid);
    int status = th_main(suite());
    unlink(tmp_path);
    for (int k = 0; k < 2; k++) {
        snprintf(ib_paths[k], sizeof ib_paths[k], "/tmp/tasknet-check-graph-%ld.ib%d", base_pid, k);
        unlink(ib_paths[k]);
    }
    return status;
}
