/* Job trees (MODEL.md section 2, paper 3.2 and appendix): the deterministic
 * z generator against its closed forms worked out by hand, the
 * preferential-attachment generator against exact probabilities and
 * expectations derived below from its attachment rule, and task sampling.
 *
 * Conventions of jobs/tree.h used throughout: vertex 0 is the root, the
 * root's level is 1 (so the depth D counts the vertices on the longest
 * root-to-leaf path), a leaf is a vertex without children, a delegating
 * vertex one with at least 2 children (MODEL.md section 4: a task with one
 * child runs it locally and sends no allocation request).
 *
 * Statistical assertions use fixed seeds, so they are reproducible; their
 * tolerance is 4 standard errors of the sample, which a correct generator
 * exceeds with probability about 6e-5 per assertion. */
#include <check.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "rng.h"
#include "task.h"
#include "tree.h"
#include "harness.h"


/* ---- helpers ---- */

/* Every invariant of the storage, checked from the arrays alone: a rooted
 * tree on t->n vertices with n-1 edges, child lists consistent with parent
 * links, levels = parent level + 1, every vertex reachable from the root,
 * and children listed in increasing vertex order (both generators number
 * vertices in creation order and append children, so insertion order is
 * increasing order). */
static void check_structure(const tree *t)
{
    uint32_t n = t->n;
    ck_assert_uint_ge(n, 1);
    ck_assert_uint_eq(t->parent[0], TREE_NONE);
    ck_assert_uint_eq(t->level[0], 1);
    ck_assert_uint_eq(t->child_off[0], 0);
    /* n-1 edges: the child array holds exactly n-1 entries */
    ck_assert_uint_eq(t->child_off[n], n - 1);
    uint32_t *seen = calloc(n, sizeof *seen);
    for (uint32_t v = 0; v < n; v++) {
        ck_assert_uint_le(t->child_off[v], t->child_off[v + 1]);
        for (uint32_t i = 0; i < tree_nchildren(t, v); i++) {
            uint32_t c = tree_child(t, v, i);
            ck_assert_uint_lt(c, n);
            ck_assert_uint_ne(c, 0);
            ck_assert_uint_eq(t->parent[c], v);
            ck_assert_uint_eq(t->level[c], t->level[v] + 1);
            if (i > 0)
                ck_assert_uint_gt(c, tree_child(t, v, i - 1));
            seen[c]++;
        }
    }
    /* every non-root vertex is the child of exactly one vertex */
    for (uint32_t v = 1; v < n; v++) {
        ck_assert_uint_eq(seen[v], 1);
        ck_assert_uint_lt(t->parent[v], n);
    }
    /* reachability: a breadth-first walk from the root visits all n */
    uint32_t *queue = malloc(n * sizeof *queue);
    uint32_t head = 0, tail = 0;
    memset(seen, 0, n * sizeof *seen);
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t i = 0; i < tree_nchildren(t, v); i++) {
            uint32_t c = tree_child(t, v, i);
            ck_assert_uint_eq(seen[c], 0);
            seen[c] = 1;
            queue[tail++] = c;
        }
    }
    ck_assert_uint_eq(tail, n);
    free(queue);
    free(seen);
}

/* Undirected degree: children plus the edge to the parent. */
static uint32_t degree(const tree *t, uint32_t v) { return tree_nchildren(t, v) + (v != 0); }

static uint32_t max_degree(const tree *t)
{
    uint32_t m = 0;
    for (uint32_t v = 0; v < t->n; v++)
        if (degree(t, v) > m)
            m = degree(t, v);
    return m;
}

