/* The readers of the user's input files besides the configuration, under
 * a fuzzer (scripts/fuzz-input: AFL++ with ASan and UBSan), and a plain
 * program for any file:
 *     tests/fuzz_input KIND FILE [OTHER]
 *     afl-fuzz -i SEEDS -o OUT -- tests/fuzz_input KIND @@
 * KIND is one of
 *     dag     a task graph (workload.type=dag): dag_read, with its checks
 *             (names, units, placement, cycles)
 *     vef     an extended VEF trace (workload.type=vef)
 *     flows   a dc-flows flow list (workload.flow-list)
 *     layers  a training layers CSV (workload.layers-file)
 *             these three as `tasknet validate` reads them: a small
 *             configuration naming FILE, loaded, checked, resolved
 *     graph   a fabric graph (network.type=graph): the topology built with
 *             the file's routes, then shortest and up*-down* routes
 *     cdf     an empirical CDF (empirical(FILE) and empirical(FILE,linear)),
 *             its mean, bound and a few draws
 *     ibnet   an ibnetdiscover topology, imported with OTHER's forwarding
 *             tables (default configs/data/ib-2switch.fdbs)
 *     fdbs    forwarding tables, imported with OTHER's topology (default
 *             configs/data/ib-2switch.ibnetdiscover)
 * It exits 0 when the file is read, 1 when it is refused with an error.
 * Errors are the right answer to bad input; a crash, a sanitizer report, an
 * abort or a leak is a bug. */
#define _DEFAULT_SOURCE /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "config.h"
#include "dag.h"
#include "dist.h"
#include "run.h"
#include "topo.h"

enum { K_DAG, K_VEF, K_FLOWS, K_LAYERS, K_GRAPH, K_CDF, K_IBNET, K_FDBS };
static const char *const kinds[] = {"dag", "vef", "flows", "layers", "graph", "cdf", "ibnet", "fdbs", NULL};

static int read_dag(const char *path)
{
    dag d;
    char err[1024];
    int rc = dag_read(path, &d, err, sizeof err);
    if (rc == 0)
        dag_free(&d);
    return rc == 0;
}

static int read_graph(const char *path)
{
    static const topo_graph_routing rs[] = {TOPO_GRAPH_FILE, TOPO_GRAPH_SHORTEST, TOPO_GRAPH_UPDOWN};
    int ok = 0;
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        topo t;
        char err[1024];
        topo_graph_params p = {.path = path, .routing = rs[i]};
        if (topo_graph_init(&t, &p, err, sizeof err) == 0) {
            ok = 1;
            (void)topo_graph_cycle(&t);
            topo_free(&t);
        }
    }
    return ok;
}

static int read_cdf(const char *path)
{
    static const char *const modes[] = {"", ",linear"};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int ok = 0;
    for (size_t m = 0; m < 2; m++) {
        char text[PATH_MAX + 32], err[1024];
        snprintf(text, sizeof text, "empirical(%s%s)", path, modes[m]);
        dist d;
        if (dist_parse(text, UNIT_SIZE, NULL, &d, err, sizeof err) == 0) {
            ok = 1;
            volatile double s = dist_mean(&d) + dist_practical_max(&d);
            for (int i = 0; i < 64; i++)
                s += dist_sample(&d, r);
            (void)s;
            dist_free(&d);
        }
    }
    gsl_rng_free(r);
    return ok;
}

static int import_ib(const char *ibnet, const char *fdbs)
{
    FILE *out = fopen("/dev/null", "w");
    if (!out)
        return 0;
    ib_import_stats st;
    char err[1024];
    int rc = topo_import_ib(ibnet, fdbs, out, &st, err, sizeof err);
    fclose(out);
    return rc == 0;
}

/* vef, flows, layers: as `tasknet validate FILE.xml` reads them, a small
 * configuration naming the file (written once), loaded (the loader checks
 * the file's values) and checked for every input. */
static char conf_path[64];

static int write_conf(int kind, const char *path)
{
    char abs[PATH_MAX];
    if (!realpath(path, abs))
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(conf_path, sizeof conf_path, "%s/fuzz-input-%ld.xml", tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp",
             (long)getpid());
    FILE *f = fopen(conf_path, "w");
    if (!f)
        return -1;
    fprintf(f, "<tasknet version=\"1\">\n  <system nodes=\"16\"/>\n"
               "  <network type=\"electrical-switch\" bandwidth=\"10Gb/s\"/>\n");
    if (kind == K_VEF)
        fprintf(f, "  <workload type=\"vef\" file=\"%s\"/>\n", abs);
    else if (kind == K_FLOWS)
        fprintf(f, "  <workload type=\"dc-flows\" flow-list=\"%s\"/>\n", abs);
    else
        fprintf(f, "  <workload type=\"training\" iterations=\"2\" compute-time=\"10us\" layers-file=\"%s\"/>\n",
                abs);
    fprintf(f, "  <run replicas=\"1\" seed=\"1\"/>\n</tasknet>\n");
    return fclose(f) == 0 ? 0 : -1;
}

static int check_conf(void)
{
    cfg c;
    cfg_errors errs;
    cfg_errors_init(&errs);
    int ok = cfg_load(&c, conf_path, &errs) == 0;
    if (ok)
        ok = cfg_check(&c, &errs) == 0;
    if (ok) {
        /* resolved, as validate resolves a point: the layers file is read here */
        cfg pc;
        char err[1024];
        ok = cfg_point(&c, 0, &pc, err, sizeof err) == 0;
        if (ok) {
            ok = run_resolve(&pc, NULL, NULL, err, sizeof err) == 0;
            cfg_free(&pc);
        }
    }
    cfg_free(&c);
    cfg_errors_free(&errs);
    return ok;
}

static int one(int kind, const char *path, const char *other)
{
    switch (kind) {
    case K_DAG: return read_dag(path);
    case K_GRAPH: return read_graph(path);
    case K_CDF: return read_cdf(path);
    case K_IBNET: return import_ib(path, other);
    case K_FDBS: return import_ib(other, path);
    default: return check_conf();
    }
}

int main(int argc, char **argv)
{
    int kind = -1;
    for (int k = 0; argc > 2 && kinds[k]; k++)
        if (strcmp(argv[1], kinds[k]) == 0)
            kind = k;
    if (kind < 0) {
        fprintf(stderr, "usage: fuzz_input dag|vef|flows|layers|graph|cdf|ibnet|fdbs FILE [OTHER]\n");
        return 2;
    }
    const char *path = argv[2];
    const char *other = argc > 3                                ? argv[3]
                        : kind == K_IBNET                        ? "configs/data/ib-2switch.fdbs"
                                                                 : "configs/data/ib-2switch.ibnetdiscover";
    int conf = kind == K_VEF || kind == K_FLOWS || kind == K_LAYERS;
    if (conf && write_conf(kind, path) != 0) {
        fprintf(stderr, "fuzz_input: cannot write a configuration naming %s\n", path);
        return 2;
    }
    int ok = 0;
#ifdef __AFL_LOOP
    /* AFL++ persistent mode: many inputs per process (it rewrites the file) */
    while (__AFL_LOOP(10000))
        ok = one(kind, path, other);
#else
    ok = one(kind, path, other);
#endif
    if (conf)
        unlink(conf_path);
    return ok ? 0 : 1;
}