static void parse(dist *d, const char *text, unit_kind u)
{
    char err[256];
    int rc = dist_parse(text, u, NULL, d, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: %s", text, err);
}

/* ---- deterministic generator ---- */

typedef struct det_case {
    uint32_t z[4];
    uint32_t zlen;
    uint32_t n, leaves, delegating, depth;
} det_case;

/* Worked by hand: n = 1 + z1 + z1 z2 + ..., L = z1 z2 ..., d = sum over the
 * levels i-1 whose z_i >= 2 of that level's width, D = zlen + 1 (levels). */
static const det_case det_cases[] = {
    /* fig6 / MODEL.md worked example: 1 + 4 + 12 = 17, L = 12, d = root + 4
     * level-1 vertices (3 children each) = 5, D = 3 (paper section 4.1:
     * "n=17, L=12, d=5", "depth of 3") */
    {{4, 3}, 2, 17, 12, 5, 3},
    /* [2]: 1 + 2 = 3, L = 2, d = 1 (root), D = 2 */
    {{2}, 1, 3, 2, 1, 2},
    /* [2,2,2]: 1 + 2 + 4 + 8 = 15, L = 8, d = 1 + 2 + 4 = 7, D = 4 */
    {{2, 2, 2}, 3, 15, 8, 7, 4},
    /* [1,5]: 1 + 1 + 5 = 7, L = 5; the root has one child, runs it locally
     * without a request, so only the level-2 vertex delegates: d = 1 (not
     * n - L = 2); D = 3 */
    {{1, 5}, 2, 7, 5, 1, 3},
    /* [3,1,2]: 1 + 3 + 3 + 6 = 13, L = 6, d = root (3 children) + 0 (level-2
     * vertices have 1 child) + 3 (level-3 vertices have 2) = 4, D = 4 */
    {{3, 1, 2}, 3, 13, 6, 4, 4},
    /* paper Fig. 4a, z = [2,6]: 1 + 2 + 12 = 15; the paper's appendix gives
     * L = 12 and d = 3 (root + the two level-1 vertices) */
    {{2, 6}, 2, 15, 12, 3, 3},
    /* z empty: the root alone, a leaf; nothing delegates; D = 1 */
    {{0}, 0, 1, 1, 0, 1},
    /* [1,1,1]: a path of 4 vertices, one leaf, no delegation, D = 4 */
    {{1, 1, 1}, 3, 4, 1, 0, 4},
};

START_TEST(test_det_closed_forms)
{
    tree t;
    tree_init(&t);
    for (size_t k = 0; k < sizeof det_cases / sizeof det_cases[0]; k++) {
        const det_case *c = &det_cases[k];
        tree_shape cf, s;
        tree_shape_closed_form(c->z, c->zlen, &cf);
        ck_assert_uint_eq(cf.n, c->n);
        ck_assert_uint_eq(cf.leaves, c->leaves);
        ck_assert_uint_eq(cf.delegating, c->delegating);
        ck_assert_uint_eq(cf.depth, c->depth);
        /* the generated tree, counted vertex by vertex, agrees */
        tree_gen_deterministic(&t, c->z, c->zlen);
        check_structure(&t);
        tree_shape_of(&t, &s);
        ck_assert_uint_eq(s.n, c->n);
        ck_assert_uint_eq(s.leaves, c->leaves);
        ck_assert_uint_eq(s.delegating, c->delegating);
        ck_assert_uint_eq(s.depth, c->depth);
        /* when every z_i >= 2, every non-leaf vertex has >= 2 children, so
         * the delegating vertices are exactly the non-leaves: d = n - L */
        int all_ge2 = 1;
        for (uint32_t i = 0; i < c->zlen; i++)
            all_ge2 &= c->z[i] >= 2;
        if (all_ge2)
            ck_assert_uint_eq(s.delegating, s.n - s.leaves);
    }
    tree_destroy(&t);
}
END_TEST

START_TEST(test_det_structure)
{
    /* Per level: level i holds prod_{m<i} z_m vertices, each vertex of level
     * i <= zlen has exactly z_i children, leaves are exactly the vertices of
     * level zlen+1; breadth-first numbering means levels never decrease
     * with the vertex id and parents precede children. */
    static const uint32_t zs[][4] = {{4, 3}, {2, 2, 2}, {1, 5}, {3, 1, 2}, {5, 1, 1, 4}};
    static const uint32_t zl[] = {2, 3, 2, 3, 4};
    tree t;
    tree_init(&t);
    for (size_t k = 0; k < sizeof zl / sizeof zl[0]; k++) {
        const uint32_t *z = zs[k];
        tree_gen_deterministic(&t, z, zl[k]);
        check_structure(&t);
        uint32_t width[6] = {0};
        for (uint32_t v = 0; v < t.n; v++) {
            uint32_t lv = t.level[v];
            ck_assert_uint_ge(lv, 1);
            ck_assert_uint_le(lv, zl[k] + 1);
            width[lv]++;
            uint32_t expect_children = lv <= zl[k] ? z[lv - 1] : 0;
            ck_assert_uint_eq(tree_nchildren(&t, v), expect_children);
            if (v > 0) {
                ck_assert_uint_ge(lv, t.level[v - 1]);
                ck_assert_uint_lt(t.parent[v], v);
            }
        }
        uint32_t w = 1;
        for (uint32_t lv = 1; lv <= zl[k] + 1; lv++) {
            ck_assert_uint_eq(width[lv], w);
            if (lv <= zl[k])
                w *= z[lv - 1];
        }
    }
    tree_destroy(&t);
}
END_TEST

START_TEST(test_det_reuse)
{
    /* Storage is reused across jobs and never shrinks: a small tree built
     * after a large one must not see the large one's links. [10,10] has
     * 1 + 10 + 100 = 111 vertices; then [2] has 3. */
    tree t;
    tree_init(&t);
    const uint32_t big[] = {10, 10}, small[] = {2};
    tree_gen_deterministic(&t, big, 2);
    check_structure(&t);
    ck_assert_uint_eq(t.n, 111);
    uint32_t cap = t.cap;
    tree_gen_deterministic(&t, small, 1);
    check_structure(&t);
    ck_assert_uint_eq(t.n, 3);
    ck_assert_uint_eq(t.cap, cap);
    ck_assert_uint_eq(tree_nchildren(&t, 0), 2);
    ck_assert_uint_eq(tree_nchildren(&t, 1), 0);
    ck_assert_uint_eq(tree_nchildren(&t, 2), 0);
    tree_destroy(&t);
}
END_TEST

/* ---- preferential attachment ---- */

START_TEST(test_pa_structure)
{
    /* Many seeds, sizes and shapes: always a valid tree on exactly n
     * vertices, a vertex's parent created before it (each new vertex
     * attaches to an existing one), and tree_shape_of consistent with a
     * direct count. */
    static const double shapes[] = {-1, 0, 0.5, 1, 2, 4};
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 17, 64, 65, 100, 333};
    tree t;
    tree_init(&t);
    gsl_rng *r = rng_stream_new(7, 0, "check-tree");
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        for (size_t ni = 0; ni < sizeof sizes / sizeof sizes[0]; ni++) {
            for (int rep = 0; rep < 20; rep++) {
                uint32_t n = sizes[ni];
                tree_gen_preferential(&t, n, shapes[si], r);
                ck_assert_uint_eq(t.n, n);
                check_structure(&t);
                uint32_t leaves = 0, dlg = 0, depth = 0;
                for (uint32_t v = 1; v < n; v++)
                    ck_assert_uint_lt(t.parent[v], v);
                for (uint32_t v = 0; v < n; v++) {
                    leaves += tree_nchildren(&t, v) == 0;
                    dlg += tree_nchildren(&t, v) >= 2;
                    depth = t.level[v] > depth ? t.level[v] : depth;
                }
                tree_shape s;
                tree_shape_of(&t, &s);
                ck_assert_uint_eq(s.n, n);
                ck_assert_uint_eq(s.leaves, leaves);
                ck_assert_uint_eq(s.delegating, dlg);
                ck_assert_uint_eq(s.depth, depth);
            }
        }
    }
    gsl_rng_free(r);
    tree_destroy(&t);
}
END_TEST

START_TEST(test_pa_small_n)
{
    /* n = 1: the root alone (a leaf, depth 1, nothing delegates).
     * n = 2: vertex 1 must attach to the root (the only vertex): L = 1,
     * d = 0, D = 2. Whatever s. */
    static const double shapes[] = {-1, 0, 1, 4};
    tree t;
    tree_init(&t);
    gsl_rng *r = rng_stream_new(1, 0, "check-tree");
    for (size_t k = 0; k < 4; k++) {
        tree_shape s;
        tree_gen_preferential(&t, 1, shapes[k], r);
        check_structure(&t);
        tree_shape_of(&t, &s);
        ck_assert_uint_eq(s.n, 1);
        ck_assert_uint_eq(s.leaves, 1);
        ck_assert_uint_eq(s.delegating, 0);
        ck_assert_uint_eq(s.depth, 1);
        ck_assert_uint_eq(tree_nchildren(&t, 0), 0);

        tree_gen_preferential(&t, 2, shapes[k], r);
        check_structure(&t);
        tree_shape_of(&t, &s);
        ck_assert_uint_eq(t.parent[1], 0);
        ck_assert_uint_eq(s.n, 2);
        ck_assert_uint_eq(s.leaves, 1);
        ck_assert_uint_eq(s.delegating, 0);
        ck_assert_uint_eq(s.depth, 2);
    }
    gsl_rng_free(r);
    tree_destroy(&t);
}
END_TEST

START_TEST(test_pa_determinism)
{
    /* Same stream seed -> the identical tree, whether the storage is fresh
     * or reused after a bigger tree. Another seed -> another tree, for
     * s <= 1: two independent trees agree at a step with probability
     * sum_u p_u^2 <= max_u p_u <= 1/2 (s = 1: 2 deg u <= 2(m-1) out of a
     * total 4(m-1); s = 0: 1/m; s = -1: a vertex weighs at most 1/2 and the
     * >= 2 degree-1 vertices already give a total >= 1), so 200-vertex
     * trees coincide with probability <= 2^-198. Not for s = 4: both trees
     * are then often the same star (test_pa_star_s4). */
    tree a, b, c;
    tree_init(&a);
    tree_init(&b);
    tree_init(&c);
    static const double shapes[] = {-1, 0, 1, 4};
    for (size_t k = 0; k < 4; k++) {
        gsl_rng *r1 = rng_stream_new(11, 0, "check-tree");
        gsl_rng *r2 = rng_stream_new(11, 0, "check-tree");
        gsl_rng *r3 = rng_stream_new(12, 0, "check-tree");
        tree_gen_preferential(&a, 200, shapes[k], r1);
        tree_gen_preferential(&b, 500, shapes[k], r3); /* dirty b's storage first */
        tree_gen_preferential(&b, 200, shapes[k], r2);
        tree_gen_preferential(&c, 200, shapes[k], r3);
        ck_assert_uint_eq(a.n, b.n);
        ck_assert(memcmp(a.parent, b.parent, 200 * sizeof *a.parent) == 0);
        ck_assert(memcmp(a.child_off, b.child_off, 201 * sizeof *a.child_off) == 0);
        ck_assert(memcmp(a.child, b.child, 199 * sizeof *a.child) == 0);
        ck_assert(memcmp(a.level, b.level, 200 * sizeof *a.level) == 0);
        if (shapes[k] <= 1)
            ck_assert(memcmp(a.parent, c.parent, 200 * sizeof *a.parent) != 0);
        gsl_rng_free(r1);
        gsl_rng_free(r2);
        gsl_rng_free(r3);
    }
    tree_destroy(&a);
    tree_destroy(&b);
    tree_destroy(&c);
}
END_TEST

/* A generator that replays a script of uniforms (for draws worked out by
 * hand), as a GSL type so the tree code draws through gsl_rng_uniform. */
typedef struct script_state {
    const double *u;
    size_t n, next;
} script_state;
static void script_set(void *st, unsigned long seed) { (void)st, (void)seed; }
static unsigned long script_get(void *st) { (void)st; return 0; }
static double script_get_double(void *vst)
{
    script_state *st = vst;
    ck_assert_uint_lt(st->next, st->n);
    return st->u[st->next++];
}
static const gsl_rng_type script_type = {"script", 0xffffffffUL, 0, sizeof(script_state), script_set, script_get,
                                         script_get_double};

/* The attachment rule at its boundaries, by hand. s = 1: w = 2 deg.
 *   v=1: the root, no draw.                  w = (2, 2), total 4
 *   v=2: U=0.5  -> 2.0: prefix(0) = 2 is not > 2, prefix(1) = 4 -> u = 1
 *                                             w = (2, 4, 2), total 8
 *   v=3: U=0.25 -> 2.0 again -> u = 1        w = (2, 6, 2, 2), total 12
 *   v=4: U=0    -> 0: prefix(0) = 2 > 0 -> u = 0   w = (4, 6, 2, 2, 2), 16
 *   v=5: U=0.999 -> 15.984: prefixes 4, 10, 12, 14, 16 -> u = 4
 * s = 0: w = 1 once attached.
 *   v=2: U=0.5 -> 1.0 of 2: prefix(0) = 1 is not > 1 -> u = 1
 *   v=3: U=0.999 -> 2.997 of 3 -> u = 2;  v=4: U=0.3 -> 1.2 of 4 -> u = 1
 * U = 1 (beyond GSL's [0,1), standing for U * total rounded up to total)
 * attaches to the newest vertex, s = 1 and s = 2 (w = 4 deg^2) alike:
 *   v=2: target = total -> u = 1;  v=3: again -> u = 2
 * Every search (the s = 1 list, the integer Fenwick tree for s = 2, the
 * floating-point one) must agree with the hand. */
START_TEST(test_pa_boundaries_by_hand)
{
    static const double u1[] = {0.5, 0.25, 0.0, 0.999};
    static const uint32_t p1[] = {TREE_NONE, 0, 1, 1, 0, 4};
    static const double u0[] = {0.5, 0.999, 0.3};
    static const uint32_t p0[] = {TREE_NONE, 0, 1, 2, 1};
    for (int path = 0; path < 2; path++) {
        tree t;
        tree_init(&t);
        gsl_rng *r = gsl_rng_alloc(&script_type);
        script_state *st = r->state;
        *st = (script_state){.u = u1, .n = 4};
        (path ? tree_gen_preferential_float : tree_gen_preferential)(&t, 6, 1.0, r);
        ck_assert_uint_eq(st->next, 4);
        for (int v = 0; v < 6; v++)
            ck_assert_uint_eq(t.parent[v], p1[v]);
        *st = (script_state){.u = u0, .n = 3};
        (path ? tree_gen_preferential_float : tree_gen_preferential)(&t, 5, 0.0, r);
        for (int v = 0; v < 5; v++)
            ck_assert_uint_eq(t.parent[v], p0[v]);
        static const double top[] = {1.0, 1.0};
        static const uint32_t ptop[] = {TREE_NONE, 0, 1, 2};
        for (double shape = 1; shape <= 2; shape++) {
            *st = (script_state){.u = top, .n = 2};
            (path ? tree_gen_preferential_float : tree_gen_preferential)(&t, 4, shape, r);
            for (int v = 0; v < 4; v++)
                ck_assert_uint_eq(t.parent[v], ptop[v]);
        }
        gsl_rng_free(r);
        tree_destroy(&t);
    }
}
END_TEST

/* The s = 1 list (up to 1024 vertices) and the integer search (small
 * integer weights: s = 0, 1, 2, 3) give the very trees of the
 * floating-point search for the same stream, at sizes around powers of
 * two; shapes whose weights are not integers, or too big
 * for 31 bits (s = 4 at n = 5000), take the floating-point search in both
 * calls (s = 3 from n = 175, s = 2 from n = 1000 too). The integer
 * path never touches the floating-point scratch. */
START_TEST(test_pa_int_equals_float)
{
    static const double shapes[] = {0, 1, 2, 3, 4, 0.5, -1, 1.5};
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 63, 64, 65, 175, 1000, 1024, 1025, 5000};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                uint32_t n = sizes[i];
                tree a, b;
                tree_init(&a);
                tree_init(&b);
                gsl_rng *r1 = rng_stream_new(seed, k, "check-tree-int");
                gsl_rng *r2 = rng_stream_new(seed, k, "check-tree-int");
                tree_gen_preferential(&a, n, shapes[k], r1);
                tree_gen_preferential_float(&b, n, shapes[k], r2);
                ck_assert(memcmp(a.parent, b.parent, n * sizeof *a.parent) == 0);
                ck_assert(memcmp(a.child_off, b.child_off, (n + 1) * sizeof *a.child_off) == 0);
                if (n > 1)
                    ck_assert(memcmp(a.child, b.child, (n - 1) * sizeof *a.child) == 0);
                ck_assert(memcmp(a.level, b.level, n * sizeof *a.level) == 0);
                ck_assert(gsl_rng_get(r1) == gsl_rng_get(r2)); /* as many draws */
                /* integer weights up to w(n - 1) = (2(n - 1))^s, n of them within 31 bits */
                double wmax = shapes[k] == 0 ? 1 : pow(2.0 * (n - 1), shapes[k]);
                int integral = shapes[k] >= 0 && shapes[k] == floor(shapes[k]) && wmax * n < 2147483648.0;
                if (n > 2)
                    ck_assert((a.scratch == NULL) == integral);
                gsl_rng_free(r1);
                gsl_rng_free(r2);
                tree_destroy(&a);
                tree_destroy(&b);
            }
}
END_TEST

START_TEST(test_pa_small_probabilities)
{
    /* Exact small-tree probabilities from w(u) = (2 deg u)^s.
     * n = 3: vertices 0 and 1 both have degree 1, so vertex 2 attaches to
     * the root with probability 1/2 for every s.
     * n = 4: every 3-vertex tree is a path (a star of centre degree 2); the
     * centre weighs 4^s, the two ends 2^s each, so the 4-vertex tree is a
     * star (max degree 3) with probability 4^s / (4^s + 2 2^s) =
     * 2^s / (2^s + 2): s=-1 -> 1/5, s=0 -> 1/3, s=1 -> 1/2, s=4 -> 8/9.
     * 20000 trees each; binomial standard error sqrt(p(1-p)/20000). */
    static const double shapes[] = {-1, 0, 1, 4};
    const int trials = 20000;
    tree t;
    tree_init(&t);
    gsl_rng *r = rng_stream_new(3, 0, "check-tree");
    for (size_t k = 0; k < 4; k++) {
        double s = shapes[k];
        int to_root = 0, star = 0;
        for (int i = 0; i < trials; i++) {
            tree_gen_preferential(&t, 3, s, r);
            to_root += t.parent[2] == 0;
            tree_gen_preferential(&t, 4, s, r);
            star += max_degree(&t) == 3;
        }
        double se_half = sqrt(0.25 / trials);
        CLOSE((double)to_root / trials, 0.5, 4 * se_half);
        double p = pow(2, s) / (pow(2, s) + 2);
        CLOSE((double)star / trials, p, 4 * sqrt(p * (1 - p) / trials));
    }
    gsl_rng_free(r);
    tree_destroy(&t);
}
END_TEST

/* E[L_n] for s = 1, derived from the attachment rule. A tree of m >= 2
 * vertices has m-1 edges, so the weights 2 deg(u) sum to 4(m-1); a leaf
 * (a non-root vertex of degree 1; the root has a child once m >= 2) weighs
 * 2. Attaching to a leaf keeps the leaf count, anywhere else adds one:
 *   E[L_{m+1}] = E[L_m] (1 - 1/(2(m-1))) + 1,  L_2 = 1.
 * Its solution is 2(m-1)/3 + h_m with h_{m+1} = h_m (2m-3)/(2m-2),
 * h_2 = 1 - 2/3 = 1/3, i.e. h_n = (1/3) prod_{k=1}^{n-2} (2k-1)/(2k)
 * (~ 1/(3 sqrt(pi n)): the leaf fraction tends to 2/3). Check: n = 4 gives
 * 2 + (1/3)(1/2)(3/4) = 2.125 = (1.5)(3/4) + 1 from the recurrence. */
static double leaves_mean_s1(uint32_t n)
{
    if (n < 2)
        return 1;
    double h = 1.0 / 3.0;
    for (uint32_t k = 1; k + 2 <= n; k++)
        h *= (2.0 * k - 1) / (2.0 * k);
    return 2.0 * (n - 1) / 3.0 + h;
}

/* Mean and standard error of the leaf count over `trees` trees. */
static void leaves_sample(uint32_t n, double s, int trees, uint64_t seed, double *mean, double *se)
{
    tree t;
    tree_init(&t);
    gsl_rng *r = rng_stream_new(seed, 0, "check-tree");
    double sum = 0, sum2 = 0;
    for (int i = 0; i < trees; i++) {
        tree_shape sh;
        tree_gen_preferential(&t, n, s, r);
        tree_shape_of(&t, &sh);
        sum += sh.leaves;
        sum2 += (double)sh.leaves * sh.leaves;
    }
    *mean = sum / trees;
    double var = (sum2 - sum * sum / trees) / (trees - 1);
    *se = sqrt(var / trees);
    gsl_rng_free(r);
    tree_destroy(&t);
}

START_TEST(test_pa_leaves_s0)
{
    /* s = 0: every vertex weighs 1 (uniform attachment, a random recursive
     * tree). Attaching to one of the L_m leaves among m vertices keeps L,
     * else L grows by one: E[L_{m+1}] = E[L_m](1 - 1/m) + 1 with L_2 = 1,
     * whose solution is exactly E[L_n] = n/2 (induction: n/2 + 1 - 1/2).
     * Leaf fraction 1/2 for every n >= 2. */
    double mean, se;
    leaves_sample(1000, 0, 2000, 21, &mean, &se);
    ck_assert(se > 0 && se < 1); /* the spread of L is ~sqrt(n/12) ~ 9, /sqrt(2000) */
    CLOSE(mean, 500.0, 4 * se);
    CLOSE(mean / 1000.0, 0.5, 4 * se / 1000.0 + 1e-12);
    /* small n, where the exact n/2 differs from any asymptotic value */
    leaves_sample(5, 0, 40000, 22, &mean, &se);
    CLOSE(mean, 2.5, 4 * se);
}
END_TEST

START_TEST(test_pa_leaves_s1)
{
    /* s = 1: E[L_1000] = 666 + 0.0060 (leaves_mean_s1): leaf fraction
     * 0.666006 -> 2/3. E[L_5] = 8/3 + (1/3)(1/2)(3/4)(5/6) = 2.7708. */
    double mean, se;
    CLOSE(leaves_mean_s1(4), 2.125, 1e-12);
    leaves_sample(1000, 1, 2000, 31, &mean, &se);
    ck_assert(se > 0 && se < 1);
    CLOSE(mean, leaves_mean_s1(1000), 4 * se);
    CLOSE(mean / 1000.0, 2.0 / 3.0, 4 * se / 1000.0 + 1e-5);
    leaves_sample(5, 1, 40000, 32, &mean, &se);
    CLOSE(mean, leaves_mean_s1(5), 4 * se);
    CLOSE(leaves_mean_s1(5), 2.7708333333333333, 1e-12);
}
END_TEST

START_TEST(test_pa_star_s4)
{
    /* s = 4, super-linear: a star whose centre has degree k >= 2 (k leaves)
     * weighs (2k)^4 at the centre and 2^4 per leaf, so the next vertex joins
     * the centre with probability 16k^4 / (16k^4 + 16k) = k^3 / (k^3 + 1).
     * Every 3-vertex tree is a star with k = 2, so
     *   P(n-vertex tree is a star) = prod_{k=2}^{n-2} k^3 / (k^3 + 1),
     * which decreases to 1/(cosh(pi sqrt3 / 2)/(2 pi)) = 0.8237 and is
     * 0.82367 at n = 200: large s gives star-like trees. A star has n-1 or
     * n-2 leaves (centre at the root or at vertex 1), so the mean leaf
     * fraction is at least P(star) (n-2)/n. */
    const uint32_t n = 200;
    const int trees = 4000;
    double p = 1;
    for (uint32_t k = 2; k <= n - 2; k++)
        p *= (double)k * k * k / ((double)k * k * k + 1);
    CLOSE(p, 0.8236692970906176, 1e-9);
    tree t;
    tree_init(&t);
    gsl_rng *r = rng_stream_new(41, 0, "check-tree");
    int star = 0;
    double frac = 0;
    for (int i = 0; i < trees; i++) {
        tree_shape sh;
        tree_gen_preferential(&t, n, 4, r);
        tree_shape_of(&t, &sh);
        star += max_degree(&t) == n - 1;
        frac += (double)sh.leaves / n;
    }
    double se = sqrt(p * (1 - p) / trees);
    CLOSE((double)star / trees, p, 4 * se);
    ck_assert_msg(frac / trees >= (p - 4 * se) * (n - 2) / n, "leaf fraction %g", frac / trees);
    gsl_rng_free(r);
    tree_destroy(&t);
}
END_TEST

START_TEST(test_generate_spec)
{
    /* tree_generate: a deterministic spec is the z tree; a preferential spec
     * samples n from its distribution, rounded, at least 1.
     * uniform-int(25,175): n in [25,175], mean 100, variance
     * (151^2 - 1)/12 = 1900 -> standard error sqrt(1900/4000) = 0.69. */
    tree_spec spec;
    memset(&spec, 0, sizeof spec);
    tree t;
    tree_init(&t);
    gsl_rng *r = rng_stream_new(5, 0, "check-tree");

    spec.gen = TREE_DETERMINISTIC;
    spec.z[0] = 4;
    spec.z[1] = 3;
    spec.zlen = 2;
    tree_generate(&t, &spec, r);
    ck_assert_uint_eq(t.n, 17);
    check_structure(&t);

    spec.gen = TREE_PREFERENTIAL;
    spec.shape = 1;
    parse(&spec.vertices, "uniform-int(25,175)", UNIT_NONE);
    const int trees = 4000;
    double sum = 0;
    for (int i = 0; i < trees; i++) {
        tree_generate(&t, &spec, r);
        ck_assert_uint_ge(t.n, 25);
        ck_assert_uint_le(t.n, 175);
        sum += t.n;
    }
    check_structure(&t);
    CLOSE(sum / trees, 100.0, 4 * sqrt(1900.0 / trees));
    tree_spec_free(&spec);

    /* a constant 0.4 rounds to 0, clamped to the root alone */
    dist_const(&spec.vertices, UNIT_NONE, 0.4);
    tree_generate(&t, &spec, r);
    ck_assert_uint_eq(t.n, 1);
    tree_spec_free(&spec);
    dist_const(&spec.vertices, UNIT_NONE, 6.6); /* rounds to 7 */
    tree_generate(&t, &spec, r);
    ck_assert_uint_eq(t.n, 7);
    check_structure(&t);
    tree_spec_free(&spec);

    gsl_rng_free(r);
    tree_destroy(&t);
}
END_TEST

/* ---- task sampling ---- */

START_TEST(test_tasks_constant)
{
    /* Constant specs: every vertex gets exactly the value, times converted
     * to integer picoseconds: 10 us = 10 000 000 ps, 3.5 us = 3 500 000 ps;
     * sizes in bytes: 20 kB = 20000 B (kB = 1000 B), 40 kB = 40000 B. */
    task_spec ts;
    parse(&ts.init_time, "10us", UNIT_TIME);
    parse(&ts.aggregation_time, "3.5us", UNIT_TIME);
    parse(&ts.send_size, "20kB", UNIT_SIZE);
    parse(&ts.result_size, "40kB", UNIT_SIZE);
    tree t;
    tree_init(&t);
    const uint32_t z[] = {4, 3};
    tree_gen_deterministic(&t, z, 2);
    gsl_rng *r = rng_stream_new(9, 0, "check-tree");
    tree_sample_tasks(&t, &ts, r);
    for (uint32_t v = 0; v < t.n; v++) {
        ck_assert_int_eq(t.t_init_ps[v], 10000000);
        ck_assert_int_eq(t.t_agg_ps[v], 3500000);
        ck_assert_uint_eq(t.send_bytes[v], 20000);
        ck_assert_uint_eq(t.result_bytes[v], 40000);
    }
    gsl_rng_free(r);
    tree_destroy(&t);
    task_spec_free(&ts);
}
END_TEST

START_TEST(test_tasks_uniform)
{
    /* fig9's task values: times uniform(2us,100us), sizes uniform(2kB,128kB).
     * Bounds: times in [2e6, 1e8] ps, sizes in [2000, 128000] B.
     * Means: (2+100)/2 = 51 us and (2+128)/2 = 65 kB; standard deviation of
     * a uniform on [a,b] is (b-a)/sqrt(12): 98 us/sqrt12 = 28.29 us and
     * 126 kB/sqrt12 = 36.37 kB. [10,10,10] has 1111 vertices; 20 draws give
     * 22220 values per variable. */
    task_spec ts;
    parse(&ts.init_time, "uniform(2us,100us)", UNIT_TIME);
    parse(&ts.aggregation_time, "uniform(2us,100us)", UNIT_TIME);
    parse(&ts.send_size, "uniform(2kB,128kB)", UNIT_SIZE);
    parse(&ts.result_size, "uniform(2kB,128kB)", UNIT_SIZE);
    tree t;
    tree_init(&t);
    const uint32_t z[] = {10, 10, 10};
    tree_gen_deterministic(&t, z, 3);
    ck_assert_uint_eq(t.n, 1111);
    gsl_rng *r = rng_stream_new(13, 0, "check-tree");
    double si = 0, sa = 0, ss = 0, sr = 0;
    const int reps = 20;
    for (int k = 0; k < reps; k++) {
        tree_sample_tasks(&t, &ts, r);
        for (uint32_t v = 0; v < t.n; v++) {
            ck_assert_int_ge(t.t_init_ps[v], 2000000);
            ck_assert_int_le(t.t_init_ps[v], 100000000);
            ck_assert_int_ge(t.t_agg_ps[v], 2000000);
            ck_assert_int_le(t.t_agg_ps[v], 100000000);
            ck_assert_uint_ge(t.send_bytes[v], 2000);
            ck_assert_uint_le(t.send_bytes[v], 128000);
            ck_assert_uint_ge(t.result_bytes[v], 2000);
            ck_assert_uint_le(t.result_bytes[v], 128000);
            si += t.t_init_ps[v] * 1e-12;
            sa += t.t_agg_ps[v] * 1e-12;
            ss += t.send_bytes[v];
            sr += t.result_bytes[v];
        }
    }
    double cnt = (double)reps * t.n;
    double se_t = 98e-6 / sqrt(12.0) / sqrt(cnt), se_s = 126e3 / sqrt(12.0) / sqrt(cnt);
    CLOSE(si / cnt, 51e-6, 4 * se_t);
    CLOSE(sa / cnt, 51e-6, 4 * se_t);
    CLOSE(ss / cnt, 65e3, 4 * se_s);
    CLOSE(sr / cnt, 65e3, 4 * se_s);

    /* The documented draw order (vertex by vertex: t_i, t_a, s_s, s_r)
     * matters for common random numbers: replay it from a twin stream. */
    gsl_rng *a = rng_stream_new(17, 0, "check-tree"), *b = rng_stream_new(17, 0, "check-tree");
    tree_sample_tasks(&t, &ts, a);
    for (uint32_t v = 0; v < t.n; v++) {
        double ti = dist_sample(&ts.init_time, b), ta = dist_sample(&ts.aggregation_time, b);
        double s1 = dist_sample(&ts.send_size, b), s2 = dist_sample(&ts.result_size, b);
        ck_assert_int_eq(t.t_init_ps[v], llround(ti * 1e12));
        ck_assert_int_eq(t.t_agg_ps[v], llround(ta * 1e12));
        ck_assert_uint_eq(t.send_bytes[v], (uint64_t)llround(s1));
        ck_assert_uint_eq(t.result_bytes[v], (uint64_t)llround(s2));
    }
    gsl_rng_free(a);
    gsl_rng_free(b);
    gsl_rng_free(r);
    tree_destroy(&t);
    task_spec_free(&ts);
}
END_TEST

static Suite *tree_suite(void)
{
    Suite *s = suite_create("tree");
    TCase *det = tcase_create("deterministic");
    tcase_add_test(det, test_det_closed_forms);
    tcase_add_test(det, test_det_structure);
    tcase_add_test(det, test_det_reuse);
    suite_add_tcase(s, det);
    TCase *pa = tcase_create("preferential");
    tcase_set_timeout(pa, 30);
    tcase_add_test(pa, test_pa_structure);
    tcase_add_test(pa, test_pa_small_n);
    tcase_add_test(pa, test_pa_determinism);
    tcase_add_test(pa, test_pa_small_probabilities);
    tcase_add_test(pa, test_pa_boundaries_by_hand);
    tcase_add_test(pa, test_pa_int_equals_float);
    tcase_add_test(pa, test_pa_leaves_s0);
    tcase_add_test(pa, test_pa_leaves_s1);
    tcase_add_test(pa, test_pa_star_s4);
    tcase_add_test(pa, test_generate_spec);
    suite_add_tcase(s, pa);
    TCase *tk = tcase_create("tasks");
    tcase_add_test(tk, test_tasks_constant);
    tcase_add_test(tk, test_tasks_uniform);
    suite_add_tcase(s, tk);
    return s;
}

TH_MAIN(tree_suite)
